// BSR SpMV's lanes per block row (BsrRuleTable): enough blocks per lane to keep its loads in flight,
// within one warp's group.
#include "spx/plan/rules.hpp"

namespace spx::plan {

cuda::BsrSpmvParams bsr_spmv_rule(int block, int64_t blocks, int64_t block_rows, const RuleTables& tables) {
  cuda::BsrSpmvParams c;
  const double per_block_row =
      block_rows > 0 ? static_cast<double>(blocks) / static_cast<double>(block_rows) : 0;
  const double min_blocks = tables.bsr.min_blocks_per_lane;
  while (c.lanes_per_row * 2 * min_blocks <= per_block_row &&
         block * c.lanes_per_row * 2 <= cuda::kBsrMaxGroupLanes)
    c.lanes_per_row *= 2;
  return c;
}

}  // namespace spx::plan
