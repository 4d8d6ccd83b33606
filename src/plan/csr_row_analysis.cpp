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

template <class O>
CsrLongRowSplit long_rows_of(std::span<const O> row_ptr, int64_t threshold) {
  if (threshold < 0) throw Error(fmt::format("long-row threshold {} is negative", threshold));
  CsrLongRowSplit split;
  split.threshold = threshold;
  split.chunk_begin.push_back(0);
  const int64_t rows = row_ptr.empty() ? 0 : static_cast<int64_t>(row_ptr.size()) - 1;
  int64_t chunks = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len =
        int64_t{row_ptr[static_cast<std::size_t>(r) + 1]} - row_ptr[static_cast<std::size_t>(r)];
    if (len <= threshold) continue;
    const int64_t row_chunks = (len + kCsrLongRowChunk - 1) / kCsrLongRowChunk;
    // Chunks are at most nnz / 512 + rows: int32 for any matrix of 32-bit rows below 2^40 nonzeros.
    if (chunks + row_chunks > std::numeric_limits<int32_t>::max())
      throw Error("long-row split: more than 2^31-1 chunks");
    split.chunk_owner.insert(split.chunk_owner.end(), static_cast<std::size_t>(row_chunks),
                             static_cast<int32_t>(split.rows.size()));
    split.rows.push_back(static_cast<int32_t>(r));
    chunks += row_chunks;
    split.chunk_begin.push_back(static_cast<int32_t>(chunks));
    split.nnz += len;
  }
  return split;
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

}  // namespace spx::cuda
