// cuBLAS DGEMM/SGEMM baseline. There is nothing to prepare beyond the handle, which the context
// creates on first use; the constructor checks the shapes so run() is the GEMM call alone.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuda/common/check.hpp"
#include "cuda/common/scale.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::cuda {
namespace {

cublasOperation_t to_cublas(Op op) { return op == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

void check_ld(const char* who, const char* name, int64_t ld, int64_t stored_rows) {
  if (ld < std::max<int64_t>(1, stored_rows))
    throw Error(fmt::format("{}: ld{} = {} is less than the {} rows it stores", who, name, ld, stored_rows));
}

void check_gemm(const char* who, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                int64_t ldc) {
  if (m < 0 || n < 0 || k < 0)
    throw Error(fmt::format("{}: sizes m={} n={} k={} must be non-negative", who, m, n, k));
  check_ld(who, "a", lda, op_a == Op::N ? m : k);
  check_ld(who, "b", ldb, op_b == Op::N ? k : n);
  check_ld(who, "c", ldc, m);
}

}  // namespace

template <class T>
const char* CublasGemm<T>::kernel_name() {
  return std::is_same_v<T, double> ? "cublas_dgemm" : "cublas_sgemm";
}

template <class T>
CublasGemm<T>::CublasGemm(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha,
                          const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc)
    : ctx_(&ctx),
      op_a_(op_a),
      op_b_(op_b),
      m_(m),
      n_(n),
      k_(k),
      alpha_(alpha),
      beta_(beta),
      A_(A),
      lda_(lda),
      B_(B),
      ldb_(ldb),
      C_(C),
      ldc_(ldc) {
  check_gemm(kernel_name(), op_a_, op_b_, m_, n_, k_, lda_, ldb_, ldc_);
  ctx.cublas();  // create the handle now, outside any timed region
}

template <class T>
CublasGemm<T>::CublasGemm(Context& ctx, const DeviceDense<T>& A, const DeviceDense<T>& B, DeviceDense<T>& C,
                          T alpha, T beta)
    : ctx_(&ctx),
      op_a_(Op::N),
      op_b_(Op::N),
      m_(C.rows),
      n_(C.cols),
      k_(A.cols),
      alpha_(alpha),
      beta_(beta),
      A_(A.data.data()),
      lda_(A.ld),
      B_(B.data.data()),
      ldb_(B.ld),
      C_(C.data.data()),
      ldc_(C.ld) {
  if (A.rows != C.rows || B.cols != C.cols || A.cols != B.rows)
    throw Error(fmt::format("{}: A is {}x{}, B is {}x{}, C is {}x{}: they do not chain", kernel_name(),
                            A.rows, A.cols, B.rows, B.cols, C.rows, C.cols));
  // In column-major terms a row-major X is X^T with the same ld. For a row-major C compute
  // C^T = B^T A^T instead, so the output is always written in its own layout.
  const auto op_of = [](const DeviceDense<T>& X, bool transposed_target) {
    const bool stored_transposed = X.layout == Layout::RowMajor;
    return stored_transposed != transposed_target ? Op::T : Op::N;
  };
  if (C.layout == Layout::ColMajor) {
    op_a_ = op_of(A, false);
    op_b_ = op_of(B, false);
  } else {
    m_ = C.cols;
    n_ = C.rows;
    A_ = B.data.data();
    lda_ = B.ld;
    op_a_ = op_of(B, true);
    B_ = A.data.data();
    ldb_ = A.ld;
    op_b_ = op_of(A, true);
  }
  check_gemm(kernel_name(), op_a_, op_b_, m_, n_, k_, lda_, ldb_, ldc_);
  ctx.cublas();
}

template <class T>
void CublasGemm<T>::run() {
  if (m_ == 0 || n_ == 0) return;
  if (k_ == 0) {
    // C = beta*C: a product with no inner dimension (column-major m × n with ldc).
    return scale_in_place(*ctx_, C_, m_, n_, ldc_, beta_);
  }
  if constexpr (std::is_same_v<T, double>)
    SPX_CUBLAS_CHECK(cublasDgemm_64(ctx_->cublas(), to_cublas(op_a_), to_cublas(op_b_), m_, n_, k_, &alpha_,
                                    A_, lda_, B_, ldb_, &beta_, C_, ldc_));
  else
    SPX_CUBLAS_CHECK(cublasSgemm_64(ctx_->cublas(), to_cublas(op_a_), to_cublas(op_b_), m_, n_, k_, &alpha_,
                                    A_, lda_, B_, ldb_, &beta_, C_, ldc_));
}

template class CublasGemm<float>;
template class CublasGemm<double>;

}  // namespace spx::cuda
