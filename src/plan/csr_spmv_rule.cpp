// The fixed rule of the parametrised CSR SpMV (Reguly & Giles §5.4) re-derived for Hopper, and its
// long-row threshold: walks CsrRuleTable (rule_tables.cpp; refitted by tools/fit_csr_rule.py).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "spx/error.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {
namespace {

constexpr int kMinBlock = 64;
constexpr int kMaxBlock = 1024;
constexpr int kMaxRepeat = 1024;

}  // namespace

cuda::CsrSpmvParams csr_fixed_rule(const MatrixStats& stats, const cuda::DeviceProps& props,
                                   const CsrRuleTable& table) {
  if (table.coop_steps.empty() || table.repeat_steps.empty())
    throw Error("csr_fixed_rule: the rule table needs at least one coop step and one repeat step");
  cuda::CsrSpmvParams p;

  // coop from the average row length (NaN or negative averages count as empty rows).
  const double avg = std::isfinite(stats.avg_row) ? std::max(0.0, stats.avg_row) : 0.0;
  p.coop = table.coop_steps.back().coop;
  for (const auto& step : table.coop_steps) {
    if (avg < step.avg_row_below) {
      p.coop = step.coop;
      break;
    }
  }

  const model::DeviceBasics device = model::device_basics(props);
  p.block_size =
      std::clamp(table.block_size / 32 * 32, kMinBlock, std::min(kMaxBlock, device.threads_per_block));

  // Rows per resident thread group (resident groups = resident threads at this block size / coop).
  const auto rows_per_group = [&](int coop) {
    const double resident_groups =
        static_cast<double>(resident_threads(props, p.block_size)) / std::max(1, coop);
    return static_cast<double>(std::max<int64_t>(0, stats.rows)) / resident_groups;
  };
  if (p.coop > 1 && avg < table.halve_coop_avg_below &&
      rows_per_group(p.coop) >= table.halve_coop_rows_per_group)
    p.coop /= 2;

  // repeat from the rows per resident thread group.
  p.repeat = table.repeat_steps.front().repeat;
  const double groups_rows = rows_per_group(p.coop);
  for (const auto& step : table.repeat_steps) {
    if (groups_rows >= step.rows_per_resident_group_from) p.repeat = step.repeat;
  }
  p.repeat = std::clamp(p.repeat, 1, kMaxRepeat);
  cuda::validate(p, "csr_fixed_rule (check the rule table)");
  return p;
}

int64_t csr_long_row_threshold(int64_t nnz, const cuda::CsrSpmvParams& params, const cuda::DeviceProps& props,
                               const CsrRuleTable& table) {
  const double resident = static_cast<double>(resident_threads(props, params.block_size));
  const double share = table.long_row_share * static_cast<double>(std::max<int64_t>(0, nnz)) / resident;
  const double iterations = std::max(table.long_row_min_iterations, share);
  const double threshold = std::ceil(iterations * std::max(1, params.coop));
  if (!(threshold < 9e18)) return std::numeric_limits<int64_t>::max();
  return std::max<int64_t>(0, static_cast<int64_t>(threshold));
}

}  // namespace spx::plan
