// Block-dense matrices: dense block x block tiles at random block columns, the diagonal tile
// always present (multi-physics and multi-component systems look like this; block formats and
// register blocking win on them). The last block row/column is partial when block does not
// divide n.
#include <algorithm>
#include <vector>

#include "build.hpp"
#include "random.hpp"
#include "sampling.hpp"
#include "spx/generate.hpp"

namespace spx::gen {
namespace {

constexpr std::string_view kName = "block_dense";

// Block columns of block row `block_row`: the diagonal one plus per_row - 1 others, ascending.
void block_columns(uint64_t key, int64_t block_row, int64_t block_count, int64_t per_row,
                   std::vector<int64_t>& out, std::vector<int64_t>& scratch) {
  detail::Rng rng(key, static_cast<uint64_t>(block_row));
  detail::sample_sorted_distinct(rng, block_count - 1, per_row - 1, out, scratch);
  for (int64_t& c : out) c += (c >= block_row);  // skip over the diagonal block
  out.insert(std::lower_bound(out.begin(), out.end(), block_row), block_row);
}

}  // namespace

template <class T, class I>
Csr<T, I> block_dense(I n, I block, I blocks_per_row, uint64_t seed) {
  detail::require(n >= 0, kName, "n", n, "must be >= 0");
  detail::require(block >= 1 && (n == 0 || block <= n), kName, "block", block,
                  fmt::format("must be in 1..n = {}", n));
  const int64_t size = n, width = block;
  const int64_t block_count = (size + width - 1) / width;
  detail::require(
      blocks_per_row >= 1 && (n == 0 || blocks_per_row <= block_count), kName, "blocks_per_row (per_row)",
      blocks_per_row,
      fmt::format("must be in 1..{} (the number of block columns, n / block rounded up)", block_count));
  const int64_t per_row = blocks_per_row;
  detail::require_fits<I>(detail::checked_mul(size, std::min(size, per_row * width), kName, "nnz"), kName,
                          "expected nnz (n*block*blocks_per_row)");

  const uint64_t pattern_key = detail::stream_key(seed, detail::Salt::Pattern);
  const uint64_t value_key = detail::stream_key(seed, detail::Salt::Values);
  const auto block_width = [&](int64_t b) { return std::min(width, size - b * width); };

  Csr<T, I> A = detail::empty_shape<T, I>(size, size, kName);
  const bool threads = detail::worth_threads(size * std::min(size, per_row * width));
#pragma omp parallel if (threads)
  {
    std::vector<int64_t> columns, scratch;
#pragma omp for schedule(static)
    for (int64_t block_row = 0; block_row < block_count; ++block_row) {
      block_columns(pattern_key, block_row, block_count, per_row, columns, scratch);
      int64_t length = 0;
      for (const int64_t b : columns) length += block_width(b);
      for (int64_t row = block_row * width; row < block_row * width + block_width(block_row); ++row)
        A.row_ptr[row + 1] = static_cast<I>(length);
    }
  }
  detail::lengths_to_offsets(A, kName);

#pragma omp parallel if (threads)
  {
    std::vector<int64_t> columns, scratch;
#pragma omp for schedule(static)
    for (int64_t block_row = 0; block_row < block_count; ++block_row) {
      block_columns(pattern_key, block_row, block_count, per_row, columns, scratch);
      for (int64_t row = block_row * width; row < block_row * width + block_width(block_row); ++row) {
        int64_t k = A.row_ptr[row];
        for (const int64_t b : columns)
          for (int64_t col = b * width; col < b * width + block_width(b); ++col, ++k) {
            A.col_idx[k] = static_cast<I>(col);
            A.values[k] = static_cast<T>(
                detail::entry_value(value_key, static_cast<uint64_t>(row), static_cast<uint64_t>(col)));
          }
      }
    }
  }
  return A;
}

template Csr<float, int32_t> block_dense<float, int32_t>(int32_t, int32_t, int32_t, uint64_t);
template Csr<float, int64_t> block_dense<float, int64_t>(int64_t, int64_t, int64_t, uint64_t);
template Csr<double, int32_t> block_dense<double, int32_t>(int32_t, int32_t, int32_t, uint64_t);
template Csr<double, int64_t> block_dense<double, int64_t>(int64_t, int64_t, int64_t, uint64_t);

}  // namespace spx::gen
