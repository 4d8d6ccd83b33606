// Why: with the default policy, libgomp's idle threads spin for a while (GOMP_SPINCOUNT 300000)
// after every parallel region and at every barrier. On a machine where another process keeps a
// core busy, a spinning thread takes the core from the thread that still has work, and CPU
// products ran at 0.02-0.5x of their single-thread speed. Passive waiting costs a futex wake-up
// per parallel region, microseconds next to a product large enough to run on several threads
// (merge_path.hpp); docs/cpu-backend.md has the measurements.
//
// Why a restart: libgomp reads OMP_WAIT_POLICY once, in its initialiser, before main() runs, and
// there is no API to change the policy later. Setting the variable earlier does not work either:
// glibc resets the environment to the original one after the executable's pre-initialisers, before
// libgomp's initialiser runs. So main() sets the variable and execs itself. That loads the
// program and its CUDA libraries a second time (0.15 s on the 2-core development machine), so only
// the commands that time or iterate CPU products restart; the others (info, gen, convert, dist,
// --help, --version) run one long parallel region at most, where spinning costs little.
#include "openmp_wait_policy.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

namespace spx::cli {
namespace {

constexpr std::array<std::string_view, 7> kCommandsRunningCpuProducts = {"bench", "cg",   "model", "plan",
                                                                         "spmm",  "spmv", "tune"};

}  // namespace

bool wants_default_wait_policy(const char* wait_policy, const char* spin_count) {
  return wait_policy == nullptr && spin_count == nullptr;
}

void restart_with_passive_openmp_waiting(int argc, char** argv) {
#if defined(__linux__) && defined(_OPENMP)
  if (argc < 2 || std::find(kCommandsRunningCpuProducts.begin(), kCommandsRunningCpuProducts.end(),
                            std::string_view(argv[1])) == kCommandsRunningCpuProducts.end())
    return;
  if (!wants_default_wait_policy(std::getenv("OMP_WAIT_POLICY"), std::getenv("GOMP_SPINCOUNT"))) return;
  if (setenv("OMP_WAIT_POLICY", "passive", /*overwrite=*/0) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: run on with the runtime's default
  unsetenv("OMP_WAIT_POLICY");
#else
  (void)argc;
  (void)argv;
#endif
}

}  // namespace spx::cli
