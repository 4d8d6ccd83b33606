#include "cpu/omp_threads.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "spx/cpu.hpp"
#include "spx/error.hpp"
#include "spx/threads.hpp"

namespace spx::omp {

int max_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

int max_settable_threads() {
  const int hardware = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return kThreadsPerHardwareThread * hardware;
}

void set_threads(int threads) {
  const int most = max_settable_threads();
  if (threads < 1 || threads > most)
    throw Error(fmt::format("{} threads: give 1 to {} ({} x the {} hardware threads)", threads, most,
                            kThreadsPerHardwareThread, most / kThreadsPerHardwareThread));
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
}

}  // namespace spx::omp
