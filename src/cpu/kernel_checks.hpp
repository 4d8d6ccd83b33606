// Argument checks shared by the CPU kernels (spx::ref and spx::omp). Internal to src/cpu.
//
// Two levels:
//  * shape checks (O(1)): dimensions, vector lengths, array sizes, leading dimensions. Every
//    kernel runs them, so a wrong call is an spx::Error, never an out-of-bounds access.
//  * entry checks (O(nnz)): row_ptr monotone, indices in range. Only the reference kernels run
//    them (they are the oracle and speed does not matter there); the OpenMP kernels take a valid
//    matrix (Csr::validate(), which every spx producer guarantees) and document it.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include "common/overlap.hpp"
#include "spx/error.hpp"
#include "spx/matrix.hpp"

namespace spx::cpu_detail {

inline void check_shape(const char* op, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0) throw Error(fmt::format("{}: matrix has negative size {} x {}", op, rows, cols));
}

// y = alpha*A*x + beta*y needs x.size() >= cols and y.size() >= rows.
inline void check_vectors(const char* op, int64_t rows, int64_t cols, std::size_t x_size,
                          std::size_t y_size) {
  check_shape(op, rows, cols);
  if (x_size < static_cast<std::size_t>(cols))
    throw Error(fmt::format("{}: x has {} entries, matrix has {} columns", op, x_size, cols));
  if (y_size < static_cast<std::size_t>(rows))
    throw Error(fmt::format("{}: y has {} entries, matrix has {} rows", op, y_size, rows));
}

// The sizes above, and the parts of x and y the product touches (cols and rows entries) do not
// overlap: a kernel writing y while it still reads x would return wrong numbers, not an error.
template <class T>
void check_vectors(const char* op, int64_t rows, int64_t cols, std::span<const T> x, std::span<T> y) {
  check_vectors(op, rows, cols, x.size(), y.size());
  if (overlap(vector_bytes(x.data(), static_cast<std::size_t>(cols), sizeof(T)),
              vector_bytes(y.data(), static_cast<std::size_t>(rows), sizeof(T))))
    throw Error(
        fmt::format("{}: the output y overlaps the input x; products are not computed in place "
                    "(pass a separate y)",
                    op));
}

// Array sizes of a Csr (not its contents).
template <class T, class I>
void check_csr_arrays(const char* op, const Csr<T, I>& A) {
  check_shape(op, A.rows, A.cols);
  if (A.row_ptr.size() != static_cast<std::size_t>(A.rows) + 1)
    throw Error(fmt::format("{}: Csr row_ptr has {} entries, expected rows + 1 = {}", op, A.row_ptr.size(),
                            static_cast<int64_t>(A.rows) + 1));
  if (A.row_ptr.front() != 0)
    throw Error(fmt::format("{}: Csr row_ptr[0] is {}, expected 0", op, A.row_ptr.front()));
  const auto nnz = static_cast<int64_t>(A.row_ptr.back());
  if (nnz < 0 || A.col_idx.size() != static_cast<std::size_t>(nnz) ||
      A.values.size() != static_cast<std::size_t>(nnz))
    throw Error(fmt::format("{}: Csr row_ptr ends at {} but col_idx has {} and values {} entries", op, nnz,
                            A.col_idx.size(), A.values.size()));
}

// Contents of a Csr: row_ptr non-decreasing and every column index in range. Unsorted or repeated
// columns are accepted (the reference simply adds every entry).
template <class T, class I>
void check_csr_entries(const char* op, const Csr<T, I>& A) {
  check_csr_arrays(op, A);
  for (I r = 0; r < A.rows; ++r) {
    if (A.row_ptr[r + 1] < A.row_ptr[r])
      throw Error(fmt::format("{}: Csr row_ptr decreases at row {} ({} -> {})", op, r, A.row_ptr[r],
                              A.row_ptr[r + 1]));
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      if (A.col_idx[k] < 0 || A.col_idx[k] >= A.cols)
        throw Error(fmt::format("{}: Csr column index {} in row {} out of range 0..{}", op, A.col_idx[k], r,
                                static_cast<int64_t>(A.cols) - 1));
  }
}

