// The checks upload_row_blocks (upload_wide.cpp) makes on the blocks it is handed, before a byte of
// a block is copied: plain host code (no CUDA), so tests/cpu checks the messages without a GPU.
#pragma once

#include <fmt/format.h>

#include <cstdint>

#include "spx/error.hpp"
#include "spx/matrix.hpp"

namespace spx::cuda::detail {

inline void check_rows_per_block(int64_t rows_per_block) {
  if (rows_per_block < 1) throw Error(fmt::format("upload_row_blocks: {} rows per block", rows_per_block));
}

// Block B answered for rows [begin, end) of a matrix of `cols` columns and `nnz` announced
// nonzeros, `copied` of them already placed: its shape, its indices (B.validate()) and that it
// does not carry the total past the announcement.
template <class T>
void check_row_block(const Csr<T, int64_t>& B, int64_t begin, int64_t end, int64_t cols, int64_t copied,
                     int64_t nnz) {
  if (B.rows != end - begin || B.cols != cols)
    throw Error(fmt::format("upload_row_blocks: the block of rows [{}, {}) is {} x {}, not {} x {}", begin,
                            end, B.rows, B.cols, end - begin, cols));
  B.validate();
  if (B.nnz() > nnz - copied)
    throw Error(fmt::format(
        "upload_row_blocks: the block of rows [{}, {}) brings the nonzeros to {}, past the {} announced",
        begin, end, copied + B.nnz(), nnz));
}

// After the last block: the blocks held exactly the nonzeros announced.
inline void check_row_blocks_total(int64_t copied, int64_t nnz) {
  if (copied != nnz)
    throw Error(
        fmt::format("upload_row_blocks: the blocks hold {} nonzeros, {} were announced", copied, nnz));
}

}  // namespace spx::cuda::detail
