// Vendor baselines: cuSPARSE SpMV/SpMM and cuBLAS GEMM as prepared objects. The constructor does
// all setup once (descriptors, workspace sizing and allocation, cusparse*_preprocess where it
// exists); run() only enqueues the product on ctx.stream(), so timing run() measures the product
// and nothing else, exactly as our own kernels are timed.
//
// Semantics match spx's kernels: y = alpha*op(A)*x + beta*y. The prepared object keeps pointers to
// the matrix and vectors it was built with; they must outlive it. Everything is checked: a size
// mismatch, an algorithm that does not fit the format, or a cuSPARSE/cuBLAS status other than
// success is an spx::Error naming the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "spx/cpu.hpp"
#include "spx/cuda/formats.hpp"

namespace spx::cuda {

// --- cuSPARSE SpMV --------------------------------------------------------------------------
enum class CusparseSpmvAlg {
  CsrAlg1,   // CUSPARSE_SPMV_CSR_ALG1 (default CSR algorithm)
  CsrAlg2,   // CUSPARSE_SPMV_CSR_ALG2 (deterministic, better for irregular rows)
  CooAlg1,   // CUSPARSE_SPMV_COO_ALG1
  CooAlg2,   // CUSPARSE_SPMV_COO_ALG2 (deterministic)
  SellAlg1,  // CUSPARSE_SPMV_SELL_ALG1 on a DeviceSell
};
// Kernel name as `spx bench` reports it: "cusparse_csr_alg1", ..., "cusparse_sell_alg1".
const char* kernel_name(CusparseSpmvAlg alg);

template <class T, class I>
class CusparseSpmv {
 public:
  // alg must be CsrAlg1 or CsrAlg2.
  CusparseSpmv(Context& ctx, const DeviceCsr<T, I>& A, CusparseSpmvAlg alg, std::span<const T> x,
               std::span<T> y, T alpha = T{1}, T beta = T{0});
  // alg must be CooAlg1 or CooAlg2 (the COO must be sorted by row, as spx's to_coo returns it).
  CusparseSpmv(Context& ctx, const DeviceCoo<T, I>& A, CusparseSpmvAlg alg, std::span<const T> x,
               std::span<T> y, T alpha = T{1}, T beta = T{0});
  // 64-bit row offsets (I = int64_t only): cuSPARSE takes no 64-bit offsets over 32-bit columns,
  // so the columns come widened (widen_columns), the offsets and values from A. CsrAlg1 or CsrAlg2.
  CusparseSpmv(Context& ctx, const WideDeviceCsr<T>& A, const DeviceBuffer<int64_t>& col_idx64,
               CusparseSpmvAlg alg, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
  // alg must be SellAlg1.
  CusparseSpmv(Context& ctx, const DeviceSell<T, I>& A, CusparseSpmvAlg alg, std::span<const T> x,
               std::span<T> y, T alpha = T{1}, T beta = T{0});
  ~CusparseSpmv();
  CusparseSpmv(CusparseSpmv&&) noexcept;
  CusparseSpmv& operator=(CusparseSpmv&&) noexcept;

  void run();
  // Points the product at other vectors of the same sizes (input rotation); host-side only.
  void set_vectors(std::span<const T> x, std::span<T> y);
  // Other alpha and beta for the next run(); host-side only.
  void set_scalars(T alpha, T beta);
  CusparseSpmvAlg alg() const;
  std::size_t workspace_bytes() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// --- cuSPARSE SpMM: C = alpha*A*B + beta*C, B is cols(A) × L, C rows(A) × L -----------------
enum class CusparseSpmmAlg {
  CsrAlg1,  // CUSPARSE_SPMM_CSR_ALG1 (best with column-major dense)
  CsrAlg2,  // CUSPARSE_SPMM_CSR_ALG2 (best with row-major dense)
  CsrAlg3,  // CUSPARSE_SPMM_CSR_ALG3 (row-major: ld * sizeof(T) must be a multiple of 16 bytes)
  CooAlg1,  // CUSPARSE_SPMM_COO_ALG1
  CooAlg2,  // CUSPARSE_SPMM_COO_ALG2 (deterministic; column-major only)
  CooAlg3,  // CUSPARSE_SPMM_COO_ALG3 (column-major only)
  CooAlg4,  // CUSPARSE_SPMM_COO_ALG4 (row-major only)
};
// "cusparse_spmm_csr_alg1", ...
const char* kernel_name(CusparseSpmmAlg alg);
// Whether spx offers `alg` with dense operands in `layout` (the cuSPARSE documentation's
// restrictions); the constructor throws spx::Error for a combination this returns false for.
bool cusparse_spmm_supports(CusparseSpmmAlg alg, Layout layout);

template <class T, class I>
class CusparseSpmm {
 public:
  // B and C must have the same layout. alg must be a Csr* algorithm.
  CusparseSpmm(Context& ctx, const DeviceCsr<T, I>& A, CusparseSpmmAlg alg, const DeviceDense<T>& B,
               DeviceDense<T>& C, T alpha = T{1}, T beta = T{0});
  // alg must be a Coo* algorithm.
  CusparseSpmm(Context& ctx, const DeviceCoo<T, I>& A, CusparseSpmmAlg alg, const DeviceDense<T>& B,
               DeviceDense<T>& C, T alpha = T{1}, T beta = T{0});
  // The same on views of dense matrices the caller owns.
  CusparseSpmm(Context& ctx, const DeviceCsr<T, I>& A, CusparseSpmmAlg alg, DenseView<const T> B,
               DenseView<T> C, T alpha = T{1}, T beta = T{0});
  CusparseSpmm(Context& ctx, const DeviceCoo<T, I>& A, CusparseSpmmAlg alg, DenseView<const T> B,
               DenseView<T> C, T alpha = T{1}, T beta = T{0});
  // 64-bit row offsets (I = int64_t only), columns widened as for CusparseSpmv; a Csr* algorithm.
  CusparseSpmm(Context& ctx, const WideDeviceCsr<T>& A, const DeviceBuffer<int64_t>& col_idx64,
               CusparseSpmmAlg alg, DenseView<const T> B, DenseView<T> C, T alpha = T{1}, T beta = T{0});
  // Points the product at other B and C of the same shapes, layout and leading dimensions
  // (spx::Error otherwise), and sets alpha and beta; host-side only.
  void set_operands(DenseView<const T> B, DenseView<T> C, T alpha, T beta);
  ~CusparseSpmm();
  CusparseSpmm(CusparseSpmm&&) noexcept;
  CusparseSpmm& operator=(CusparseSpmm&&) noexcept;

  void run();
  CusparseSpmmAlg alg() const;
  std::size_t workspace_bytes() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// --- cuBLAS GEMM (DGEMM / SGEMM, 64-bit dimensions) ------------------------------------------
template <class T>
class CublasGemm {
 public:
  // BLAS column-major convention, device pointers: C = alpha*op(A)*op(B) + beta*C, C m × n.
  CublasGemm(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
             int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc);
  // C = alpha*A*B + beta*C on dense matrices of any layouts (row-major operands become
  // transposed column-major ones; a row-major C is computed as C^T = B^T A^T).
  CublasGemm(Context& ctx, const DeviceDense<T>& A, const DeviceDense<T>& B, DeviceDense<T>& C,
             T alpha = T{1}, T beta = T{0});

  void run();
  // "cublas_dgemm" or "cublas_sgemm".
  static const char* kernel_name();

 private:
  Context* ctx_;
  Op op_a_, op_b_;
  int64_t m_, n_, k_;
  T alpha_, beta_;
  const T* A_;
  int64_t lda_;
  const T* B_;
  int64_t ldb_;
  T* C_;
  int64_t ldc_;
};

}  // namespace spx::cuda
