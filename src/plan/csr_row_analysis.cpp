// What the CSR plan reads off a row pointer (host code, every build): the row-length statistics and
// the long-row split (the paper's dc1 case: which rows leave the main kernel and how their
// 512-nonzero chunks map to warps).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

namespace {

template <class O>
MatrixStats row_length_stats(int64_t rows, int64_t cols, std::span<const O> row_ptr) {
  MatrixStats s;
  s.rows = rows;
  s.cols = cols;
  if (rows <= 0) return s;
  if (static_cast<int64_t>(row_ptr.size()) < rows + 1)
    throw Error(fmt::format("csr_row_length_stats: row_ptr has {} entries, {} rows need {}", row_ptr.size(),
                            rows, rows + 1));
  s.nnz = int64_t{row_ptr[static_cast<std::size_t>(rows)]} - row_ptr[0];
  s.min_row = std::numeric_limits<int64_t>::max();
  double sum_sq = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len =
        int64_t{row_ptr[static_cast<std::size_t>(r) + 1]} - row_ptr[static_cast<std::size_t>(r)];
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    if (len == 0) ++s.empty_rows;
    sum_sq += static_cast<double>(len) * static_cast<double>(len);
  }
  s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(rows);
  s.stddev_row = std::sqrt(std::max(0.0, sum_sq / static_cast<double>(rows) - s.avg_row * s.avg_row));
  return s;
}

// The split of the long rows, given in ascending row order.
CsrLongRowSplit split_of(const std::vector<LongRow>& long_rows, int64_t threshold) {
  CsrLongRowSplit split;
  split.threshold = threshold;
  split.chunk_begin.push_back(0);
  int64_t chunks = 0;
  for (const LongRow& l : long_rows) {
    const int64_t row_chunks = (l.length + kCsrLongRowChunk - 1) / kCsrLongRowChunk;
    // Chunks are at most nnz / 512 + rows: int32 for any matrix of 32-bit rows below 2^40 nonzeros.
    if (chunks + row_chunks > std::numeric_limits<int32_t>::max())
      throw Error("long-row split: more than 2^31-1 chunks");
    split.chunk_owner.insert(split.chunk_owner.end(), static_cast<std::size_t>(row_chunks),
                             static_cast<int32_t>(split.rows.size()));
    split.rows.push_back(static_cast<int32_t>(l.row));
    chunks += row_chunks;
    split.chunk_begin.push_back(static_cast<int32_t>(chunks));
    split.nnz += l.length;
  }
  return split;
}

template <class O>
CsrLongRowSplit long_rows_of(std::span<const O> row_ptr, int64_t threshold) {
  if (threshold < 0) throw Error(fmt::format("long-row threshold {} is negative", threshold));
  std::vector<LongRow> long_rows;
  const int64_t rows = row_ptr.empty() ? 0 : static_cast<int64_t>(row_ptr.size()) - 1;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len =
        int64_t{row_ptr[static_cast<std::size_t>(r) + 1]} - row_ptr[static_cast<std::size_t>(r)];
    if (len > threshold) long_rows.push_back({r, len});
  }
  return split_of(long_rows, threshold);
}

}  // namespace

MatrixStats csr_row_length_stats(int64_t rows, int64_t cols, std::span<const int32_t> row_ptr) {
  return row_length_stats(rows, cols, row_ptr);
}
MatrixStats csr_row_length_stats(int64_t rows, int64_t cols, std::span<const int64_t> row_ptr) {
  return row_length_stats(rows, cols, row_ptr);
}
CsrLongRowSplit split_long_rows(std::span<const int32_t> row_ptr, int64_t threshold) {
  return long_rows_of(row_ptr, threshold);
}
CsrLongRowSplit split_long_rows(std::span<const int64_t> row_ptr, int64_t threshold) {
  return long_rows_of(row_ptr, threshold);
}
CsrLongRowSplit split_long_rows(std::vector<LongRow> long_rows, int64_t threshold) {
  if (threshold < 0) throw Error(fmt::format("long-row threshold {} is negative", threshold));
  std::sort(long_rows.begin(), long_rows.end(),
            [](const LongRow& a, const LongRow& b) { return a.row < b.row; });
  for (std::size_t i = 0; i < long_rows.size(); ++i) {
    const LongRow& l = long_rows[i];
    if (l.row < 0 || l.row > std::numeric_limits<int32_t>::max() || l.length <= threshold ||
        (i > 0 && long_rows[i - 1].row == l.row))
      throw Error(
          fmt::format("long-row split: row {} of length {} is not a distinct 32-bit row longer than {}",
                      l.row, l.length, threshold));
  }
  return split_of(long_rows, threshold);
}

}  // namespace spx::cuda
