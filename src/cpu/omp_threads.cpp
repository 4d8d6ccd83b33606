#include "cpu/omp_threads.hpp"

#include "spx/cpu.hpp"

namespace spx::omp {

int max_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace spx::omp