template <class T, class I>
void check_coo(const char* op, const Coo<T, I>& A) {
  check_shape(op, A.rows, A.cols);
  if (A.row_idx.size() != A.values.size() || A.col_idx.size() != A.values.size())
    throw Error(fmt::format("{}: Coo arrays differ in length (row_idx {}, col_idx {}, values {})", op,
                            A.row_idx.size(), A.col_idx.size(), A.values.size()));
  for (std::size_t k = 0; k < A.values.size(); ++k) {
    if (A.row_idx[k] < 0 || A.row_idx[k] >= A.rows)
      throw Error(fmt::format("{}: Coo row index {} at entry {} out of range 0..{}", op, A.row_idx[k], k,
                              static_cast<int64_t>(A.rows) - 1));
    if (A.col_idx[k] < 0 || A.col_idx[k] >= A.cols)
      throw Error(fmt::format("{}: Coo column index {} at entry {} out of range 0..{}", op, A.col_idx[k], k,
                              static_cast<int64_t>(A.cols) - 1));
  }
}

// A slot's column must be kPadding or in range.
template <class I>
void check_slot_column(const char* op, const char* format, I c, int64_t r, int64_t k, int64_t cols) {
  if (c != static_cast<I>(kPadding) && (c < 0 || c >= cols))
    throw Error(fmt::format("{}: {} column index {} in row {} slot {} out of range 0..{}", op, format, c, r,
                            k, cols - 1));
}

template <class T, class I>
void check_ell(const char* op, const Ell<T, I>& A) {
  check_shape(op, A.rows, A.cols);
  if (A.width < 0) throw Error(fmt::format("{}: Ell width is negative ({})", op, A.width));
  if (A.ld < A.rows) throw Error(fmt::format("{}: Ell ld {} is smaller than rows {}", op, A.ld, A.rows));
  const std::size_t slots = static_cast<std::size_t>(A.ld) * static_cast<std::size_t>(A.width);
  if (A.col_idx.size() != slots || A.values.size() != slots)
    throw Error(fmt::format("{}: Ell arrays hold {} indices and {} values, expected ld * width = {}", op,
                            A.col_idx.size(), A.values.size(), slots));
  for (I r = 0; r < A.rows; ++r)
    for (I k = 0; k < A.width; ++k) check_slot_column(op, "Ell", A.col_idx[A.slot(r, k)], r, k, A.cols);
}

template <class T, class I>
void check_ellr(const char* op, const EllR<T, I>& A) {
  check_shape(op, A.rows, A.cols);
  if (A.width < 0) throw Error(fmt::format("{}: EllR width is negative ({})", op, A.width));
  if (A.rows_padded < A.rows)
    throw Error(fmt::format("{}: EllR rows_padded {} is smaller than rows {}", op, A.rows_padded, A.rows));
  const std::size_t slots = static_cast<std::size_t>(A.rows_padded) * static_cast<std::size_t>(A.width);
  if (A.col_idx.size() != slots || A.values.size() != slots)
    throw Error(
        fmt::format("{}: EllR arrays hold {} indices and {} values, expected rows_padded * width = {}", op,
                    A.col_idx.size(), A.values.size(), slots));
  if (A.row_len.size() < static_cast<std::size_t>(A.rows))
    throw Error(
        fmt::format("{}: EllR row_len has {} entries, matrix has {} rows", op, A.row_len.size(), A.rows));
  for (I r = 0; r < A.rows; ++r) {
    if (A.row_len[r] < 0 || A.row_len[r] > A.width)
      throw Error(fmt::format("{}: EllR row_len[{}] = {} out of range 0..{}", op, r, A.row_len[r], A.width));
    // Inside row_len every slot is a real entry: padding there is an error too.
    for (I k = 0; k < A.row_len[r]; ++k) {
      const I c = A.col_idx[A.slot(r, k)];
      if (c < 0 || c >= A.cols)
        throw Error(fmt::format("{}: EllR column index {} in row {} slot {} out of range 0..{}", op, c, r, k,
                                static_cast<int64_t>(A.cols) - 1));
    }
  }
}

