// SetSpMVs: SpMM as L ELLR-T SpMVs, one per column of column-major B and C (the baseline of the
// FastSpMM paper). Each SpMV re-reads A, so it moves L times the matrix where SSFastSpMM moves it
// ceil(L / L_c) times: the gap the paper's speedups measure.
#include <algorithm>
#include <cstdint>
#include <span>

#include "cuda/spmm/spmm_checks.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/cuda/spmv_formats.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

template <class T, class I>
void spmm_set_spmvs(Context& ctx, const DeviceEllR<T, I>& A, DenseView<const T> B, DenseView<T> C,
                    const EllrTParams& config, T alpha, T beta) {
  detail::check_spmm_operands("spmm_set_spmvs", A.rows, A.cols, detail::shape_of(B), detail::shape_of(C),
                              sizeof(T));
  if (B.layout != Layout::ColMajor || C.layout != Layout::ColMajor)
    throw Error("spmm_set_spmvs: B and C must be column-major (each column is one SpMV's vector)");
  validate(config);
  const auto b_rows = static_cast<std::size_t>(B.rows);
  const auto c_rows = static_cast<std::size_t>(C.rows);
  for (int64_t j = 0; j < C.cols; ++j) {
    const std::span<const T> x(B.data == nullptr ? nullptr : B.data + j * B.ld, b_rows);
    const std::span<T> y(C.data + j * C.ld, c_rows);
    spmv_ellr_t(ctx, A, x, y, config, alpha, beta);
  }
}

template <class T, class I>
void spmm_set_spmvs(Context& ctx, const DeviceEllR<T, I>& A, DenseView<const T> B, DenseView<T> C, T alpha,
                    T beta) {
  // Without the matrix statistics: the slab width stands in for both the longest and the average
  // row (an overestimate of the average, so T may come out one step high).
  MatrixStats s;
  s.rows = A.rows;
  s.cols = A.cols;
  s.max_row = A.width;
  s.avg_row = A.width;
  s.nnz = int64_t{A.rows} * A.width;
  spmm_set_spmvs(ctx, A, B, C, plan::ellr_t_rule(s, ctx.props()), alpha, beta);
}

template void spmm_set_spmvs(Context&, const DeviceEllR<float, int32_t>&, DenseView<const float>,
                             DenseView<float>, float, float);
template void spmm_set_spmvs(Context&, const DeviceEllR<double, int32_t>&, DenseView<const double>,
                             DenseView<double>, double, double);
template void spmm_set_spmvs(Context&, const DeviceEllR<float, int32_t>&, DenseView<const float>,
                             DenseView<float>, const EllrTParams&, float, float);
template void spmm_set_spmvs(Context&, const DeviceEllR<double, int32_t>&, DenseView<const double>,
                             DenseView<double>, const EllrTParams&, double, double);

}  // namespace spx::cuda
