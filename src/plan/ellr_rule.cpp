// The ELLR-T SpMV rule (the FastSpMM paper's §2: T and BS per matrix and GPU, Vázquez et al.'s model
// re-derived for Hopper): walks EllrRuleTable and LaunchShapeTable (rule_tables.cpp).
#include <algorithm>
#include <cstdint>

#include "plan/rules_detail.hpp"
#include "spx/cuda/rules.hpp"

namespace spx::cuda {
namespace detail {

EllrTConfig ellr_t_choice(const MatrixStats& stats, const DeviceProps& device, const RuleTables& tables) {
  const EllrRuleTable& t = tables.ellr;
  // Step 1: T from the average row length.
  int threads = step_for_average_row(t.threads_by_avg_row, stats.avg_row);
  // Step 2: small matrices. Fewer rows × T threads than the device keeps resident leave SMs without
  // loads in flight; doubling T doubles the threads and halves each group's walk, while an average
  // row still gives every thread of the group its slots.
  const int64_t resident = resident_threads(device);
  while (threads < 32 && stats.rows * threads < resident &&
         t.small_min_slots_per_thread * threads <= stats.avg_row)
    threads *= 2;
  // Step 3: a few very long rows. The group of the longest row is the critical path once its serial
  // walk outlasts streaming the matrix.
  const int64_t budget = serial_slot_budget(stats, device, tables);
  while (threads < 32 && (stats.max_row + threads - 1) / threads > budget) threads *= 2;
  return {threads, spread_block(std::max<int64_t>(1, stats.rows) * threads, device, tables)};
}

}  // namespace detail

EllrTConfig ellr_t_rule(const MatrixStats& stats, const DeviceProps& device, const RuleTables& tables) {
  return detail::ellr_t_choice(stats, device, tables);
}

}  // namespace spx::cuda
