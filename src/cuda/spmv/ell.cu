// ELL SpMV (Bell & Garland): one thread per row over the column-major padded slab. Slot k of
// consecutive rows is contiguous (ld is a multiple of 32, so each warp's loads start aligned and
// fill whole 32-byte sectors). Every slot of the row is read — that is ELL's price for irregular
// rows — but padding slots (kPadding, 0) are recognised by their column and never touch x.
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/spmv/format_launch.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_formats.hpp"

namespace spx::cuda {
namespace {

// Slots per step: the columns and values of a step's 8 slots are all issued before the first gather
// of x, and the last, partial step is predicated instead of walked one slot at a time, so a row of
// 7 slots keeps 14 loads in flight, not 1 (Hopper needs ~15 KB in flight per SM to cover DRAM
// latency). The slab is read once: streaming loads (evict-first) leave L1 and L2 to x. Measured on
// an H200 (bench/results/h200/ell-streaming): 27-point stencils 4-7% and a 7-point stencil 1.3x
// faster than 4-slot steps with a one-by-one remainder.
constexpr int kSlotsPerStep = 8;

template <class T, class I>
__global__ void __launch_bounds__(1024)
    spmv_ell_kernel(I rows, I width, I ld, const I* __restrict__ col_idx, const T* __restrict__ values,
                    const T* __restrict__ x, T* __restrict__ y, T alpha, T beta) {
  const int64_t row = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int64_t stride = ld;
  const I* c = col_idx + row;
  const T* v = values + row;
  T sum = 0;
  for (I k = 0; k < width; k += kSlotsPerStep) {
    I cs[kSlotsPerStep];
    T vs[kSlotsPerStep];
#pragma unroll
    for (int u = 0; u < kSlotsPerStep; ++u) {
      const bool in_row = k + u < width;
      cs[u] = in_row ? __ldcs(c + u * stride) : static_cast<I>(kPadding);
      vs[u] = in_row ? __ldcs(v + u * stride) : T{0};
    }
    // Padding slots (kPadding, 0) never touch x.
#pragma unroll
    for (int u = 0; u < kSlotsPerStep; ++u)
      if (cs[u] != static_cast<I>(kPadding)) sum += vs[u] * __ldg(x + cs[u]);
    c += kSlotsPerStep * stride;
    v += kSlotsPerStep * stride;
  }
  // beta == 0 must not read y: NaN or garbage there may not leak into the result.
  y[row] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[row];
}

}  // namespace

namespace detail {

template <class T, class I>
void launch_spmv_ell(Context& ctx, const DeviceEll<T, I>& A, const T* x, T* y, T alpha, T beta) {
  if (A.rows == 0) return;
  const int block = plan::spread_block_size(A.rows, ctx.props());
  spmv_ell_kernel<T, I><<<grid_for(A.rows, block), block, 0, ctx.stream()>>>(
      A.rows, A.width, A.ld, A.col_idx.data(), A.values.data(), x, y, alpha, beta);
  SPX_CHECK_LAUNCH("spmv_ell_kernel", ctx.stream());
}

template void launch_spmv_ell(Context&, const DeviceEll<float, int32_t>&, const float*, float*, float, float);
template void launch_spmv_ell(Context&, const DeviceEll<double, int32_t>&, const double*, double*, double,
                              double);

}  // namespace detail

template <class T, class I>
void spmv_ell(Context& ctx, const DeviceEll<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  check_spmv_operands("spmv_ell", A.rows, A.cols, x, y);
  if (A.rows == 0) return;
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), static_cast<std::size_t>(A.rows), beta);
  detail::launch_spmv_ell(ctx, A, x.data(), y.data(), alpha, beta);
}

template void spmv_ell(Context&, const DeviceEll<float, int32_t>&, std::span<const float>, std::span<float>,
                       float, float);
template void spmv_ell(Context&, const DeviceEll<double, int32_t>&, std::span<const double>,
                       std::span<double>, double, double);

}  // namespace spx::cuda
