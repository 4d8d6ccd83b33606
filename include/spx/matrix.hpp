// Host sparse and dense matrix containers: plain data, no hidden state.
//
// Conventions (docs/ARCHITECTURE.md has the full list):
//  * value type first, index type second: Csr<double, int32_t>. Supported: float/double ×
//    int32_t/int64_t (explicitly instantiated in src/matrix).
//  * All indices are 0-based. Every structure-bearing array uses the index type I, so nnz must
//    fit in I (validate() checks it); use int64_t indices for matrices above 2^31-1 nonzeros.
//  * Padding in Ell/EllR slots is marked with column index kPadding (-1) and value 0, so a
//    kernel never multiplies by x[padding] (a NaN/Inf in x must not leak into other rows).
//  * validate() throws spx::Error naming the first offending index; it never aborts. Every spx
//    conversion validates its input and returns a valid matrix. docs/formats.md has the rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "spx/error.hpp"

namespace spx {

/// Column index stored in unused Ell/EllR slots.
inline constexpr int kPadding = -1;

enum class Layout { RowMajor, ColMajor };

/// Compressed sparse row. Canonical form (what validate() requires and what every spx producer
/// returns): row_ptr non-decreasing from 0 to nnz, column indices strictly increasing within a
/// row (sorted, no duplicates). Non-canonical input is made canonical by canonicalize()
/// (convert.hpp), which sorts columns and sums or rejects duplicates.
template <class T, class I = int32_t>
struct Csr {
  using value_type = T;
  using index_type = I;

  I rows = 0;
  I cols = 0;
  std::vector<I> row_ptr = std::vector<I>(1, I{0});  ///< rows + 1 entries
  std::vector<I> col_idx;                            ///< nnz entries
  std::vector<T> values;                             ///< nnz entries

  Csr() = default;
  Csr(I rows_, I cols_) : rows(rows_), cols(cols_), row_ptr(static_cast<std::size_t>(rows_) + 1, I{0}) {}

  I nnz() const { return row_ptr.empty() ? I{0} : row_ptr.back(); }
  I row_length(I r) const { return row_ptr[r + 1] - row_ptr[r]; }

  /// Sizes consistent, row_ptr monotone from 0, indices in range, columns strictly increasing
  /// within each row. Throws spx::Error.
  void validate() const;
};

/// Coordinate list: the assembly format. Any order and duplicates are allowed here (validate() only
/// checks sizes and ranges); to_csr() sorts and sums (or rejects) them. Coo produced by spx from a
/// Csr is sorted by (row, col).
template <class T, class I = int32_t>
struct Coo {
  using value_type = T;
  using index_type = I;

  I rows = 0;
  I cols = 0;
  std::vector<I> row_idx;
  std::vector<I> col_idx;
  std::vector<T> values;

  I nnz() const { return static_cast<I>(values.size()); }
  /// Sizes consistent, indices in range, nnz fits in I. Throws spx::Error.
  void validate() const;
  /// True when entries are sorted by (row, col) with no duplicates.
  bool is_canonical() const;
};

/// ELLPACK (Bell & Garland): every row padded to `width` slots, stored column-major with leading
/// dimension `ld` (>= rows; spx pads it to a multiple of 32 so each slot column starts aligned):
/// slot k of row r lives at [k * ld + r]. In each row the real entries fill the first slots with
/// strictly increasing columns, so a kernel may stop at the first padding slot; unused slots hold
/// (kPadding, 0). Rows r >= rows (up to ld) are all padding. validate() also requires ld * width to
/// fit in I, so a slot index k * ld + r never overflows the index type.
template <class T, class I = int32_t>
struct Ell {
  using value_type = T;
  using index_type = I;

  I rows = 0;
  I cols = 0;
  I width = 0;
  I ld = 0;
  std::vector<I> col_idx;  ///< ld * width entries
  std::vector<T> values;   ///< ld * width entries

  std::size_t slot(I r, I k) const {
    return static_cast<std::size_t>(k) * static_cast<std::size_t>(ld) + static_cast<std::size_t>(r);
  }
  /// Count of real (non-padding) entries.
  I nnz() const;
  void validate() const;
};

/// ELLPACK-R (Vázquez et al., FastSpMM paper §2): Ell with the row count padded to a multiple of
/// 32 (rows_padded) and an explicit row-length array, so kernels stop at each row's end instead
/// of scanning padding. Slot k of row r lives at [k * rows_padded + r]; in each row the real
/// entries occupy slots 0 .. row_len[r]-1 with strictly increasing columns; the rest hold
/// (kPadding, 0). row_len[r] <= width; to_ellr() sets width to the longest row exactly.
/// rows_padded * width fits in I.
template <class T, class I = int32_t>
struct EllR {
  using value_type = T;
  using index_type = I;

  I rows = 0;
  I cols = 0;
  I width = 0;             ///< max row length
  I rows_padded = 0;       ///< rows rounded up to a multiple of 32
  std::vector<I> col_idx;  ///< rows_padded * width
  std::vector<T> values;   ///< rows_padded * width
  std::vector<I> row_len;  ///< rows_padded (0 for padding rows)

  std::size_t slot(I r, I k) const {
    return static_cast<std::size_t>(k) * static_cast<std::size_t>(rows_padded) + static_cast<std::size_t>(r);
  }
  I nnz() const;
  void validate() const;
};

/// Hybrid (Bell & Garland): the first `ell.width` entries of each row in an Ell part, the rest in
/// a COO tail sorted by (row, col). Both parts have the full matrix shape; no (row, col) is stored
/// in both parts (validate() checks), and the total nnz fits in I.
template <class T, class I = int32_t>
struct Hyb {
  using value_type = T;
  using index_type = I;

  Ell<T, I> ell;
  Coo<T, I> coo;

  I rows() const { return ell.rows; }
  I cols() const { return ell.cols; }
  I nnz() const { return ell.nnz() + coo.nnz(); }
  void validate() const;
};

/// Dense matrix, row- or column-major with a leading dimension (BLAS convention: for ColMajor,
/// element (i, j) is data[i + j*ld] and ld >= rows; for RowMajor, data[i*ld + j] and ld >= cols).
/// Dimensions are 64-bit whatever the sparse index type. validate() requires data.size() to reach
/// the last element ((cols-1)*ld + rows for ColMajor), not rows*ld*cols: a sub-matrix view's
/// storage is enough.
template <class T>
struct Dense {
  using value_type = T;

  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
  Layout layout = Layout::ColMajor;
  std::vector<T> data;

  Dense() = default;
  /// Allocates rows × cols with the tightest leading dimension, filled with `fill`.
  Dense(int64_t rows_, int64_t cols_, Layout layout_ = Layout::ColMajor, T fill = T{0})
      : rows(rows_),
        cols(cols_),
        ld(layout_ == Layout::ColMajor ? rows_ : cols_),
        layout(layout_),
        data(static_cast<std::size_t>(rows_ * cols_), fill) {
    if (ld == 0) ld = 1;
  }

  std::size_t index(int64_t i, int64_t j) const {
    return static_cast<std::size_t>(layout == Layout::ColMajor ? i + j * ld : i * ld + j);
  }
  T& operator()(int64_t i, int64_t j) { return data[index(i, j)]; }
  const T& operator()(int64_t i, int64_t j) const { return data[index(i, j)]; }
  void validate() const;
};

}  // namespace spx
