// CsrC16 (spx/csr_c16.hpp): column spans, byte counts, conversions both ways and the checks.
#include "spx/csr_c16.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>

#include "common/host_memory.hpp"
#include "common/host_parallel.hpp"
#include "spx/column_spans.hpp"
#include "spx/error.hpp"

namespace spx {

template <class T, class I>
ColumnSpanStats column_span_stats(const Csr<T, I>& A) {
  if (A.rows < 0 || A.row_ptr.size() != static_cast<std::size_t>(A.rows) + 1 ||
      A.col_idx.size() != static_cast<std::size_t>(A.nnz()))
    throw Error(
        fmt::format("column_span_stats: Csr sizes disagree ({} rows, {} row_ptr entries, {} column "
                    "indices, row_ptr ends at {})",
                    A.rows, A.row_ptr.size(), A.col_idx.size(), A.nnz()));
  ColumnSpanStats s;
  s.rows = A.rows;
  s.nnz = A.nnz();
  // Integer maxima and sums: the same whatever the threads.
  int64_t max_span = s.max_span, wide_rows = 0, wide_nnz = 0;
  const int64_t rows = A.rows;
#pragma omp parallel for schedule(static) reduction(max : max_span) reduction(+ : wide_rows, wide_nnz) \
    if (rows >= detail::kMinParallelItems)
  for (int64_t r = 0; r < rows; ++r) {
    const I begin = A.row_ptr[r], end = A.row_ptr[r + 1];
    if (end <= begin) continue;
    const int64_t span = static_cast<int64_t>(A.col_idx[end - 1]) - static_cast<int64_t>(A.col_idx[begin]);
    max_span = std::max(max_span, span);
    if (span > kC16MaxSpan) {
      ++wide_rows;
      wide_nnz += end - begin;
    }
  }
  s.max_span = max_span;
  s.wide_rows = wide_rows;
  s.wide_nnz = wide_nnz;
  return s;
}

double csr_stream_bytes(const ColumnSpanStats& s, int value_bytes) {
  return static_cast<double>(s.nnz) * (value_bytes + 4) + 4.0 * static_cast<double>(s.rows + 1);
}

double csr_c16_stream_bytes(const ColumnSpanStats& s, int value_bytes) {
  const double narrow = static_cast<double>(s.nnz - s.wide_nnz);
  return narrow * (value_bytes + 2) + 8.0 * static_cast<double>(s.rows) + 4.0 +
         static_cast<double>(s.wide_nnz) * (value_bytes + 4) + 8.0 * static_cast<double>(s.wide_rows) + 4.0;
}

template <class T>
std::size_t CsrC16<T>::bytes() const {
  return row_ptr.size() * sizeof(int32_t) + base.size() * sizeof(int32_t) +
         offsets.size() * sizeof(uint16_t) + values.size() * sizeof(T) +
         escape_rows.size() * sizeof(int32_t) + escape.row_ptr.size() * sizeof(int32_t) +
         escape.col_idx.size() * sizeof(int32_t) + escape.values.size() * sizeof(T);
}

template <class T>
void CsrC16<T>::validate() const {
  if (rows < 0 || cols < 0) throw Error(fmt::format("CsrC16: negative size {} x {}", rows, cols));
  if (row_ptr.size() != static_cast<std::size_t>(rows) + 1 || base.size() != static_cast<std::size_t>(rows))
    throw Error(fmt::format("CsrC16: {} rows but {} row_ptr entries and {} bases (expected {} and {})", rows,
                            row_ptr.size(), base.size(), int64_t{rows} + 1, rows));
  if (row_ptr.front() != 0) throw Error(fmt::format("CsrC16: row_ptr[0] is {}, expected 0", row_ptr.front()));
  if (static_cast<std::size_t>(row_ptr.back()) != offsets.size() || values.size() != offsets.size())
    throw Error(fmt::format("CsrC16: row_ptr ends at {} but offsets has {} and values {} entries",
                            row_ptr.back(), offsets.size(), values.size()));
  escape.validate();
  if (escape.cols != cols || escape.rows < 0 || static_cast<std::size_t>(escape.rows) != escape_rows.size())
    throw Error(
        fmt::format("CsrC16: escape part is {} x {} with {} row indices; expected {} rows x {} columns",
                    escape.rows, escape.cols, escape_rows.size(), escape_rows.size(), cols));
  std::size_t next_escape = 0;
  for (int32_t r = 0; r < rows; ++r) {
    const int32_t begin = row_ptr[r], end = row_ptr[r + 1];
    if (end < begin)
      throw Error(fmt::format("CsrC16: row_ptr decreases at row {} ({} -> {})", r, begin, end));
    const bool listed = next_escape < escape_rows.size() && escape_rows[next_escape] == r;
    if (base[r] == kC16Escape) {
      if (!listed) throw Error(fmt::format("CsrC16: row {} is marked escape but not in the escape list", r));
      if (end != begin)
        throw Error(fmt::format("CsrC16: escape row {} has {} 16-bit nonzeros", r, end - begin));
      ++next_escape;
      continue;
    }
    if (listed) throw Error(fmt::format("CsrC16: row {} is in the escape list but has base {}", r, base[r]));
    if (base[r] < 0 || (base[r] >= cols && end > begin))
      throw Error(fmt::format("CsrC16: base {} of row {} out of range 0..{}", base[r], r, int64_t{cols} - 1));
    for (int32_t k = begin; k < end; ++k) {
      if (static_cast<int64_t>(base[r]) + offsets[k] >= cols)
        throw Error(fmt::format("CsrC16: column {} + {} in row {} out of range 0..{}", base[r], offsets[k], r,
                                int64_t{cols} - 1));
      if (k > begin && offsets[k] <= offsets[k - 1])
        throw Error(fmt::format("CsrC16: offsets of row {} not strictly increasing at {} ({} after {})", r, k,
                                offsets[k], offsets[k - 1]));
    }
  }
  if (next_escape != escape_rows.size())
    throw Error(
        fmt::format("CsrC16: escape list entry {} ({}) is not an escape row in 0..{} in ascending order",
                    next_escape, escape_rows[next_escape], int64_t{rows} - 1));
}

template <class T>
CsrC16<T> to_csr_c16(const Csr<T, int32_t>& A, int64_t escape_longer_than) {
  A.validate();
  if (escape_longer_than < 0)
    throw Error(fmt::format("to_csr_c16: escape_longer_than {} is negative", escape_longer_than));
  const auto is_escape = [&](int32_t r) {
    const int32_t begin = A.row_ptr[r], end = A.row_ptr[r + 1];
    return end > begin &&
           (end - begin > escape_longer_than || int64_t{A.col_idx[end - 1]} - A.col_idx[begin] > kC16MaxSpan);
  };
  // Sizes first (O(rows)), then one allocation per array.
  int64_t escape_count = 0, escape_nnz = 0;
  for (int32_t r = 0; r < A.rows; ++r)
    if (is_escape(r)) {
      ++escape_count;
      escape_nnz += A.row_ptr[r + 1] - A.row_ptr[r];
    }
  const int64_t narrow_nnz = int64_t{A.nnz()} - escape_nnz;
  detail::require_host_memory(static_cast<double>(narrow_nnz) * (sizeof(T) + 2) +
                                  static_cast<double>(escape_nnz) * (sizeof(T) + 4) +
                                  8.0 * static_cast<double>(A.rows) + 8.0 * static_cast<double>(escape_count),
                              fmt::format("to_csr_c16 ({} x {}, {} nonzeros)", A.rows, A.cols, A.nnz()));
  CsrC16<T> C;
  C.rows = A.rows;
  C.cols = A.cols;
  C.row_ptr.assign(static_cast<std::size_t>(A.rows) + 1, 0);
  C.base.assign(static_cast<std::size_t>(A.rows), 0);
  C.offsets.reserve(static_cast<std::size_t>(narrow_nnz));
  C.values.reserve(static_cast<std::size_t>(narrow_nnz));
  C.escape_rows.reserve(static_cast<std::size_t>(escape_count));
  C.escape = Csr<T, int32_t>(static_cast<int32_t>(escape_count), A.cols);
  C.escape.col_idx.reserve(static_cast<std::size_t>(escape_nnz));
  C.escape.values.reserve(static_cast<std::size_t>(escape_nnz));
  for (int32_t r = 0; r < A.rows; ++r) {
    const int32_t begin = A.row_ptr[r], end = A.row_ptr[r + 1];
    if (is_escape(r)) {
      C.base[r] = kC16Escape;
      C.escape_rows.push_back(r);
      C.escape.col_idx.insert(C.escape.col_idx.end(), A.col_idx.begin() + begin, A.col_idx.begin() + end);
      C.escape.values.insert(C.escape.values.end(), A.values.begin() + begin, A.values.begin() + end);
      C.escape.row_ptr[C.escape_rows.size()] = static_cast<int32_t>(C.escape.col_idx.size());
    } else if (end > begin) {
      C.base[r] = A.col_idx[begin];
      for (int32_t k = begin; k < end; ++k) {
        C.offsets.push_back(static_cast<uint16_t>(A.col_idx[k] - A.col_idx[begin]));
        C.values.push_back(A.values[k]);
      }
    }
    C.row_ptr[r + 1] = static_cast<int32_t>(C.offsets.size());
  }
  return C;
}

template <class T>
Csr<T, int32_t> to_csr(const CsrC16<T>& C) {
  C.validate();
  Csr<T, int32_t> A(C.rows, C.cols);
  A.col_idx.reserve(static_cast<std::size_t>(C.nnz()));
  A.values.reserve(static_cast<std::size_t>(C.nnz()));
  std::size_t e = 0;
  for (int32_t r = 0; r < C.rows; ++r) {
    if (C.base[r] == kC16Escape) {
      const int32_t begin = C.escape.row_ptr[e], end = C.escape.row_ptr[e + 1];
      A.col_idx.insert(A.col_idx.end(), C.escape.col_idx.begin() + begin, C.escape.col_idx.begin() + end);
      A.values.insert(A.values.end(), C.escape.values.begin() + begin, C.escape.values.begin() + end);
      ++e;
    } else {
      for (int32_t k = C.row_ptr[r]; k < C.row_ptr[r + 1]; ++k) {
        A.col_idx.push_back(C.base[r] + static_cast<int32_t>(C.offsets[k]));
        A.values.push_back(C.values[k]);
      }
    }
    A.row_ptr[r + 1] = static_cast<int32_t>(A.col_idx.size());
  }
  return A;
}

template ColumnSpanStats column_span_stats(const Csr<float, int32_t>&);
template ColumnSpanStats column_span_stats(const Csr<double, int32_t>&);
template ColumnSpanStats column_span_stats(const Csr<float, int64_t>&);
template ColumnSpanStats column_span_stats(const Csr<double, int64_t>&);
template struct CsrC16<float>;
template struct CsrC16<double>;
template CsrC16<float> to_csr_c16(const Csr<float, int32_t>&, int64_t);
template CsrC16<double> to_csr_c16(const Csr<double, int32_t>&, int64_t);
template Csr<float, int32_t> to_csr(const CsrC16<float>&);
template Csr<double, int32_t> to_csr(const CsrC16<double>&);

}  // namespace spx
