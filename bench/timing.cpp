#include "bench/timing.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "bench/problem.hpp"

namespace spx::bench {

double disturbed_spread(const Timing& t) {
  if (t.runs < kMinRunsToJudgeSpread || t.min_ms <= 0) return 0;
  const double spread = t.median_ms / t.min_ms;
  return spread > kDisturbedMedianOverMin ? spread : 0;
}

Timing measure(Instance& instance, const TimingPolicy& policy) {
  if (Timing own; instance.measure(policy, own)) return own;
  for (int i = 0; i < policy.extra_warmup_runs; ++i) instance.timed_run_ms();
  std::vector<double> samples;
  if (policy.fixed_runs > 0) {
    samples.reserve(static_cast<std::size_t>(policy.fixed_runs));
    for (int i = 0; i < policy.fixed_runs; ++i) samples.push_back(instance.timed_run_ms());
    return summarize(std::move(samples));
  }
  constexpr int kMinRunsOfSlowKernel = 3;
  double total_ms = 0;
  auto more = [&] {
    const int runs = static_cast<int>(samples.size());
    if (runs < kMinRunsOfSlowKernel) return true;
    if (runs >= policy.max_runs || total_ms >= 1e3 * policy.max_seconds) return false;
    return runs < policy.min_runs || total_ms < 1e3 * policy.min_seconds;
  };
  while (more()) {
    samples.push_back(instance.timed_run_ms());
    total_ms += samples.back();
  }
  return summarize(std::move(samples));
}

}  // namespace spx::bench
