// The ELLR-T SpMV rule (the FastSpMM paper's §2: T and BS per matrix and GPU, Vázquez et al.'s model
// re-derived for Hopper): walks EllrRuleTable and LaunchShapeTable (rule_tables.cpp); SELL-C16's lanes
// per row, the same small-matrix doubling over SellRuleTable.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "plan/rules_detail.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {
namespace detail {

cuda::EllrTParams ellr_t_choice(const MatrixStats& stats, const cuda::DeviceProps& device,
                                const RuleTables& tables) {
  const int threads = threads_per_row(stats, device, tables, tables.ellr.threads_by_avg_row,
                                      tables.ellr.small_min_slots_per_thread);
  return {threads, spread_block(std::max<int64_t>(1, stats.rows) * threads, device, tables)};
}

}  // namespace detail

cuda::EllrTParams ellr_t_rule(const MatrixStats& stats, const cuda::DeviceProps& device,
                              const RuleTables& tables) {
  return detail::ellr_t_choice(stats, device, tables);
}

int sell_c16_lanes(int64_t rows, int64_t slots, const cuda::DeviceProps& device, const RuleTables& tables) {
  MatrixStats stats;  // the padded row: what a lane walks
  stats.rows = rows;
  stats.nnz = slots;
  stats.avg_row = rows > 0 ? static_cast<double>(slots) / static_cast<double>(rows) : 0.0;
  stats.max_row = static_cast<int64_t>(stats.avg_row);
  const int lanes =
      detail::threads_per_row(stats, device, tables, {{std::numeric_limits<double>::infinity(), 1}},
                              tables.sell.small_min_slots_per_lane);
  return std::clamp(lanes, 1, tables.sell.max_lanes);
}

}  // namespace spx::plan
