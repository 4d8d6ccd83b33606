// BSR SpMV (spx/cuda/spmv_bsr.hpp). A group of b x Q lanes per block row; lane (r, q) walks blocks
// q, q+Q, ... of the block row and reads row r of each: b contiguous values, one block column
// (shared by the b lanes of the block: a broadcast) and b contiguous entries of x. At one step the
// group reads Q consecutive blocks, Q*b*b contiguous values, so every sector of the block row's
// values is fetched once (the b loads of a lane hit sectors its neighbours fetched, from L1).
// Why this shape rather than "lane k takes value k" of a warp per block row: a lane keeps one row
// for the whole walk, so its partial sum needs no per-step reduction, and the only cross-lane step
// is the final Q-wide shuffle. Several groups share a warp when b x Q <= 16 (short block rows, or
// Q kept small so that each lane walks several blocks: plan::bsr_spmv_rule).
//
// Bytes per product: blocks x (b*b values + 4) + (block_rows + 1) x 4 of A, x once, y once.
// The last block column may overhang cols: its lanes skip x past cols (those values are zero).
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/common/dispatch.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/common/warp.cuh"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_bsr.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

// Blocks whose loads a lane keeps in flight: with one block a step, a lane did one dependent chain
// (row pointer, column, x) of loads per block, and the 2-4-unknown FEM matrices reached 42-58% of
// the streaming bandwidth on their own bytes. The rule (plan::bsr_spmv_rule) gives each lane enough
// blocks (BsrRuleTable::min_blocks_per_lane) to fill a step.
constexpr int kBsrBlocksPerStep = 4;

template <int B, int Q, class T, class I>
__global__ void __launch_bounds__(1024)
    spmv_bsr_kernel(I rows, I cols, I block_rows, const I* __restrict__ row_ptr,
                    const I* __restrict__ col_idx, const T* __restrict__ values, const T* __restrict__ x,
                    T* __restrict__ y, T alpha, T beta) {
  constexpr int kGroup = B * Q;
  constexpr int kGroupsPerWarp = 32 / kGroup;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int64_t warp = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const int g = lane / kGroup, r = (lane % kGroup) / Q, q = lane % Q;
  const int64_t br = warp * kGroupsPerWarp + g;
  const bool active = g < kGroupsPerWarp && br < block_rows;
  T sum = 0;
  // No early return: every lane of the warp reaches the shuffle reduction below.
  if (active) {
    const int64_t end = row_ptr[br + 1];
    // kBsrBlocksPerStep blocks a step: their columns loaded before the first gather of x, so their
    // chains overlap; summed in block order either way (the same bits as one block a step).
    for (int64_t k0 = int64_t{row_ptr[br]} + q; k0 < end; k0 += kBsrBlocksPerStep * Q) {
      int64_t c0[kBsrBlocksPerStep];
#pragma unroll
      for (int s = 0; s < kBsrBlocksPerStep; ++s) {
        const int64_t k = k0 + s * Q;
        c0[s] = k < end ? int64_t{col_idx[k]} * B : -1;
      }
#pragma unroll
      for (int s = 0; s < kBsrBlocksPerStep; ++s) {
        if (c0[s] < 0) continue;
        const T* v = values + (k0 + s * Q) * (B * B) + r * B;
        if (c0[s] + B <= cols) {
#pragma unroll
          for (int c = 0; c < B; ++c) sum += v[c] * x[c0[s] + c];
        } else {
          for (int c = 0; c < B; ++c)
            if (c0[s] + c < cols) sum += v[c] * x[c0[s] + c];
        }
      }
    }
  }
  if constexpr (Q > 1) sum = warp_reduce_sum<Q>(sum);  // groups of Q lanes start at multiples of Q
  const int64_t row = br * B + r;
  if (active && q == 0 && row < rows) y[row] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[row];
}

template <int B, int Q, class T, class I>
void launch(Context& ctx, const DeviceBsr<T, I>& A, const T* x, T* y, int block, T alpha, T beta) {
  constexpr int kGroupsPerWarp = 32 / (B * Q);
  const int64_t warps = (int64_t{A.block_rows} + kGroupsPerWarp - 1) / kGroupsPerWarp;
  spmv_bsr_kernel<B, Q, T, I><<<grid_for(warps * 32, block), block, 0, ctx.stream()>>>(
      A.rows, A.cols, A.block_rows, A.row_ptr.data(), A.col_idx.data(), A.values.data(), x, y, alpha, beta);
  SPX_CHECK_LAUNCH("spmv_bsr_kernel", ctx.stream());
}

template <int B, class T, class I>
void launch_block(Context& ctx, const DeviceBsr<T, I>& A, const T* x, T* y, const BsrSpmvParams& c, T alpha,
                  T beta) {
  // Q was checked (b x Q <= kBsrMaxGroupLanes): only those are instantiated; 1 is the fallback.
  detail::dispatch_value<16, 8, 4, 2, 1>(c.lanes_per_row, [&](auto q) {
    if constexpr (B * q.value <= kBsrMaxGroupLanes)
      launch<B, q.value>(ctx, A, x, y, c.block_size, alpha, beta);
  });
}

}  // namespace

template <class T, class I>
void spmv_bsr(Context& ctx, const DeviceBsr<T, I>& A, std::span<const T> x, std::span<T> y,
              const BsrSpmvParams& config, T alpha, T beta) {
  check_spmv_operands("spmv_bsr", A.rows, A.cols, x, y);
  validate(config, A.block);
  if (A.rows == 0) return;
  if (alpha == T{0} || A.blocks == 0)
    return scale_in_place(ctx, y.data(), static_cast<std::size_t>(A.rows), beta);
  detail::dispatch_value<2, 3, 4, 5, 6, 7, 8>(
      A.block, [&](auto b) { launch_block<b.value>(ctx, A, x.data(), y.data(), config, alpha, beta); });
}

template void spmv_bsr(Context&, const DeviceBsr<float, int32_t>&, std::span<const float>, std::span<float>,
                       const BsrSpmvParams&, float, float);
template void spmv_bsr(Context&, const DeviceBsr<double, int32_t>&, std::span<const double>,
                       std::span<double>, const BsrSpmvParams&, double, double);

}  // namespace spx::cuda
