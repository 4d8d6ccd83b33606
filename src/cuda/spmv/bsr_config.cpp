// The BSR SpMV's configuration: its rule and its check (host code, where fmt can build messages).
#include <fmt/format.h>

#include "spx/cuda/spmv_bsr.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

BsrSpmvConfig bsr_spmv_rule(int block, int64_t blocks, int64_t block_rows) {
  BsrSpmvConfig c;
  const double per_block_row =
      block_rows > 0 ? static_cast<double>(blocks) / static_cast<double>(block_rows) : 0;
  while (c.lanes_per_row * 2 * kBsrMinBlocksPerLane <= per_block_row && block * c.lanes_per_row * 2 <= 32)
    c.lanes_per_row *= 2;
  return c;
}

void check_bsr_spmv_config(int block, const BsrSpmvConfig& c) {
  const int q = c.lanes_per_row;
  if (block < kBsrMinBlock || block > kBsrMaxBlock)
    throw Error(fmt::format("BSR SpMV: block size {} is outside {}..{}", block, kBsrMinBlock, kBsrMaxBlock));
  if (q < 1 || (q & (q - 1)) != 0 || block * q > 32)
    throw Error(
        fmt::format("BSR SpMV: {} lanes per row must be a power of two with {} x lanes <= 32", q, block));
  if (c.block_size < 32 || c.block_size > 1024 || c.block_size % 32 != 0)
    throw Error(
        fmt::format("BSR SpMV: block size {} threads must be a multiple of 32 in 32..1024", c.block_size));
}

}  // namespace spx::cuda
