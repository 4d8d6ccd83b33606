// SellC16 (spx/sell_c16.hpp): slot counts, byte counts, conversions both ways and the checks.
#include "spx/sell_c16.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "common/host_memory.hpp"
#include "spx/error.hpp"

namespace spx {

namespace {

int64_t slices_of(int64_t rows) { return (rows + kSellC16SliceRows - 1) / kSellC16SliceRows; }

// Whether slot j (of a row with base b) holds a nonzero: the format's padding rule.
bool real_slot(int32_t b, int64_t j, uint16_t offset) { return b >= 0 && (j == 0 || offset != 0); }

// 32 x the longest row of each slice of 32 rows, from the row pointer (offsets of either width).
template <class O>
int64_t slots_of(const O* row_ptr, int64_t rows) {
  int64_t slots = 0;
  for (int64_t first = 0; first < rows; first += kSellC16SliceRows) {
    const int64_t last = std::min<int64_t>(first + kSellC16SliceRows, rows);
    int64_t width = 0;
    for (int64_t r = first; r < last; ++r) width = std::max<int64_t>(width, row_ptr[r + 1] - row_ptr[r]);
    slots += kSellC16SliceRows * width;
  }
  return slots;
}

}  // namespace

template <class T>
int64_t sell_c16_slots(const Csr<T, int32_t>& A) {
  return slots_of(A.row_ptr.data(), A.rows);
}

int64_t sell_c16_slots(std::span<const int64_t> row_ptr) {
  return row_ptr.empty() ? 0 : slots_of(row_ptr.data(), static_cast<int64_t>(row_ptr.size()) - 1);
}

double sell_c16_stream_bytes(int64_t slots, int64_t rows, int value_bytes) {
  return static_cast<double>(slots) * (value_bytes + 2) + 4.0 * static_cast<double>(rows) +
         8.0 * static_cast<double>(slices_of(rows) + 1);
}

template <class T>
int64_t SellC16<T>::nnz() const {
  int64_t n = 0;
  for (int64_t s = 0; s < slices(); ++s) {
    const int64_t width = (slice_ptr[s + 1] - slice_ptr[s]) / kSellC16SliceRows;
    const int64_t first = s * kSellC16SliceRows, last = std::min<int64_t>(first + kSellC16SliceRows, rows);
    for (int64_t r = first; r < last; ++r)
      for (int64_t j = 0; j < width; ++j)
        n += real_slot(base[r], j, offsets[slice_ptr[s] + j * kSellC16SliceRows + (r - first)]) ? 1 : 0;
  }
  return n;
}

template <class T>
std::size_t SellC16<T>::bytes() const {
  return slice_ptr.size() * sizeof(int64_t) + base.size() * sizeof(int32_t) +
         offsets.size() * sizeof(uint16_t) + values.size() * sizeof(T);
}

template <class T>
void SellC16<T>::validate() const {
  if (rows < 0 || cols < 0) throw Error(fmt::format("SellC16: negative size {} x {}", rows, cols));
  if (slice_ptr.size() != static_cast<std::size_t>(slices_of(rows)) + 1 ||
      base.size() != static_cast<std::size_t>(rows))
    throw Error(fmt::format("SellC16: {} rows but {} slice_ptr entries and {} bases (expected {} and {})",
                            rows, slice_ptr.size(), base.size(), slices_of(rows) + 1, rows));
  if (slice_ptr.front() != 0)
    throw Error(fmt::format("SellC16: slice_ptr[0] is {}, expected 0", slice_ptr.front()));
  if (static_cast<std::size_t>(slice_ptr.back()) != offsets.size() || values.size() != offsets.size())
    throw Error(fmt::format("SellC16: slice_ptr ends at {} but offsets has {} and values {} entries",
                            slice_ptr.back(), offsets.size(), values.size()));
  for (int64_t s = 0; s < slices(); ++s) {
    const int64_t step = slice_ptr[s + 1] - slice_ptr[s];
    if (step < 0 || step % kSellC16SliceRows != 0)
      throw Error(fmt::format("SellC16: slice {} holds {} slots, not a nonnegative multiple of {}", s, step,
                              kSellC16SliceRows));
    const int64_t width = step / kSellC16SliceRows;
    for (int64_t i = 0; i < kSellC16SliceRows; ++i) {
      const int64_t r = s * kSellC16SliceRows + i;
      const int32_t b = r < rows ? base[r] : kSellC16EmptyRow;
      if (b != kSellC16EmptyRow && (b < 0 || b >= cols))
        throw Error(fmt::format("SellC16: base {} of row {} out of range 0..{}", b, r, int64_t{cols} - 1));
      if (b >= 0 && width == 0)
        throw Error(fmt::format("SellC16: row {} has base {} in a slice of width 0", r, b));
      bool padding = b < 0;
      for (int64_t j = 0; j < width; ++j) {
        const int64_t k = slice_ptr[s] + j * kSellC16SliceRows + i;
        if (!padding && j > 0 && offsets[k] == 0) padding = true;
        if (padding) {
          if (offsets[k] != 0 || !(values[k] == T{0}))
            throw Error(fmt::format("SellC16: padding slot {} of row {} holds ({}, {}), expected (0, 0)", j,
                                    r, offsets[k], values[k]));
          continue;
        }
        if (int64_t{b} + offsets[k] >= cols)
          throw Error(fmt::format("SellC16: column {} + {} in row {} out of range 0..{}", b, offsets[k], r,
                                  int64_t{cols} - 1));
        if (j > 0 && offsets[k] <= offsets[k - kSellC16SliceRows])
          throw Error(
              fmt::format("SellC16: offsets of row {} not strictly increasing at slot {} ({} after {})", r, j,
                          offsets[k], offsets[k - kSellC16SliceRows]));
      }
    }
  }
}

template <class T>
SellC16<T> to_sell_c16(const Csr<T, int32_t>& A) {
  A.validate();
  for (int32_t r = 0; r < A.rows; ++r) {
    const int32_t begin = A.row_ptr[r], end = A.row_ptr[r + 1];
    if (end > begin && int64_t{A.col_idx[end - 1]} - A.col_idx[begin] > kC16MaxSpan)
      throw Error(
          fmt::format("to_sell_c16: row {} spans columns {}..{} ({} > {}): not representable with 16-bit "
                      "column offsets",
                      r, A.col_idx[begin], A.col_idx[end - 1], int64_t{A.col_idx[end - 1]} - A.col_idx[begin],
                      kC16MaxSpan));
  }
  // Sizes first (O(rows)), then one allocation per array.
  const int64_t slots = sell_c16_slots(A), slices = slices_of(A.rows);
  detail::require_host_memory(
      sell_c16_stream_bytes(slots, A.rows, sizeof(T)),
      fmt::format("to_sell_c16 ({} x {}, {} nonzeros, {} SELL-32 slots)", A.rows, A.cols, A.nnz(), slots));
  SellC16<T> C;
  C.rows = A.rows;
  C.cols = A.cols;
  C.slice_ptr.assign(static_cast<std::size_t>(slices) + 1, 0);
  C.base.assign(static_cast<std::size_t>(A.rows), kSellC16EmptyRow);
  C.offsets.assign(static_cast<std::size_t>(slots), 0);
  C.values.assign(static_cast<std::size_t>(slots), T{0});
  for (int64_t s = 0; s < slices; ++s) {
    const int64_t first = s * kSellC16SliceRows, last = std::min<int64_t>(first + kSellC16SliceRows, A.rows);
    int64_t width = 0;
    for (int64_t r = first; r < last; ++r) width = std::max<int64_t>(width, A.row_ptr[r + 1] - A.row_ptr[r]);
    C.slice_ptr[s + 1] = C.slice_ptr[s] + kSellC16SliceRows * width;
    for (int64_t r = first; r < last; ++r) {
      const int32_t begin = A.row_ptr[r], end = A.row_ptr[r + 1];
      if (end == begin) continue;
      C.base[r] = A.col_idx[begin];
      for (int32_t k = begin; k < end; ++k) {
        const auto slot =
            static_cast<std::size_t>(C.slice_ptr[s] + (k - begin) * int64_t{kSellC16SliceRows} + (r - first));
        C.offsets[slot] = static_cast<uint16_t>(A.col_idx[k] - A.col_idx[begin]);
        C.values[slot] = A.values[k];
      }
    }
  }
  return C;
}

template <class T>
Csr<T, int32_t> to_csr(const SellC16<T>& C) {
  C.validate();
  const int64_t nnz = C.nnz();
  if (nnz > std::numeric_limits<int32_t>::max())
    throw Error(fmt::format("to_csr: SellC16 holds {} nonzeros, more than a 32-bit Csr indexes", nnz));
  Csr<T, int32_t> A(C.rows, C.cols);
  A.col_idx.reserve(static_cast<std::size_t>(nnz));
  A.values.reserve(static_cast<std::size_t>(nnz));
  for (int64_t r = 0; r < C.rows; ++r) {
    const int64_t s = r / kSellC16SliceRows, i = r % kSellC16SliceRows;
    const int64_t width = (C.slice_ptr[s + 1] - C.slice_ptr[s]) / kSellC16SliceRows;
    for (int64_t j = 0; j < width; ++j) {
      const auto k = static_cast<std::size_t>(C.slice_ptr[s] + j * kSellC16SliceRows + i);
      if (!real_slot(C.base[r], j, C.offsets[k])) break;  // real slots come first
      A.col_idx.push_back(C.base[r] + static_cast<int32_t>(C.offsets[k]));
      A.values.push_back(C.values[k]);
    }
    A.row_ptr[r + 1] = static_cast<int32_t>(A.col_idx.size());
  }
  return A;
}

template int64_t sell_c16_slots(const Csr<float, int32_t>&);
template int64_t sell_c16_slots(const Csr<double, int32_t>&);
template struct SellC16<float>;
template struct SellC16<double>;
template SellC16<float> to_sell_c16(const Csr<float, int32_t>&);
template SellC16<double> to_sell_c16(const Csr<double, int32_t>&);
template Csr<float, int32_t> to_csr(const SellC16<float>&);
template Csr<double, int32_t> to_csr(const SellC16<double>&);

}  // namespace spx
