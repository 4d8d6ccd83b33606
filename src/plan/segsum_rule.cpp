// The segmented-sum SpMV's choices at plan time (tile shape, row completion): walks SegsumRuleTable
// (rule_tables.cpp). plan_segsum_spmv (src/cuda/spmv/segsum_plan.cpp) calls these.
#include <cstdint>

#include "spx/plan/rules.hpp"

namespace spx::plan {
namespace {

// Warps of the tile kernel the whole device keeps resident.
int64_t resident_warp_slots(const cuda::DeviceProps& device, const SegsumRuleTable& t) {
  return resident_threads(device, 0, t.resident_warps_per_sm) / 32;
}

}  // namespace

int segsum_nnz_per_lane(int64_t nnz, const cuda::DeviceProps& device, const RuleTables& tables) {
  const SegsumRuleTable& t = tables.segsum;
  const int64_t slots = resident_warp_slots(device, t);
  for (int npl : t.nnz_per_lane_steps)
    if (nnz >= slots * 32 * int64_t{npl}) return npl;
  return t.min_nnz_per_lane;
}

int segsum_nnz_per_lane_for_dirty(int nnz_per_lane, int64_t dirty_tiles, int64_t tiles,
                                  const RuleTables& tables) {
  const SegsumRuleTable& t = tables.segsum;
  const bool largest = !t.nnz_per_lane_steps.empty() && nnz_per_lane == t.nnz_per_lane_steps.front();
  if (largest && static_cast<double>(dirty_tiles) > t.dirty_fraction * static_cast<double>(tiles))
    return t.dirty_nnz_per_lane;
  return nnz_per_lane;
}

bool segsum_completes_rows(int64_t warps, const cuda::DeviceProps& device, const RuleTables& tables) {
  const SegsumRuleTable& t = tables.segsum;
  return warps <= t.completion_waves * resident_warp_slots(device, t);
}

}  // namespace spx::plan
