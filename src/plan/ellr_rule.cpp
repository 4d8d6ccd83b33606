// The ELLR-T SpMV rule (the FastSpMM paper's §2: T and BS per matrix and GPU, Vázquez et al.'s model
// re-derived for Hopper): walks EllrRuleTable and LaunchShapeTable (rule_tables.cpp).
#include <algorithm>
#include <cstdint>

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

}  // namespace spx::plan
