// The two regular random shapes: every entry present (dense stored as sparse: the bandwidth
// ceiling of a sparse kernel, to compare with GEMV), and every row the same length at uniformly
// random columns (Guo & Wang's benchmark matrices: fixed nonzeros per row, no locality).
#include <vector>

#include "build.hpp"
#include "random.hpp"
#include "sampling.hpp"
#include "spx/generate.hpp"

namespace spx::gen {

template <class T, class I>
Csr<T, I> dense_as_sparse(I rows, I cols, uint64_t seed) {
  constexpr std::string_view kName = "dense_as_sparse";
  detail::require(rows >= 0, kName, "rows", rows, "must be >= 0");
  detail::require(cols >= 0, kName, "cols", cols, "must be >= 0");
  detail::require_fits<I>(detail::checked_mul(rows, cols, kName, "nnz"), kName, "nnz (rows*cols)");

  Csr<T, I> A = detail::empty_shape<T, I>(rows, cols, kName);
  const int64_t width = cols;
  const bool threads = detail::worth_threads(int64_t{rows} * width);
#pragma omp parallel for if (threads) schedule(static)
  for (int64_t row = 0; row < int64_t{rows}; ++row) A.row_ptr[row + 1] = static_cast<I>(width);
  detail::lengths_to_offsets(A, kName);

  const uint64_t value_key = detail::stream_key(seed, detail::Salt::Values);
#pragma omp parallel for if (threads) schedule(static)
  for (int64_t row = 0; row < int64_t{rows}; ++row)
    for (int64_t col = 0, k = row * width; col < width; ++col, ++k) {
      A.col_idx[k] = static_cast<I>(col);
      A.values[k] = static_cast<T>(
          detail::entry_value(value_key, static_cast<uint64_t>(row), static_cast<uint64_t>(col)));
    }
  return A;
}

template <class T, class I>
Csr<T, I> random_uniform(I rows, I cols, I row_len, uint64_t seed) {
  constexpr std::string_view kName = "random_uniform";
  detail::require(rows >= 0, kName, "rows", rows, "must be >= 0");
  detail::require(cols >= 0, kName, "cols", cols, "must be >= 0");
  detail::require(row_len >= 0 && row_len <= cols, kName, "row_len (len)", row_len,
                  fmt::format("must be in 0..cols = {}", cols));
  detail::require_fits<I>(detail::checked_mul(rows, row_len, kName, "nnz"), kName, "nnz (rows*row_len)");

  Csr<T, I> A = detail::empty_shape<T, I>(rows, cols, kName);
  const bool threads = detail::worth_threads(int64_t{rows} * row_len);
#pragma omp parallel for if (threads) schedule(static)
  for (int64_t row = 0; row < int64_t{rows}; ++row) A.row_ptr[row + 1] = row_len;
  detail::lengths_to_offsets(A, kName);

  const uint64_t column_key = detail::stream_key(seed, detail::Salt::Pattern);
  const uint64_t value_key = detail::stream_key(seed, detail::Salt::Values);
#pragma omp parallel if (threads)
  {
    std::vector<int64_t> columns, scratch;
#pragma omp for schedule(static)
    for (int64_t row = 0; row < int64_t{rows}; ++row) {
      detail::fill_random_row(A, row, cols, row_len, column_key, value_key, columns, scratch);
    }
  }
  return A;
}

template Csr<float, int32_t> dense_as_sparse<float, int32_t>(int32_t, int32_t, uint64_t);
template Csr<float, int64_t> dense_as_sparse<float, int64_t>(int64_t, int64_t, uint64_t);
template Csr<double, int32_t> dense_as_sparse<double, int32_t>(int32_t, int32_t, uint64_t);
template Csr<double, int64_t> dense_as_sparse<double, int64_t>(int64_t, int64_t, uint64_t);

template Csr<float, int32_t> random_uniform<float, int32_t>(int32_t, int32_t, int32_t, uint64_t);
template Csr<float, int64_t> random_uniform<float, int64_t>(int64_t, int64_t, int64_t, uint64_t);
template Csr<double, int32_t> random_uniform<double, int32_t>(int32_t, int32_t, int32_t, uint64_t);
template Csr<double, int64_t> random_uniform<double, int64_t>(int64_t, int64_t, int64_t, uint64_t);

}  // namespace spx::gen
