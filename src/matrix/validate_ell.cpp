// validate() and nnz() for the padded formats (Ell, EllR) and Hyb.
//
// Slots are scanned slot-column by slot-column (k outer, row inner) because that is the storage
// order: a row-by-row scan would stride by ld and miss cache on every slot of a large matrix.
#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "matrix/index_checks.hpp"
#include "spx/error.hpp"
#include "spx/matrix.hpp"

namespace spx {
namespace {

// Number of slots of a padded slab, checked to fit in I so kernels may compute k * ld + r in I.
template <class I>
int64_t checked_slot_count(const char* format, I padded_rows, I width) {
  const int64_t slots = detail::checked_mul(padded_rows, width, format);
  detail::to_index<I>(slots, fmt::format("{}: slot count", format));
  return slots;
}

template <class T, class I>
void check_slab_sizes(const char* format, const std::vector<I>& col_idx, const std::vector<T>& values,
                      int64_t slots) {
  if (col_idx.size() != static_cast<uint64_t>(slots)) {
    throw Error(fmt::format("{}: col_idx has {} entries, expected {} slots", format, col_idx.size(), slots));
  }
  if (values.size() != static_cast<uint64_t>(slots)) {
    throw Error(fmt::format("{}: values has {} entries, expected {} slots", format, values.size(), slots));
  }
}

template <class T, class I>
void check_padding_slot(const char* format, int64_t r, int64_t k, I c, T v) {
  if (c != detail::padding_index<I>() || v != T{0}) {
    throw Error(
        fmt::format("{}: row {} slot {}: expected padding (column {}, value 0), found column {}, value {}",
                    format, r, k, kPadding, c, v));
  }
}

// One real entry of row r at slot k; `previous` holds the row's last column (-1 before the first).
template <class I>
void check_real_slot(const char* format, int64_t r, int64_t k, I c, I cols, int64_t& previous) {
  if (c < 0 || c >= cols) {
    throw Error(
        fmt::format("{}: row {} slot {}: column {} is outside [0, cols = {})", format, r, k, c, cols));
  }
  if (c <= previous) {
    throw Error(
        fmt::format("{}: row {} slot {}: column {} is not greater than previous column {} (unsorted or "
                    "duplicate)",
                    format, r, k, c, previous));
  }
  previous = c;
}

}  // namespace

template <class T, class I>
I Ell<T, I>::nnz() const {
  int64_t count = 0;
  for (I c : col_idx) count += c != detail::padding_index<I>() ? 1 : 0;
  return static_cast<I>(count);
}

template <class T, class I>
void Ell<T, I>::validate() const {
  if (rows < 0 || cols < 0 || width < 0 || ld < 0) {
    throw Error(
        fmt::format("Ell: negative dimension (rows {}, cols {}, width {}, ld {})", rows, cols, width, ld));
  }
  if (ld < rows) throw Error(fmt::format("Ell: ld = {} is less than rows = {}", ld, rows));
  check_slab_sizes("Ell", col_idx, values, checked_slot_count("Ell", ld, width));

  // Per row: last real column so far, or kRowEnded once a padding slot was seen (real entries
  // must fill a prefix of the row, so kernels may stop at the first padding slot).
  constexpr int64_t kRowEnded = -2;
  std::vector<int64_t> previous(static_cast<std::size_t>(ld), -1);
  for (I k = 0; k < width; ++k) {
    for (I r = 0; r < ld; ++r) {
      const std::size_t s = slot(r, k);
      const I c = col_idx[s];
      int64_t& prev = previous[static_cast<std::size_t>(r)];
      if (c == detail::padding_index<I>()) {
        check_padding_slot("Ell", r, k, c, values[s]);
        prev = kRowEnded;
        continue;
      }
      if (r >= rows) {
        throw Error(
            fmt::format("Ell: row {} slot {}: column {} in a padding row (rows = {}, ld = {}); rows past the "
                        "last must be all padding",
                        r, k, c, rows, ld));
      }
      if (prev == kRowEnded) {
        throw Error(
            fmt::format("Ell: row {} slot {}: column {} follows a padding slot; real entries must fill the "
                        "first slots of a row",
                        r, k, c));
      }
      check_real_slot("Ell", r, k, c, cols, prev);
    }
  }
}

template <class T, class I>
I EllR<T, I>::nnz() const {
  int64_t count = 0;
  for (I len : row_len) count += len;
  return static_cast<I>(count);
}

template <class T, class I>
void EllR<T, I>::validate() const {
  if (rows < 0 || cols < 0 || width < 0 || rows_padded < 0) {
    throw Error(fmt::format("EllR: negative dimension (rows {}, cols {}, width {}, rows_padded {})", rows,
                            cols, width, rows_padded));
  }
  if (rows_padded < rows || rows_padded % detail::kSlotAlignment != 0) {
    throw Error(fmt::format("EllR: rows_padded = {} must be a multiple of {} and at least rows = {}",
                            rows_padded, detail::kSlotAlignment, rows));
  }
  check_slab_sizes("EllR", col_idx, values, checked_slot_count("EllR", rows_padded, width));
  if (row_len.size() != static_cast<uint64_t>(rows_padded)) {
    throw Error(
        fmt::format("EllR: row_len has {} entries, expected rows_padded = {}", row_len.size(), rows_padded));
  }
  for (I r = 0; r < rows_padded; ++r) {
    const I len = row_len[static_cast<std::size_t>(r)];
    if (len < 0 || len > width) {
      throw Error(fmt::format("EllR: row_len[{}] = {} is outside [0, width = {}]", r, len, width));
    }
    if (r >= rows && len != 0) {
      throw Error(fmt::format("EllR: padding row {} (rows = {}) has row_len {}, expected 0", r, rows, len));
    }
  }
  std::vector<int64_t> previous(static_cast<std::size_t>(rows_padded), -1);
  for (I k = 0; k < width; ++k) {
    for (I r = 0; r < rows_padded; ++r) {
      const std::size_t s = slot(r, k);
      if (k < row_len[static_cast<std::size_t>(r)]) {
        check_real_slot("EllR", r, k, col_idx[s], cols, previous[static_cast<std::size_t>(r)]);
      } else {
        check_padding_slot("EllR", r, k, col_idx[s], values[s]);
      }
    }
  }
}

template <class T, class I>
void Hyb<T, I>::validate() const {
  ell.validate();
  coo.validate();
  if (ell.rows != coo.rows || ell.cols != coo.cols) {
    throw Error(fmt::format("Hyb: Ell part is {} x {} but COO part is {} x {}", ell.rows, ell.cols, coo.rows,
                            coo.cols));
  }
  const std::size_t tail = coo.values.size();
  for (std::size_t e = 1; e < tail; ++e) {
    const bool increasing = coo.row_idx[e - 1] < coo.row_idx[e] ||
                            (coo.row_idx[e - 1] == coo.row_idx[e] && coo.col_idx[e - 1] < coo.col_idx[e]);
    if (!increasing) {
      throw Error(
          fmt::format("Hyb: COO entry {} (row {}, col {}) does not follow entry {} (row {}, col {}); the COO "
                      "part must be sorted by (row, col) without duplicates",
                      e, coo.row_idx[e], coo.col_idx[e], e - 1, coo.row_idx[e - 1], coo.col_idx[e - 1]));
    }
  }
  detail::to_index<I>(int64_t{ell.nnz()} + int64_t{coo.nnz()}, "Hyb: nnz of Ell part + COO part");

  // An entry stored in both parts would be counted twice by a kernel: reject it. Both parts are
  // sorted within a row, so a merge per row finds it; only rows with a COO tail are visited.
  for (std::size_t e = 0; e < tail;) {
    const I r = coo.row_idx[e];
    I k = 0;
    for (; e < tail && coo.row_idx[e] == r; ++e) {
      const I c = coo.col_idx[e];
      while (k < ell.width && ell.col_idx[ell.slot(r, k)] != detail::padding_index<I>() &&
             ell.col_idx[ell.slot(r, k)] < c) {
        ++k;
      }
      if (k < ell.width && ell.col_idx[ell.slot(r, k)] == c) {
        throw Error(
            fmt::format("Hyb: row {}: column {} is stored in both the Ell part (slot {}) and the COO part "
                        "(entry {})",
                        r, c, k, e));
      }
    }
  }
}

template struct Ell<float, int32_t>;
template struct Ell<float, int64_t>;
template struct Ell<double, int32_t>;
template struct Ell<double, int64_t>;
template struct EllR<float, int32_t>;
template struct EllR<float, int64_t>;
template struct EllR<double, int32_t>;
template struct EllR<double, int64_t>;
template struct Hyb<float, int32_t>;
template struct Hyb<float, int64_t>;
template struct Hyb<double, int32_t>;
template struct Hyb<double, int64_t>;

}  // namespace spx
