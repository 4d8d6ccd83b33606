// Device code of the CSR-C16 SpMV: csr_param's kernel shape (csr_param_kernel.cuh) over 16-bit
// column offsets, plus the escape rows. Included by csr_c16_f32.cu and csr_c16_f64.cu.
//
//  * A group of Coop lanes per row, as csr_param: the row's uint16 offsets are read by consecutive
//    lanes (a warp's loads are contiguous: 64 bytes per 32 offsets) through row_dot, which batches
//    four nonzeros per lane before the first multiply; x is gathered at base + offset (x is
//    offset by the row's base once, so the inner loop is csr_param's with a narrower index).
//    Offsets are loaded one uint16 per lane: rows begin at any offset parity, and the vector
//    loads a 32/64-bit read of 2 or 4 offsets needs would add an unaligned head per row.
//  * Escape rows (span > 65535 or longer than the plan's threshold) are empty in the 16-bit part
//    and marked base < 0; the groups skip them. Blocks [0, escape_blocks) sum them from the 32-bit
//    side CSR, one warp per 512-nonzero chunk, the partials added in chunk order by the warp that
//    arrives last (arrival.cuh): deterministic, and every row of y is written by exactly one warp.
#pragma once

#include <cstdint>

#include "cuda/common/arrival.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/dispatch.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/row_dot.cuh"
#include "cuda/common/warp.cuh"
#include "cuda/spmv/csr_c16_launch.hpp"
#include "cuda/spmv/csr_param_launch.hpp"  // csr_param_main_blocks
#include "spx/cuda/spmv_csr.hpp"           // kCsrLongRowChunk

namespace spx::cuda::csr_c16 {

inline constexpr int kMaxBlock = 1024;

// y[row] = alpha*sum + beta*y[row]; beta == 0 never reads y.
template <class T>
__device__ __forceinline__ void store_row(const CsrC16Args<T>& a, int64_t row, T sum) {
  a.y[row] = a.beta == T{0} ? a.alpha * sum : a.alpha * sum + a.beta * a.y[row];
}

// One warp of the escape path: chunk w of escape row k (the shape of csr_param's long_row_chunk).
template <class T>
__device__ __forceinline__ void escape_chunk(const CsrC16Args<T>& a) {
  const int64_t w = int64_t{blockIdx.x} * (blockDim.x / 32) + threadIdx.x / 32;
  if (w >= a.escape_chunks) return;  // warp-uniform
  const int lane = lane_id();
  const int32_t k = __ldg(a.chunk_owner + w);
  const int32_t first = __ldg(a.chunk_begin + k);
  const int32_t chunks = __ldg(a.chunk_begin + k + 1) - first;
  const int32_t row = __ldg(a.escape_rows + k);
  const int32_t row_end = __ldg(a.escape_row_ptr + k + 1);
  const int32_t begin =
      __ldg(a.escape_row_ptr + k) + (static_cast<int32_t>(w) - first) * int32_t{kCsrLongRowChunk};
  const auto len = static_cast<uint32_t>(max(0, min(int32_t{kCsrLongRowChunk}, row_end - begin)));
  T sum = warp_reduce_sum<32>(
      row_dot<32>(a.escape_col_idx + begin, a.escape_values + begin, a.x, len, static_cast<uint32_t>(lane)));
  if (chunks == 1) {
    if (lane == 0) store_row(a, row, sum);
    return;
  }
  if (lane == 0) a.partials[w] = sum;
  if (!warp_arrives_last(a.arrivals + k, static_cast<unsigned>(chunks))) return;
  T total = T{0};
  for (int32_t c = lane; c < chunks; c += 32) total += __ldcg(a.partials + first + c);
  total = warp_reduce_sum<32>(total);
  if (lane == 0) store_row(a, row, total);
}

template <int Coop, class T>
__global__ void __launch_bounds__(kMaxBlock) csr_c16_kernel(const CsrC16Args<T> a) {
  if (static_cast<int32_t>(blockIdx.x) < a.escape_blocks) {
    escape_chunk(a);
    return;
  }
  const int groups = static_cast<int>(blockDim.x) / Coop;
  const int group = static_cast<int>(threadIdx.x) / Coop;
  const int lane = static_cast<int>(threadIdx.x) % Coop;
  const int first_group_of_warp = static_cast<int>(threadIdx.x & ~31u) / Coop;
  const int64_t block = int64_t{blockIdx.x} - a.escape_blocks;
  int64_t batch_first = block * a.repeat * groups;
  for (int r = 0; r < a.repeat; ++r, batch_first += groups) {
    // Whole warps past the last row stop together (shuffles need every lane of a warp).
    if (batch_first + first_group_of_warp >= a.rows) break;
    const int64_t row = batch_first + group;
    T sum = T{0};
    bool mine = false;
    if (row < a.rows) {
      const int32_t base = __ldg(a.base + row);
      mine = base >= 0;
      if (mine) {
        const int32_t begin = __ldg(a.row_ptr + row), len = __ldg(a.row_ptr + row + 1) - begin;
        sum = row_dot<Coop>(a.offsets + begin, a.values + begin, a.x + base, static_cast<uint32_t>(len),
                            static_cast<uint32_t>(lane));
      }
    }
    if constexpr (Coop > 1) sum = warp_reduce_sum<Coop>(sum);
    if (mine && lane == 0) store_row(a, row, sum);
  }
}

}  // namespace spx::cuda::csr_c16

namespace spx::cuda {

template <class T>
void launch_csr_c16(Context& ctx, const CsrSpmvParams& params, const CsrC16Args<T>& args) {
  const int64_t blocks = int64_t{args.escape_blocks} + csr_param_main_blocks(args.rows, params);
  if (blocks > int64_t{0x7fffffff})
    detail::throw_grid_too_large(blocks * params.block_size, params.block_size);
  const auto grid = static_cast<unsigned>(blocks);
  const auto block = static_cast<unsigned>(params.block_size);
  using csr_c16::csr_c16_kernel;
  detail::dispatch_value<1, 2, 4, 8, 16, 32>(
      params.coop, [&](auto coop) { csr_c16_kernel<coop.value, T><<<grid, block, 0, ctx.stream()>>>(args); });
  SPX_CHECK_LAUNCH("csr_c16_kernel", ctx.stream());
}

}  // namespace spx::cuda
