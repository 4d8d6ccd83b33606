// Random banded matrices. Whether the pair {i, j} (|i - j| <= half_bandwidth) is present is a
// hash of the unordered pair, so the pattern is symmetric and each row decides its entries alone
// (no communication between rows, any thread count). Values are symmetric with the diagonal
// 1 + sum of |off-diagonals|: strictly diagonally dominant, SPD.
#include <algorithm>
#include <cmath>

#include "build.hpp"
#include "random.hpp"
#include "spx/generate.hpp"

namespace spx::gen {
namespace {
constexpr std::string_view kName = "banded";
}

template <class T, class I>
Csr<T, I> banded(I n, I half_bandwidth, double density, uint64_t seed) {
  detail::require(n >= 0, kName, "n", n, "must be >= 0");
  detail::require(half_bandwidth >= 0, kName, "half_bandwidth (bw)", half_bandwidth, "must be >= 0");
  detail::require(density > 0 && density <= 1, kName, "density", density, "must be in (0, 1]");
  const int64_t size = n;
  const int64_t bw = std::min<int64_t>(half_bandwidth, std::max<int64_t>(size - 1, 0));
  // Expected nnz, checked before allocating (the exact count is checked again below).
  const double expected = static_cast<double>(size) * (1.0 + 2.0 * static_cast<double>(bw) * density);
  detail::require_fits<I>(static_cast<int64_t>(std::min(expected, 9.0e18)), kName, "expected nnz");

  const uint64_t pattern_key = detail::stream_key(seed, detail::Salt::Pattern);
  const uint64_t value_key = detail::stream_key(seed, detail::Salt::Values);
  const detail::Chance keep(density);
  const auto present = [&](int64_t row, int64_t col) {
    if (row == col) return true;
    const auto lo = static_cast<uint64_t>(std::min(row, col)), hi = static_cast<uint64_t>(std::max(row, col));
    return keep(detail::hash_pair(pattern_key, lo, hi));
  };

  Csr<T, I> A = detail::empty_shape<T, I>(size, size, kName);
  const bool threads = expected >= static_cast<double>(detail::kParallelWork);
#pragma omp parallel for if (threads) schedule(static)
  for (int64_t row = 0; row < size; ++row) {
    const int64_t first = std::max<int64_t>(0, row - bw), last = std::min(size - 1, row + bw);
    int64_t length = 0;
    for (int64_t col = first; col <= last; ++col) length += present(row, col);
    A.row_ptr[row + 1] = static_cast<I>(length);
  }
  detail::lengths_to_offsets(A, kName);

#pragma omp parallel for if (threads) schedule(static)
  for (int64_t row = 0; row < size; ++row) {
    const int64_t first = std::max<int64_t>(0, row - bw), last = std::min(size - 1, row + bw);
    int64_t k = A.row_ptr[row], diagonal_at = k;
    double off_diagonal_sum = 0;
    for (int64_t col = first; col <= last; ++col) {
      if (!present(row, col)) continue;
      A.col_idx[k] = static_cast<I>(col);
      if (col == row) {
        diagonal_at = k;
      } else {
        const double v =
            detail::symmetric_value(value_key, static_cast<uint64_t>(row), static_cast<uint64_t>(col));
        A.values[k] = static_cast<T>(v);
        off_diagonal_sum += std::abs(v);
      }
      ++k;
    }
    A.values[diagonal_at] = static_cast<T>(1.0 + off_diagonal_sum);
  }
  return A;
}

template Csr<float, int32_t> banded<float, int32_t>(int32_t, int32_t, double, uint64_t);
template Csr<float, int64_t> banded<float, int64_t>(int64_t, int64_t, double, uint64_t);
template Csr<double, int32_t> banded<double, int32_t>(int32_t, int32_t, double, uint64_t);
template Csr<double, int64_t> banded<double, int64_t>(int64_t, int64_t, double, uint64_t);

}  // namespace spx::gen
