// Mode::Auto's light plan (spx/plan.hpp, light_plan): whether planning can pay for itself before it
// starts. On a matrix of 10^5 nonzeros an SpMV takes ~5 us; the features (70-170 us on the GPU) and
// the ranking (~100 us) cost 50 such products, more than any choice can save over the default 100
// calls (H200 validation suite, docs/planner.md). There the light kernel runs at once.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {

std::optional<LightPlan> light_plan(const Problem& p, const Options& o, const model::DeviceBasics& device) {
  if (o.mode != Mode::Auto || p.op != Operation::Spmv || !o.kernels.empty() || !o.formats.empty() ||
      o.reuse != nullptr)
    return std::nullopt;
  const PlannerRuleTable& t = default_rule_tables().planner;
  const auto nnz = static_cast<double>(p.stats.nnz);
  const auto rows = static_cast<double>(p.stats.rows);
  const auto cols = static_cast<double>(p.stats.cols);
  const auto v = static_cast<double>(p.value_bytes);
  // CSR's bytes (values, column indices, row pointer, x and y once each) at the copy bandwidth
  // (GB/s = 10^3 bytes per us), or the launch floor.
  const double bytes = nnz * (v + 4) + (rows + 1) * 4 + (rows + cols) * v;
  const double floor_us = std::max(t.auto_launch_floor_us, bytes / (std::max(device.copy_gbs, 1.0) * 1e3));
  const double calls = static_cast<double>(std::max<int64_t>(o.expected_calls, 1));
  const double run_us = calls * floor_us;
  const bool uniform = p.stats.nnz > 0 && p.stats.ell_padding_ratio <= t.uniform_padding;
  const double share = uniform ? t.auto_light_gain_share_uniform : t.auto_light_gain_share;
  const double gain_us = share * run_us;
  const double plan_us = t.auto_plan_fixed_us + t.auto_plan_us_per_mnnz * nnz * 1e-6;
  if (plan_us <= gain_us) return std::nullopt;
  LightPlan light;
  light.kernel = t.auto_light_kernel;
  light.why = fmt::format(
      "planning (~{:.0f} us: features, ranking) would cost more than it can save over {} calls (at most "
      "{:.0f}% of ~{:.0f} us of products, ~{:.0f} us): {} by its fixed rule, on the CSR as it is",
      plan_us, o.expected_calls, 100 * share, run_us, gain_us, t.auto_light_kernel);
  // Irregular rows: the light kernel and its rival each win on some such matrices; a race on the
  // first calls costs a few calls of the slower one (a timed race is not reproducible: not with
  // deterministic_only).
  const bool irregular = p.stats.nnz > 0 && p.stats.ell_padding_ratio > t.spread_padding;
  const auto race_calls = static_cast<int64_t>(2 * (t.auto_light_race_samples + 1));
  if (irregular && !t.auto_light_rival.empty() && !o.deterministic_only &&
      o.expected_calls >= 2 * race_calls) {
    light.rival = t.auto_light_rival;
    light.race_samples = t.auto_light_race_samples;
    light.why += fmt::format(
        "; rows this irregular (ELL padding {:.0f}) are raced against {} on the first "
        "{} calls",
        p.stats.ell_padding_ratio, light.rival, race_calls);
  }
  return light;
}

}  // namespace spx::plan
