// SSFastSpMM: ELLR-T SpMM (Ortega et al., Algorithm 1), re-derived for Hopper (docs/spmm.md).
//
// T consecutive threads share row i of A: thread p takes slots p, p+T, ... below row_len[i] (the
// slot-major ELLPACK-R slab, so a warp's loads of A are coalesced across its rows), and for each
// slot reads the L_c consecutive entries B[col, j0 .. j0+L_c) of row-major B with 16-byte vector
// loads through the read-only path. The L_c partial sums stay in registers — not in shared memory
// as on Fermi (Algorithm 1 lines 12-16): on Hopper registers are plentiful and a shared-memory
// partial sum would cost a store and a load per slot and cap occupancy — and the T threads combine
// them with shuffles; thread p writes the columns j ≡ p (mod T). blockIdx.y is the pass: each pass
// re-reads A for the next L_c columns, so L_c is as large as the registers allow.
#include <cstdint>

#include "common/pow2.hpp"
#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/spmm/spmm_checks.hpp"
#include "cuda/spmm/spmm_device.cuh"
#include "spx/cuda/spmm.hpp"

namespace spx::cuda {
namespace {

using cuda::kSpmmMaxBlock;
using detail::dense_arg;
using detail::DenseArg;
using detail::log2_of;

template <class T, class I>
struct EllrArg {
  I rows;
  I rows_padded;
  const I* __restrict__ col_idx;
  const T* __restrict__ values;
  const I* __restrict__ row_len;
};

// Vec: a full pass over row-major B whose rows are aligned for load_row_segment<Lc>. Otherwise the
// pass has `ncols` <= Lc columns, read with guarded scalar loads through B's strides (column-major
// B, a misaligned slice, the last pass of an L that Lc does not divide).
template <int Lc, bool Vec, class T, class I>
__global__ void __launch_bounds__(kSpmmMaxBlock)
    spmm_ellr_t_kernel(EllrArg<T, I> A, DenseArg<const T> B, DenseArg<T> C, int t_log2, int64_t first_col,
                       int ncols, T alpha, T beta) {
  const int t = 1 << t_log2;
  const int64_t thread = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int64_t row = thread >> t_log2;
  const int p = static_cast<int>(thread & (t - 1));
  const int64_t j0 = first_col + int64_t{blockIdx.y} * Lc;
  T acc[Lc];
#pragma unroll
  for (int j = 0; j < Lc; ++j) acc[j] = T{0};
  // No early return: every lane of the warp must reach the group reduction.
  if (row < A.rows) {
    const I len = A.row_len[row];
    const int64_t stride = int64_t{t} * A.rows_padded;
    const I* c = A.col_idx + row + int64_t{p} * A.rows_padded;
    const T* v = A.values + row + int64_t{p} * A.rows_padded;
    const T* b = B.data + j0 * B.col_stride;
#pragma unroll 2
    for (I k = p; k < len; k += t) {
      const T a = *v;
      const T* b_row = b + int64_t{*c} * B.row_stride;
      if constexpr (Vec) {
        T bv[Lc];
        detail::load_row_segment<Lc>(b_row, bv);
#pragma unroll
        for (int j = 0; j < Lc; ++j) acc[j] += a * bv[j];
      } else {
#pragma unroll
        for (int j = 0; j < Lc; ++j)
          if (j < ncols) acc[j] += a * __ldg(b_row + j * B.col_stride);
      }
      c += stride;
      v += stride;
    }
  }
  if (t > 1) detail::group_reduce_all(acc, t);
  if (row < A.rows) {
    T* c_row = C.data + row * C.row_stride + j0 * C.col_stride;
#pragma unroll
    for (int j = 0; j < Lc; ++j)
      if ((Vec || j < ncols) && (j & (t - 1)) == p)
        detail::write_scaled(c_row + j * C.col_stride, acc[j], alpha, beta);
  }
}

// `passes` passes of Lc columns from first_col (ncols == Lc), or one pass of ncols < Lc.
template <int Lc, class T, class I>
void launch_passes(Context& ctx, const DeviceEllR<T, I>& A, DenseArg<const T> B, DenseArg<T> C, bool vec,
                   const SpmmEllrParams& config, int64_t first_col, int64_t passes, int ncols, T alpha,
                   T beta) {
  const EllrArg<T, I> a{A.rows, A.rows_padded, A.col_idx.data(), A.values.data(), A.row_len.data()};
  const int64_t threads = int64_t{A.rows} * config.threads_per_row;
  const int t_log2 = log2_of(config.threads_per_row);
  // gridDim.y is at most 65535 passes per launch.
  for (int64_t done = 0; done < passes; done += 65535) {
    const dim3 grid(grid_for(threads, config.block_size),
                    static_cast<unsigned>(std::min<int64_t>(65535, passes - done)));
    const int64_t first = first_col + done * Lc;
    if (vec)
      spmm_ellr_t_kernel<Lc, true, T, I>
          <<<grid, config.block_size, 0, ctx.stream()>>>(a, B, C, t_log2, first, ncols, alpha, beta);
    else
      spmm_ellr_t_kernel<Lc, false, T, I>
          <<<grid, config.block_size, 0, ctx.stream()>>>(a, B, C, t_log2, first, ncols, alpha, beta);
    SPX_CHECK_LAUNCH("spmm_ellr_t_kernel", ctx.stream());
  }
}

template <class T, class I>
void dispatch(int lc, Context& ctx, const DeviceEllR<T, I>& A, DenseArg<const T> B, DenseArg<T> C, bool vec,
              const SpmmEllrParams& config, int64_t first_col, int64_t passes, int ncols, T alpha, T beta) {
  detail::dispatch_value<1, 2, 4, 8, 16, 32>(lc, [&](auto Lc) {
    launch_passes<Lc.value>(ctx, A, B, C, vec, config, first_col, passes, ncols, alpha, beta);
  });
}

}  // namespace

template <class T, class I>
void spmm_ellr_t(Context& ctx, const DeviceEllR<T, I>& A, DenseView<const T> B, DenseView<T> C,
                 const SpmmEllrParams& config, T alpha, T beta) {
  detail::check_spmm_operands("spmm_ellr_t", A.rows, A.cols, detail::shape_of(B), detail::shape_of(C),
                              sizeof(T));
  validate(config);
  if (A.rows == 0 || C.cols == 0) return;
  if (alpha == T{0}) return detail::scale_view(ctx, C, beta);
  const int lc = config.cols_per_pass;
  const int64_t full = C.cols / lc;
  const int tail = static_cast<int>(C.cols % lc);
  const std::size_t vec_bytes = std::min<std::size_t>(16, static_cast<std::size_t>(lc) * sizeof(T));
  const bool vec = detail::rows_aligned(detail::shape_of(B), sizeof(T), vec_bytes);
  const auto b = dense_arg(B);
  const auto c = dense_arg(C);
  if (full > 0) dispatch(lc, ctx, A, b, c, vec, config, 0, full, lc, alpha, beta);
  // The last columns: the smallest L_c that covers them, guarded (a full L_c would waste registers).
  if (tail > 0)
    dispatch(spx::detail::next_pow2(tail), ctx, A, b, c, false, config, full * lc, 1, tail, alpha, beta);
}

template void spmm_ellr_t(Context&, const DeviceEllR<float, int32_t>&, DenseView<const float>,
                          DenseView<float>, const SpmmEllrParams&, float, float);
template void spmm_ellr_t(Context&, const DeviceEllR<double, int32_t>&, DenseView<const double>,
                          DenseView<double>, const SpmmEllrParams&, double, double);

}  // namespace spx::cuda
