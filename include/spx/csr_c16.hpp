// CSR with 16-bit column offsets (CsrC16): the same nonzeros as a canonical Csr<T, int32_t>, with
// each row's columns stored as uint16 offsets from the row's smallest column (its base), so an
// SpMV streams 2 index bytes per nonzero instead of 4: f64 10 bytes per nonzero + 8 per row
// instead of 12 + 4, f32 6 + 8 instead of 8 + 4 (docs/formats.md, "CSR-C16").
//
// Rows whose columns span more than kC16MaxSpan (max - min > 65535), and rows longer than the
// caller's `escape_longer_than`, are the escape part: they are empty in the 16-bit part, marked by
// base kC16Escape, and kept in a side 32-bit Csr over just those rows with the list of their row
// indices. A kernel sums the two parts into disjoint rows of y (no atomics).
//
// Plain host code, every build. The device copy, its kernel and plan: spx/cuda/spmv_csr_c16.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "spx/column_spans.hpp"
#include "spx/matrix.hpp"

namespace spx {

/// base[r] of an escape row (every other row's base is a column, >= 0).
inline constexpr int32_t kC16Escape = -1;

template <class T>
struct CsrC16 {
  using value_type = T;
  int32_t rows = 0;
  int32_t cols = 0;
  std::vector<int32_t> row_ptr = std::vector<int32_t>(1, 0);  ///< rows + 1, over the 16-bit part
  std::vector<int32_t> base;                                  ///< rows: smallest column, or kC16Escape
  std::vector<uint16_t> offsets;                              ///< column - base, per 16-bit nonzero
  std::vector<T> values;                                      ///< per 16-bit nonzero
  std::vector<int32_t> escape_rows;                           ///< ascending row indices of the escape part
  Csr<T, int32_t> escape;                                     ///< escape_rows.size() x cols, 32-bit columns

  int64_t narrow_nnz() const { return static_cast<int64_t>(offsets.size()); }
  int64_t escape_nnz() const { return static_cast<int64_t>(escape.nnz()); }
  int64_t nnz() const { return narrow_nnz() + escape_nnz(); }
  /// Bytes of every array (the device copy holds the same, plus the escape path's small scratch).
  std::size_t bytes() const;
  /// Sizes consistent, row_ptr monotone, bases and offsets in range, offsets strictly increasing
  /// within a row, escape rows empty in the 16-bit part, the escape list ascending and matching the
  /// bases, the escape Csr valid. O(nnz); throws spx::Error naming the first problem.
  void validate() const;
};

/// Converts a canonical Csr (validated first). Rows whose span exceeds kC16MaxSpan, or with more
/// than escape_longer_than nonzeros, go to the escape part. Sizes are checked before allocating.
template <class T>
CsrC16<T> to_csr_c16(const Csr<T, int32_t>& A,
                     int64_t escape_longer_than = std::numeric_limits<int64_t>::max());

/// Back to the canonical Csr (validated first): the exact matrix to_csr_c16 was given.
template <class T>
Csr<T, int32_t> to_csr(const CsrC16<T>& A);

namespace ref {
/// Reference SpMV, semantics of spx/cpu.hpp (checks first; products and sums in double, y rounded
/// once): the oracle of the CsrC16 GPU kernel.
template <class T>
void spmv(const CsrC16<T>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
}  // namespace ref

}  // namespace spx
