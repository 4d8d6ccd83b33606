// The BSR SpMV's configuration: its rule and its check (host code, where fmt can build messages).
#include <fmt/format.h>

#include "spx/cuda/spmv_bsr.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

BsrSpmvParams bsr_spmv_rule(int block, int64_t blocks, int64_t block_rows) {
  BsrSpmvParams c;
  const double per_block_row =
      block_rows > 0 ? static_cast<double>(blocks) / static_cast<double>(block_rows) : 0;
  while (c.lanes_per_row * 2 * kBsrMinBlocksPerLane <= per_block_row && block * c.lanes_per_row * 2 <= 32)
    c.lanes_per_row *= 2;
  return c;
}

std::string invalid_reason(const BsrSpmvParams& p, int block) {
  const int q = p.lanes_per_row;
  if (block < kBsrMinBlock || block > kBsrMaxBlock)
    return fmt::format("block {} is outside {}..{}", block, kBsrMinBlock, kBsrMaxBlock);
  if (q < 1 || (q & (q - 1)) != 0 || block * q > 32)
    return fmt::format("lanes_per_row {} is not a power of two with {} x lanes_per_row <= 32", q, block);
  if (p.block_size < 32 || p.block_size > 1024 || p.block_size % 32 != 0)
    return fmt::format("block_size {} is not a multiple of 32 in 32..1024", p.block_size);
  return {};
}

void validate(const BsrSpmvParams& p, int block, const char* who) {
  if (std::string why = invalid_reason(p, block); !why.empty()) throw Error(fmt::format("{}: {}", who, why));
}

}  // namespace spx::cuda
