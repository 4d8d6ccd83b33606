// Random block-structured matrices for the BSR tests (CPU and GPU): dense b x b blocks at random
// block columns, clipped at rows and cols (so the last block row and column may be partial), some
// block rows empty, optionally one block row holding far more blocks than the rest.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>

#include "spx/matrix.hpp"

namespace spx::test {

struct BlockPattern {
  int64_t rows = 0, cols = 0;
  int block = 3;
  int64_t min_blocks = 1, max_blocks = 6;  // per block row (clamped to the block columns)
  double empty_fraction = 0.1;             // block rows left empty
  int64_t huge_block_row = -1;             // this block row gets every block column (-1: none)
};

template <class T, class I>
Csr<T, I> random_block_csr(const BlockPattern& p, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int b = p.block;
  const int64_t block_rows = (p.rows + b - 1) / b, block_cols = (p.cols + b - 1) / b;
  std::uniform_int_distribution<int64_t> count(p.min_blocks, std::max(p.min_blocks, p.max_blocks));
  std::uniform_int_distribution<int64_t> pick(0, std::max<int64_t>(block_cols - 1, 0));
  std::uniform_real_distribution<double> val(-1.0, 1.0), coin(0.0, 1.0);
  Csr<T, I> A(static_cast<I>(p.rows), static_cast<I>(p.cols));
  for (int64_t br = 0; br < block_rows; ++br) {
    std::set<int64_t> cols;
    int64_t n = std::min(count(rng), block_cols);
    if (coin(rng) < p.empty_fraction) n = 0;
    if (br == p.huge_block_row) n = block_cols;
    if (n == block_cols)
      for (int64_t c = 0; c < block_cols; ++c) cols.insert(c);
    while (static_cast<int64_t>(cols.size()) < n) cols.insert(pick(rng));
    for (int64_t r = br * b; r < std::min<int64_t>(br * b + b, p.rows); ++r) {
      for (int64_t bc : cols)
        for (int64_t c = bc * b; c < std::min<int64_t>(bc * b + b, p.cols); ++c) {
          double v = val(rng);
          if (v == 0.0) v = 0.5;  // every entry of a block a real nonzero: the round trip keeps it
          A.col_idx.push_back(static_cast<I>(c));
          A.values.push_back(static_cast<T>(v));
        }
      A.row_ptr[r + 1] = static_cast<I>(A.col_idx.size());
    }
  }
  return A;
}

}  // namespace spx::test
