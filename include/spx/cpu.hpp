// CPU kernels.
//   spx::ref — reference kernels: the simplest obviously-correct loops, accumulating in double.
//              They are the oracle every other kernel (OpenMP, CUDA) is tested against.
//   spx::omp — OpenMP kernels that use every core, for the CPU backend.
// Semantics shared by all spx kernels: y = alpha*A*x + beta*y; when beta == 0, y is never read
// (NaN or garbage in y does not propagate). Sizes are checked: a mismatch is an spx::Error.
#pragma once

#include <cstdint>
#include <span>

#include "spx/matrix.hpp"

namespace spx {

enum class Op { N, T };  // BLAS transpose flag

namespace ref {

template <class T, class I>
void spmv(const Csr<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
template <class T, class I>
void spmv(const Coo<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
template <class T, class I>
void spmv(const Ell<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
template <class T, class I>
void spmv(const EllR<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
template <class T, class I>
void spmv(const Hyb<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});

// C = alpha*A*B + beta*C; B is cols(A) × L, C is rows(A) × L, any layouts.
template <class T, class I>
void spmm(const Csr<T, I>& A, const Dense<T>& B, Dense<T>& C, T alpha = T{1}, T beta = T{0});
template <class T, class I>
void spmm(const EllR<T, I>& A, const Dense<T>& B, Dense<T>& C, T alpha = T{1}, T beta = T{0});

// BLAS column-major GEMM: C = alpha*op(A)*op(B) + beta*C, C is m × n, op(A) m × k, op(B) k × n.
template <class T>
void gemm(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda,
          const T* B, int64_t ldb, T beta, T* C, int64_t ldc);

}  // namespace ref

namespace omp {

template <class T, class I>
void spmv(const Csr<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
template <class T, class I>
void spmm(const Csr<T, I>& A, const Dense<T>& B, Dense<T>& C, T alpha = T{1}, T beta = T{0});
// Threads OpenMP will use (1 when built without OpenMP).
int max_threads();

}  // namespace omp
}  // namespace spx
