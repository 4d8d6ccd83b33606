// SELL-32 with 16-bit column offsets (SellC16): sliced ELLPACK over slices of 32 consecutive rows
// (no sorting), each slice padded to its longest row and stored column-major (slot j of the slice's
// 32 rows contiguous, so the 32 threads of a slice read slot j coalesced), with each row's columns
// as uint16 offsets from the row's smallest column (its base). An SpMV streams per slot v + 2 bytes
// instead of SELL's v + 4 (f32 6 vs 8, f64 10 vs 12), plus 4 bytes a row (base) and 8 a slice
// (docs/formats.md, "SELL-C16").
//
// Every row must span at most kC16MaxSpan columns (max - min <= 65535): there is no escape path,
// to_sell_c16 throws naming the first row that does not (the planner refuses such matrices).
//
// Padding slots are (offset 0, value 0). Slot 0 of a nonempty row is its base column (offset 0) and
// its later offsets strictly increase, so a slot j >= 1 with offset 0 is padding: a kernel skips it
// by its offset alone, with no row lengths stored, and never multiplies x by a padding 0 (0 * Inf
// would turn into NaN). An empty row has base kSellC16EmptyRow and only padding slots.
//
// Plain host code, every build. The device copy and its kernel: spx/cuda/spmv_sell_c16.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "spx/column_spans.hpp"
#include "spx/matrix.hpp"

namespace spx {

inline constexpr int32_t kSellC16SliceRows = 32;
/// base[r] of an empty row (every other row's base is a column, >= 0).
inline constexpr int32_t kSellC16EmptyRow = -1;

template <class T>
struct SellC16 {
  using value_type = T;
  int32_t rows = 0;
  int32_t cols = 0;
  /// slices + 1 slot positions: slice s holds slots [slice_ptr[s], slice_ptr[s + 1]), 32 per slot
  /// column; its width is (slice_ptr[s + 1] - slice_ptr[s]) / 32. Slot j of row r of slice s is at
  /// slice_ptr[s] + 32 j + r % 32. The last slice has 32 rows too (the rows past `rows` all padding).
  std::vector<int64_t> slice_ptr = std::vector<int64_t>(1, 0);
  std::vector<int32_t> base;      ///< rows: smallest column, or kSellC16EmptyRow
  std::vector<uint16_t> offsets;  ///< per slot: column - base, 0 in padding
  std::vector<T> values;          ///< per slot, 0 in padding

  int64_t slices() const { return static_cast<int64_t>(slice_ptr.size()) - 1; }
  int64_t slots() const { return static_cast<int64_t>(offsets.size()); }
  /// The stored nonzeros (real slots), counted: O(slots).
  int64_t nnz() const;
  /// Bytes of every array: what an SpMV streams for the matrix.
  std::size_t bytes() const;
  /// Sizes consistent, slices of 32 rows with slice_ptr steps multiples of 32, bases in range, in
  /// each row real slots first with offsets 0 < ... strictly increasing and in range, then padding
  /// (0, 0) exactly; rows past `rows` all padding. O(slots); throws spx::Error naming the first
  /// problem.
  void validate() const;
};

/// SELL-32 slots of A (32 x the longest row of each slice of 32 rows, the last slice counted as 32
/// rows): MatrixFeatures::sell_slots, and what to_sell_c16 stores. O(rows).
template <class T>
int64_t sell_c16_slots(const Csr<T, int32_t>& A);
/// The same from a row pointer of rows + 1 offsets (a matrix held with 64-bit offsets).
int64_t sell_c16_slots(std::span<const int64_t> row_ptr);

/// Bytes a SellC16 of `slots` slots over `rows` rows holds: slots (v + 2) + 4 rows + 8 (slices + 1).
double sell_c16_stream_bytes(int64_t slots, int64_t rows, int value_bytes);

/// Converts a canonical Csr (validated first). Throws spx::Error naming the first row whose columns
/// span more than kC16MaxSpan. Sizes are checked before allocating.
template <class T>
SellC16<T> to_sell_c16(const Csr<T, int32_t>& A);

/// Back to the canonical Csr (validated first): the exact matrix to_sell_c16 was given.
template <class T>
Csr<T, int32_t> to_csr(const SellC16<T>& A);

namespace ref {
/// Reference SpMV, semantics of spx/cpu.hpp (checks first; products and sums in double, y rounded
/// once): the oracle of the SellC16 GPU kernel.
template <class T>
void spmv(const SellC16<T>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
}  // namespace ref

}  // namespace spx
