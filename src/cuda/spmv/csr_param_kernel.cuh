// Device code of the parametrised CSR SpMV (Reguly & Giles 2012, Figure 3), re-derived for Hopper.
// Included by csr_param_f32.cu and csr_param_f64.cu, which instantiate it for one value type each
// (six coop variants apiece), so the two halves compile in parallel.
//
// What changed from the paper's kernel, and why:
//  * The partial sums of a row's `Coop` threads meet through warp shuffles (warp_reduce_sum), not
//    a shared-memory tree: no shared memory, no bank traffic, log2(Coop) register exchanges.
//  * All matrix and x loads go through the read-only path (__ldg): nothing in the launch writes
//    them, and x's lines stay in the 256 KB L1/texture cache between the rows that reuse them.
//  * Four nonzeros per thread are loaded before the first multiply (row_dot.cuh): Hopper needs
//    many bytes in flight per SM to reach its bandwidth, and a thread walking a row one
//    dependent load pair at a time leaves it latency-bound.
//  * Rows longer than the plan's threshold are skipped here and computed by extra blocks of the
//    same launch (long_row_chunk): the paper's dc1 case, without a second launch.
#pragma once

#include <cstdint>

#include "cuda/common/arrival.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/dispatch.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/row_dot.cuh"
#include "cuda/common/warp.cuh"
#include "cuda/spmv/csr_param_launch.hpp"

namespace spx::cuda::csr_param {

// Largest block the kernel is compiled for; the register budget follows from it (64 per thread).
inline constexpr int kMaxBlock = 1024;
// From this many threads a row, the row's columns and values are loaded evict-first (row_dot's
// Streaming): 3-6% faster on rows of 27-150 nonzeros (coop 8-16; f32 and f64), 1-3% slower on
// rows of 7 (coop 4), H200 (bench/results/h200/spmv-formats/NOTES.md, "Streaming loads").
inline constexpr int kStreamingMinCoop = 8;

// y[row] = alpha*sum + beta*y[row]; beta == 0 never reads y (NaN there must not leak through).
template <class T, class V, class O>
__device__ __forceinline__ void store_row(const CsrParamArgs<T, V, O>& a, int64_t row, T sum) {
  a.y[row] = a.beta == T{0} ? a.alpha * sum : a.alpha * sum + a.beta * a.y[row];
}

// One warp of the long-row path: chunk w of long row k. Every chunk's warp writes its partial sum
// and counts itself in arrivals[k] (arrival.cuh); the warp that arrives last adds the partials in
// chunk order (lane-strided, then a shuffle tree: a fixed order, so the result is deterministic)
// and writes y.
template <class T, class V, class O>
__device__ __forceinline__ void long_row_chunk(const CsrParamArgs<T, V, O>& a) {
  const int64_t w = int64_t{blockIdx.x} * (blockDim.x / 32) + threadIdx.x / 32;
  if (w >= a.long_chunks) return;  // warp-uniform
  const int lane = lane_id();
  const int32_t k = __ldg(a.chunk_owner + w);
  const int32_t first = __ldg(a.chunk_begin + k);
  const int32_t chunks = __ldg(a.chunk_begin + k + 1) - first;
  const int32_t row = __ldg(a.long_rows + k);
  const O row_end = __ldg(a.row_ptr + row + 1);
  const O begin =
      __ldg(a.row_ptr + row) + static_cast<O>(static_cast<int32_t>(w) - first) * O{kCsrLongRowChunk};
  // Clamped at 0: a plan used with a different matrix of the same shape (which spmv_csr cannot
  // detect) gives wrong sums, never an out-of-bounds read.
  const auto len = static_cast<uint32_t>(max(O{0}, min(O{kCsrLongRowChunk}, row_end - begin)));
  T sum = warp_reduce_sum<32>(
      row_dot<32, 4, true>(a.col_idx + begin, a.values + begin, a.x, len, static_cast<uint32_t>(lane)));
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

// Blocks [0, long_blocks) run the long-row path (first, so the longest work starts first); the
// others take `repeat` batches of blockDim/Coop consecutive rows each, a group of Coop threads per
// row. block_size is a run-time parameter (a multiple of 32): only Coop is compiled in, since the
// shuffle widths and the group index math depend on it.
template <int Coop, class T, class V, class O>
__global__ void __launch_bounds__(kMaxBlock) csr_param_kernel(const CsrParamArgs<T, V, O> a) {
  if (static_cast<int32_t>(blockIdx.x) < a.long_blocks) {
    long_row_chunk(a);
    return;
  }
  const int groups = static_cast<int>(blockDim.x) / Coop;  // rows per batch
  const int group = static_cast<int>(threadIdx.x) / Coop;
  const int lane = static_cast<int>(threadIdx.x) % Coop;
  const int first_group_of_warp = static_cast<int>(threadIdx.x & ~31u) / Coop;
  const int64_t block = int64_t{blockIdx.x} - a.long_blocks;
  int64_t batch_first = block * a.repeat * groups;
  for (int r = 0; r < a.repeat; ++r, batch_first += groups) {
    // Whole warps past the last row stop together (shuffles need every lane of a warp).
    if (batch_first + first_group_of_warp >= a.rows) break;
    const int64_t row = batch_first + group;
    T sum = T{0};
    bool mine = false;
    if (row < a.rows) {
      const O begin = __ldg(a.row_ptr + row), len = __ldg(a.row_ptr + row + 1) - begin;
      mine = len <= a.long_row_threshold;
      if (mine)
        sum = row_dot<Coop, 4, (Coop >= kStreamingMinCoop)>(a.col_idx + begin, a.values + begin, a.x,
                                                            static_cast<uint32_t>(len),
                                                            static_cast<uint32_t>(lane));
    }
    if constexpr (Coop > 1) sum = warp_reduce_sum<Coop>(sum);
    if (mine && lane == 0) store_row(a, row, sum);
  }
}

}  // namespace spx::cuda::csr_param

namespace spx::cuda {

template <class T, class V, class O>
void launch_csr_param(Context& ctx, const CsrSpmvParams& params, const CsrParamArgs<T, V, O>& args) {
  const int64_t blocks = int64_t{args.long_blocks} + csr_param_main_blocks(args.rows, params);
  if (blocks > int64_t{0x7fffffff})
    detail::throw_grid_too_large(blocks * params.block_size, params.block_size);
  const auto grid = static_cast<unsigned>(blocks);
  const auto block = static_cast<unsigned>(params.block_size);
  using csr_param::csr_param_kernel;
  // coop was validated (a power of two in 1..32); 32 is the last, fallback entry.
  detail::dispatch_value<1, 2, 4, 8, 16, 32>(params.coop, [&](auto coop) {
    csr_param_kernel<coop.value, T, V, O><<<grid, block, 0, ctx.stream()>>>(args);
  });
  SPX_CHECK_LAUNCH("csr_param_kernel", ctx.stream());
}

}  // namespace spx::cuda
