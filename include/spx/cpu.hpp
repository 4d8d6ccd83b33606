// CPU kernels (docs/cpu-backend.md has the design and measured numbers).
//   spx::ref — reference kernels: the simplest obviously-correct loops. They are the oracle every
//              other kernel (OpenMP, CUDA) is tested against.
//   spx::omp — OpenMP kernels that use every core, for the CPU backend.
//
// Semantics shared by all spx kernels: y = alpha*A*x + beta*y.
//  * beta == 0: y is only written, never read (a NaN or garbage in y does not propagate).
//  * alpha == 0: y = beta*y. The CPU kernels then read neither A nor x (the BLAS convention), so
//    a NaN in x does not matter.
//  * x may be longer than cols(A) and y longer than rows(A); entries past them are untouched.
//  * Outputs must not overlap inputs (y and x, C and B): products are not computed in place, and
//    the parts the product touches overlapping is an spx::Error naming both ("spmv: the output y
//    overlaps the input x; ..."), checked before anything is written.
//  * Sizes are checked first: a mismatch is an spx::Error naming it, e.g.
//    "spmv: x has 9 entries, matrix has 10 columns"; then y is unchanged.
// Arithmetic: every CPU kernel, for float and double alike, forms products and sums in double and
// rounds each output to T once. So a float result is within ~1 ulp of the exact value relative to
// sum |a_ij x_j| whatever the row length, and two CPU kernels differ only by summation order.
//
// Input checks: spx::ref checks every entry (row_ptr monotone, indices in range, EllR row_len <=
// width) and throws spx::Error before writing anything; it accepts unsorted and repeated column
// indices (they are added). spx::omp checks sizes only (O(1)) and expects a valid matrix
// (Csr::validate(), which every spx producer guarantees): a checking pass over col_idx would add
// about a third to SpMV's memory traffic on every call.
#pragma once

#include <cstdint>
#include <span>

#include "spx/matrix.hpp"

namespace spx {

enum class Op { N, T };  ///< BLAS transpose flag

namespace ref {

/// Coo: any order, duplicates added. Ell: slots holding kPadding are skipped. EllR: only the first
/// row_len[r] slots of row r are read. Hyb: the Ell and Coo parts of a row are summed together
/// before rounding, so Hyb gives the same result as the same matrix in Csr.
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

/// C = alpha*A*B + beta*C; B is cols(A) × L, C is rows(A) × L, each in any layout with any valid
/// leading dimension (ld >= rows for ColMajor, >= cols for RowMajor; data long enough). Elements
/// in the leading-dimension padding are neither read nor written.
template <class T, class I>
void spmm(const Csr<T, I>& A, const Dense<T>& B, Dense<T>& C, T alpha = T{1}, T beta = T{0});
template <class T, class I>
void spmm(const EllR<T, I>& A, const Dense<T>& B, Dense<T>& C, T alpha = T{1}, T beta = T{0});

/// BLAS column-major GEMM: C = alpha*op(A)*op(B) + beta*C, C is m × n, op(A) m × k, op(B) k × n.
/// As in the reference BLAS: m, n, k >= 0; lda >= max(1, op_a == N ? m : k), ldb >= max(1,
/// op_b == N ? k : n), ldc >= max(1, m) (else spx::Error); m == 0 or n == 0 does nothing; k == 0 or
/// alpha == 0 only scales C by beta, and then A and B may be null.
template <class T>
void gemm(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc);

}  // namespace ref

namespace omp {

/// Load balance: the CSR "merge path" (Merrill & Garland, SC16) of rows + nnz steps is cut into
/// equal pieces, one per thread, by binary search in row_ptr, so every thread gets the same number
/// of nonzeros plus rows, even when one row holds most of the matrix (cut rows are summed after
/// the parallel part). Small products (under ~16k steps per thread) use fewer threads or just one.
/// Results match spx::ref up to summation order (see above).
template <class T, class I>
void spmv(const Csr<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
/// Same partitioning; with row-major B the inner loop runs over the L columns of B (vectorised),
/// with column-major B over the row's nonzeros for each column. Any layout and ld for B and C.
template <class T, class I>
void spmm(const Csr<T, I>& A, const Dense<T>& B, Dense<T>& C, T alpha = T{1}, T beta = T{0});
/// Threads OpenMP will use (1 when built without OpenMP).
int max_threads();

}  // namespace omp
}  // namespace spx
