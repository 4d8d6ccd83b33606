// Sorted samples of distinct column indices: the inner step of every random-pattern generator.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "random.hpp"

namespace spx::gen::detail {

// `count` distinct values from [0, range), sorted, uniformly over all such subsets, into `out`.
// Short samples: draw, sort, drop duplicates, draw the shortfall again (the process is symmetric
// in the labels, so every subset is equally likely; O(count log count), no O(range) work). Dense
// samples (count > range / 2) pick the excluded values instead and emit the complement, so even
// a full row costs O(range) and never loops on rare misses.
inline void sample_sorted_distinct(Rng& rng, int64_t range, int64_t count, std::vector<int64_t>& out,
                                   std::vector<int64_t>& scratch) {
  out.clear();
  if (count <= 0) return;
  const bool complement = count > range / 2;
  const int64_t picks = complement ? range - count : count;
  std::vector<int64_t>& picked = complement ? scratch : out;
  picked.clear();
  while (static_cast<int64_t>(picked.size()) < picks) {
    const std::size_t sorted_end = picked.size();
    const int64_t shortfall = picks - static_cast<int64_t>(sorted_end);
    for (int64_t k = 0; k < shortfall; ++k)
      picked.push_back(static_cast<int64_t>(rng.below(static_cast<uint64_t>(range))));
    std::sort(picked.begin() + static_cast<std::ptrdiff_t>(sorted_end), picked.end());
    std::inplace_merge(picked.begin(), picked.begin() + static_cast<std::ptrdiff_t>(sorted_end),
                       picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  }
  if (!complement) return;
  out.reserve(static_cast<std::size_t>(count));
  auto excluded = scratch.begin();
  for (int64_t c = 0; c < range; ++c) {
    if (excluded != scratch.end() && *excluded == c) {
      ++excluded;
    } else {
      out.push_back(c);
    }
  }
}

// Row `row` of A (row_ptr already set, `length` entries) gets `length` distinct random columns from
// [0, cols), sorted, with their deterministic values: the row step of every random-pattern
// generator. The column draw depends only on (column_key, row), the values on (value_key, row,
// col), so rows can be filled in any order or thread. `columns` and `scratch` are reused buffers.
template <class Matrix>
void fill_random_row(Matrix& A, int64_t row, int64_t cols, int64_t length, uint64_t column_key,
                     uint64_t value_key, std::vector<int64_t>& columns, std::vector<int64_t>& scratch) {
  using I = typename Matrix::index_type;
  using T = typename Matrix::value_type;
  Rng rng(column_key, static_cast<uint64_t>(row));
  sample_sorted_distinct(rng, cols, length, columns, scratch);
  int64_t k = A.row_ptr[static_cast<std::size_t>(row)];
  for (const int64_t col : columns) {
    A.col_idx[static_cast<std::size_t>(k)] = static_cast<I>(col);
    A.values[static_cast<std::size_t>(k)] =
        static_cast<T>(entry_value(value_key, static_cast<uint64_t>(row), static_cast<uint64_t>(col)));
    ++k;
  }
}

}  // namespace spx::gen::detail
