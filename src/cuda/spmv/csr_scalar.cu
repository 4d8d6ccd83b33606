// CSR-scalar SpMV (Bell & Garland 2008): one thread per row. Kept deliberately simple — it is the
// baseline the faster kernels are measured against and the first end-to-end GPU path.
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv.hpp"

namespace spx::cuda {
namespace {

constexpr int kBlock = 256;

template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    spmv_csr_scalar_kernel(I rows, const I* __restrict__ row_ptr, const I* __restrict__ col_idx,
                           const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y, T alpha,
                           T beta) {
  const int64_t row = int64_t{blockIdx.x} * kBlock + threadIdx.x;
  if (row >= rows) return;
  T sum = 0;
  const I end = row_ptr[row + 1];
  for (I j = row_ptr[row]; j < end; ++j) sum += values[j] * x[col_idx[j]];
  // beta == 0 must not read y: NaN or garbage there may not leak into the result.
  y[row] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[row];
}

}  // namespace

template <class T, class I>
void spmv_csr_scalar(Context& ctx, const DeviceCsr<T, I>& A, std::span<const T> x, std::span<T> y, T alpha,
                     T beta) {
  check_spmv_operands("spmv_csr_scalar", A.rows, A.cols, x, y);
  if (A.rows == 0) return;
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), static_cast<std::size_t>(A.rows), beta);
  spmv_csr_scalar_kernel<T, I><<<grid_for(A.rows, kBlock), kBlock, 0, ctx.stream()>>>(
      A.rows, A.row_ptr.data(), A.col_idx.data(), A.values.data(), x.data(), y.data(), alpha, beta);
  SPX_CHECK_LAUNCH("spmv_csr_scalar_kernel", ctx.stream());
}

template void spmv_csr_scalar(Context&, const DeviceCsr<float, int32_t>&, std::span<const float>,
                              std::span<float>, float, float);
template void spmv_csr_scalar(Context&, const DeviceCsr<double, int32_t>&, std::span<const double>,
                              std::span<double>, double, double);
template void spmv_csr_scalar(Context&, const DeviceCsr<float, int64_t>&, std::span<const float>,
                              std::span<float>, float, float);
template void spmv_csr_scalar(Context&, const DeviceCsr<double, int64_t>&, std::span<const double>,
                              std::span<double>, double, double);

}  // namespace spx::cuda
