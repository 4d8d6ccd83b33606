// The plain-way CG baseline: see cg_vendor.hpp.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>

#include "bench/cg_vendor.hpp"
#include "cuda/common/check.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/error.hpp"

namespace spx::bench {
namespace {

void dot(cublasHandle_t h, int n, const float* a, const float* b, double& out) {
  float r = 0;
  SPX_CUBLAS_CHECK(cublasSdot(h, n, a, 1, b, 1, &r));
  out = r;
}
void dot(cublasHandle_t h, int n, const double* a, const double* b, double& out) {
  SPX_CUBLAS_CHECK(cublasDdot(h, n, a, 1, b, 1, &out));
}
void axpy(cublasHandle_t h, int n, double alpha, const float* x, float* y) {
  const float a = static_cast<float>(alpha);
  SPX_CUBLAS_CHECK(cublasSaxpy(h, n, &a, x, 1, y, 1));
}
void axpy(cublasHandle_t h, int n, double alpha, const double* x, double* y) {
  SPX_CUBLAS_CHECK(cublasDaxpy(h, n, &alpha, x, 1, y, 1));
}
void scal(cublasHandle_t h, int n, double alpha, float* x) {
  const float a = static_cast<float>(alpha);
  SPX_CUBLAS_CHECK(cublasSscal(h, n, &a, x, 1));
}
void scal(cublasHandle_t h, int n, double alpha, double* x) {
  SPX_CUBLAS_CHECK(cublasDscal(h, n, &alpha, x, 1));
}
// z = diag(d)·r: an n × 1 matrix scaled by rows.
void diag_mul(cublasHandle_t h, int n, const float* d, const float* r, float* z) {
  SPX_CUBLAS_CHECK(cublasSdgmm(h, CUBLAS_SIDE_LEFT, n, 1, r, n, d, 1, z, n));
}
void diag_mul(cublasHandle_t h, int n, const double* d, const double* r, double* z) {
  SPX_CUBLAS_CHECK(cublasDdgmm(h, CUBLAS_SIDE_LEFT, n, 1, r, n, d, 1, z, n));
}

}  // namespace

template <class T>
VendorCgResult vendor_cg(cuda::Context& ctx, const cuda::DeviceCsr<T, int32_t>& A,
                         std::span<const T> inv_diag, std::span<const T> b, std::span<T> x, double rtol,
                         int64_t max_iterations) {
  const int n = A.rows;
  const std::size_t N = static_cast<std::size_t>(n);
  if (A.rows != A.cols || b.size() != N || x.size() != N) throw Error("vendor_cg: sizes do not match");
  const bool jacobi = !inv_diag.empty();
  cuda::DeviceBuffer<T> r(N, "vendor cg r"), p(N, "vendor cg p"), q(N, "vendor cg q"),
      zbuf(jacobi ? N : 0, "z");
  T* z = jacobi ? zbuf.data() : r.data();
  cuda::CusparseSpmv<T, int32_t> spmv(ctx, A, cuda::CusparseSpmvAlg::CsrAlg1, std::span<const T>(p.span()),
                                      q.span());
  cublasHandle_t h = ctx.cublas();
  ctx.synchronize();
  const auto start = std::chrono::steady_clock::now();
  VendorCgResult res;
  SPX_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, N * sizeof(T), ctx.stream()));
  cuda::copy_device_to_device_async(ctx, r.data(), b.data(), N * sizeof(T));
  double bb = 0, rr = 0, rz = 0;
  dot(h, n, b.data(), b.data(), bb);
  res.rhs_norm = std::sqrt(bb);
  const double tol = rtol * res.rhs_norm;
  if (jacobi) diag_mul(h, n, inv_diag.data(), r.data(), z);
  rr = bb;
  dot(h, n, r.data(), z, rz);
  cuda::copy_device_to_device_async(ctx, p.data(), z, N * sizeof(T));
  int64_t k = 0;
  while (std::sqrt(rr) > tol && k < max_iterations) {
    spmv.run();
    double pq = 0;
    dot(h, n, p.data(), q.data(), pq);
    const double alpha = rz / pq;
    axpy(h, n, alpha, p.data(), x.data());
    axpy(h, n, -alpha, q.data(), r.data());
    dot(h, n, r.data(), r.data(), rr);
    ++k;
    if (!std::isfinite(rr) || std::sqrt(rr) <= tol) break;
    double rz_new = rr;
    if (jacobi) {
      diag_mul(h, n, inv_diag.data(), r.data(), z);
      dot(h, n, r.data(), z, rz_new);
    }
    scal(h, n, rz_new / rz, p.data());
    axpy(h, n, 1.0, z, p.data());
    rz = rz_new;
  }
  ctx.synchronize();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  res.iterations = k;
  res.residual = std::sqrt(rr);
  res.converged = std::sqrt(rr) <= tol;
  return res;
}

template VendorCgResult vendor_cg<float>(cuda::Context&, const cuda::DeviceCsr<float, int32_t>&,
                                         std::span<const float>, std::span<const float>, std::span<float>,
                                         double, int64_t);
template VendorCgResult vendor_cg<double>(cuda::Context&, const cuda::DeviceCsr<double, int32_t>&,
                                          std::span<const double>, std::span<const double>, std::span<double>,
                                          double, int64_t);

}  // namespace spx::bench