// A Dense operand: non-negative size, BLAS leading dimension, enough data.
template <class T>
void check_dense(const char* op, const char* name, const Dense<T>& D) {
  if (D.rows < 0 || D.cols < 0)
    throw Error(fmt::format("{}: {} has negative size {} x {}", op, name, D.rows, D.cols));
  const bool col_major = D.layout == Layout::ColMajor;
  // As Dense::validate(): ld >= rows (ColMajor) or >= cols (RowMajor).
  const int64_t min_ld = col_major ? D.rows : D.cols;
  if (D.ld < min_ld)
    throw Error(fmt::format("{}: {} has leading dimension {}, needs at least {} ({} x {}, {})", op, name,
                            D.ld, min_ld, D.rows, D.cols, col_major ? "ColMajor" : "RowMajor"));
  if (D.rows == 0 || D.cols == 0) return;
  const int64_t outer = col_major ? D.cols : D.rows;  // columns (ColMajor) or rows (RowMajor) of ld each
  const int64_t inner = col_major ? D.rows : D.cols;
  if (outer - 1 > (std::numeric_limits<int64_t>::max() - inner) / D.ld)
    throw Error(fmt::format("{}: {} is too large ({} x {} with ld {})", op, name, D.rows, D.cols, D.ld));
  const int64_t needed = (outer - 1) * D.ld + inner;
  if (D.data.size() < static_cast<std::size_t>(needed))
    throw Error(fmt::format("{}: {} holds {} values, {} x {} with ld {} needs {}", op, name, D.data.size(),
                            D.rows, D.cols, D.ld, needed));
}

// The bytes of D's elements (leading-dimension padding between them included). D is checked.
template <class T>
ByteRange dense_range(const Dense<T>& D) {
  const bool col_major = D.layout == Layout::ColMajor;
  return dense_bytes(D.data.data(), col_major ? D.cols : D.rows, col_major ? D.rows : D.cols, D.ld,
                     sizeof(T));
}

// C = alpha*A*B + beta*C with A rows × cols, and C not overlapping B.
template <class T>
void check_spmm_operands(const char* op, int64_t rows, int64_t cols, const Dense<T>& B, const Dense<T>& C) {
  check_shape(op, rows, cols);
  check_dense(op, "B", B);
  check_dense(op, "C", C);
  if (B.rows != cols) throw Error(fmt::format("{}: B has {} rows, A has {} columns", op, B.rows, cols));
  if (C.rows != rows || C.cols != B.cols)
    throw Error(fmt::format("{}: C is {} x {}, expected {} x {} (rows of A x columns of B)", op, C.rows,
                            C.cols, rows, B.cols));
  if (overlap(dense_range(B), dense_range(C)))
    throw Error(
        fmt::format("{}: the output C overlaps the input B; products are not computed in place "
                    "(pass a separate C)",
                    op));
}

// y = alpha*acc + beta*y rounded once from double; y is not read when beta == 0, so a NaN left
// in y by the caller cannot propagate.
template <class T>
T combine(double acc, double alpha, double beta, T y_old) {
  return beta == 0 ? static_cast<T>(alpha * acc)
                   : static_cast<T>(alpha * acc + beta * static_cast<double>(y_old));
}

// y = beta*y (y = 0 when beta == 0): what every kernel does when alpha == 0, without reading A or x
// (the BLAS convention, so a NaN in x does not matter when it is multiplied by 0).
template <class T>
T scaled(double beta, T y_old) {
  return beta == 0 ? T{0} : static_cast<T>(beta * static_cast<double>(y_old));
}

}  // namespace spx::cpu_detail
