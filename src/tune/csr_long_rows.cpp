// The long-row split of the CSR plan (the paper's dc1 case): which rows leave the main kernel and
// how their 512-nonzero chunks map to warps. Host code without CUDA, tested on the CPU.
#include <fmt/format.h>

#include <cstdint>
#include <limits>

#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

CsrLongRowSplit split_long_rows(std::span<const int32_t> row_ptr, int64_t threshold) {
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
    // Chunks are at most nnz / 512 + rows, so they fit int32 whenever the matrix does.
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

}  // namespace spx::cuda
