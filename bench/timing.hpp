// Repetition policy for timing one Instance; the statistics are spx::Timing (spx/timing.hpp).
#pragma once

#include "spx/timing.hpp"

namespace spx::bench {

class Instance;

// The engine runs every kernel once (poisoned output, checked against spx::ref) before timing:
// that checked run is the warm-up (first-touch pages, lazy CUDA module loading, caches).
// Then, by default, runs adapt to the kernel's speed: keep going until both `min_runs` runs and
// `min_seconds` of measured time are reached, so fast kernels get many samples; a slow kernel
// stops once `max_seconds` are spent (after at least 3 runs), and nothing runs more than
// `max_runs` times. `fixed_runs` > 0 replaces all of that with exactly that many runs.
struct TimingPolicy {
  int fixed_runs = 0;
  double min_seconds = 0.2;
  int min_runs = 10;
  double max_seconds = 2.0;
  int max_runs = 10000;
  int extra_warmup_runs = 0;  // untimed runs after the checked run
};

// Run-to-run spread past which other processes, not the kernel, set a CPU kernel's times: on a
// quiet machine a product's median stays within ~10% of its minimum, while a busy process on the
// same cores made it 2-50x slower in some runs (docs/cpu-backend.md, "Waiting threads").
inline constexpr double kDisturbedMedianOverMin = 1.5;
inline constexpr int kMinRunsToJudgeSpread = 5;

// median / min when the timing has enough runs and that exceeds kDisturbedMedianOverMin, else 0.
double disturbed_spread(const Timing& t);

// Times the instance as the policy says: through Instance::measure() when the instance has its
// own harness, else by calling Instance::timed_run_ms() once per run.
Timing measure(Instance& instance, const TimingPolicy& policy);

}  // namespace spx::bench
