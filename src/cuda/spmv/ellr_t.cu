// ELLR-T SpMV (Vázquez et al.; FastSpMM paper §2): T consecutive threads compute one row of an
// ELLPACK-R matrix. Thread p of the group walks slots p, p+T, p+2T, ... below row_len[r], so padding
// is never read (unlike ELL); the T partial sums meet through warp_reduce_sum<T> (register shuffles,
// where the paper reduced through shared memory on Fermi).
//
// Layout: spx's EllR is the column-major slab of the paper with T = 1 (slot k of row r at
// k * rows_padded + r) for every T, so one matrix serves every configuration. A warp's load then
// covers T slot columns of 32/T consecutive rows each: whole 32-byte sectors for T <= 4 (f64
// values) and T <= 8 (4-byte values and columns); beyond that the neighbouring group reads the other
// half of the sector, usually from L1. ellr_t_rule picks T (src/cuda/spmv/ellr_rule.hpp).
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/common/dispatch.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/common/warp.cuh"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_formats.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

template <int ThreadsPerRow, class T, class I>
__global__ void __launch_bounds__(1024)
    spmv_ellr_t_kernel(I rows, I rows_padded, const I* __restrict__ col_idx, const T* __restrict__ values,
                       const I* __restrict__ row_len, const T* __restrict__ x, T* __restrict__ y, T alpha,
                       T beta) {
  const int64_t thread = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int64_t row = thread / ThreadsPerRow;
  const int p = static_cast<int>(thread % ThreadsPerRow);
  T sum = 0;
  // No early return: every lane of the warp must reach the shuffle reduction below.
  if (row < rows) {
    const I len = row_len[row];
    const int64_t stride = int64_t{ThreadsPerRow} * rows_padded;
    const I* c = col_idx + row + int64_t{p} * rows_padded;
    const T* v = values + row + int64_t{p} * rows_padded;
    // A counted loop (row_len is known), so the compiler can issue the loads of several slots
    // before the first gather of x.
#pragma unroll 4
    for (I k = p; k < len; k += ThreadsPerRow) {
      sum += *v * x[*c];
      c += stride;
      v += stride;
    }
  }
  if constexpr (ThreadsPerRow > 1) sum = warp_reduce_sum<ThreadsPerRow>(sum);
  if (row < rows && p == 0) y[row] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[row];
}

template <int ThreadsPerRow, class T, class I>
void launch(Context& ctx, const DeviceEllR<T, I>& A, const T* x, T* y, int block, T alpha, T beta) {
  const int64_t threads = int64_t{A.rows} * ThreadsPerRow;
  spmv_ellr_t_kernel<ThreadsPerRow, T, I><<<grid_for(threads, block), block, 0, ctx.stream()>>>(
      A.rows, A.rows_padded, A.col_idx.data(), A.values.data(), A.row_len.data(), x, y, alpha, beta);
  SPX_CHECK_LAUNCH("spmv_ellr_t_kernel", ctx.stream());
}

}  // namespace

template <class T, class I>
void spmv_ellr_t(Context& ctx, const DeviceEllR<T, I>& A, std::span<const T> x, std::span<T> y,
                 const EllrTParams& config, T alpha, T beta) {
  check_spmv_operands("spmv_ellr_t", A.rows, A.cols, x, y);
  validate(config);
  if (A.rows == 0) return;
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), static_cast<std::size_t>(A.rows), beta);
  const int block = config.block_size;
  // threads_per_row was checked (a power of two in 1..32); 32 is the last, fallback entry.
  detail::dispatch_value<1, 2, 4, 8, 16, 32>(config.threads_per_row, [&](auto threads) {
    launch<threads.value>(ctx, A, x.data(), y.data(), block, alpha, beta);
  });
}

template void spmv_ellr_t(Context&, const DeviceEllR<float, int32_t>&, std::span<const float>,
                          std::span<float>, const EllrTParams&, float, float);
template void spmv_ellr_t(Context&, const DeviceEllR<double, int32_t>&, std::span<const double>,
                          std::span<double>, const EllrTParams&, double, double);

}  // namespace spx::cuda
