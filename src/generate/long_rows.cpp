// Irregular extremes: a few very long rows among many short and empty ones. This is the case that
// breaks one-thread-per-row and one-warp-per-row kernels and that load-balanced (merge-path,
// segmented-sum) kernels exist for; the long rows sit at random positions so no kernel can luck
// into them being first or last.
#include <vector>

#include "build.hpp"
#include "random.hpp"
#include "sampling.hpp"
#include "spx/generate.hpp"

namespace spx::gen {
namespace {

constexpr std::string_view kName = "long_rows";

enum class RowKind : uint8_t { Short, Long, Empty };

// Exactly `long_count` long and `empty_count` empty rows, placed uniformly at random: each row
// takes a kind with probability (kind still needed) / (rows left), a one-pass selection sample
// (Knuth's Algorithm S) that gives every placement the same chance.
std::vector<RowKind> row_kinds(uint64_t key, int64_t rows, int64_t long_count, int64_t empty_count) {
  std::vector<RowKind> kinds(static_cast<std::size_t>(rows), RowKind::Short);
  detail::Rng rng(key, 0);
  for (int64_t row = 0; row < rows && long_count + empty_count > 0; ++row) {
    const auto pick = static_cast<int64_t>(rng.below(static_cast<uint64_t>(rows - row)));
    if (pick < long_count) {
      kinds[row] = RowKind::Long;
      --long_count;
    } else if (pick < long_count + empty_count) {
      kinds[row] = RowKind::Empty;
      --empty_count;
    }
  }
  return kinds;
}

}  // namespace

template <class T, class I>
Csr<T, I> long_rows(I rows, I cols, I long_rows, I long_len, double empty_fraction, I short_len,
                    uint64_t seed) {
  detail::require(rows >= 0, kName, "rows", rows, "must be >= 0");
  detail::require(cols >= 0, kName, "cols", cols, "must be >= 0");
  detail::require(long_rows >= 0 && long_rows <= rows, kName, "long_rows (long)", long_rows,
                  fmt::format("must be in 0..rows = {}", rows));
  detail::require(long_len >= 0 && long_len <= cols, kName, "long_len (len)", long_len,
                  fmt::format("must be in 0..cols = {}", cols));
  detail::require(short_len >= 0 && short_len <= cols, kName, "short_len (short)", short_len,
                  fmt::format("must be in 0..cols = {}", cols));
  detail::require(empty_fraction >= 0 && empty_fraction <= 1, kName, "empty_fraction (empty)", empty_fraction,
                  "must be in [0, 1]");

  const int64_t long_count = long_rows, others = int64_t{rows} - long_count;
  const int64_t empty_count =
      std::min(others, static_cast<int64_t>(empty_fraction * static_cast<double>(others) + 0.5));
  const int64_t short_count = others - empty_count;
  const int64_t nnz =
      detail::checked_add(detail::checked_mul(long_count, long_len, kName, "nnz"),
                          detail::checked_mul(short_count, short_len, kName, "nnz"), kName, "nnz");
  detail::require_fits<I>(nnz, kName, "nnz (long_rows*long_len + short rows*short_len)");

  Csr<T, I> A = detail::empty_shape<T, I>(rows, cols, kName);
  const bool threads = detail::worth_threads(nnz + rows);
  const std::vector<RowKind> kinds =
      row_kinds(detail::stream_key(seed, detail::Salt::RowPlacement), rows, long_count, empty_count);
  const auto length_of = [&](int64_t row) -> int64_t {
    switch (kinds[row]) {
      case RowKind::Long:
        return long_len;
      case RowKind::Empty:
        return 0;
      default:
        return short_len;
    }
  };
#pragma omp parallel for if (threads) schedule(static)
  for (int64_t row = 0; row < int64_t{rows}; ++row) A.row_ptr[row + 1] = static_cast<I>(length_of(row));
  detail::lengths_to_offsets(A, kName);

  const uint64_t column_key = detail::stream_key(seed, detail::Salt::Pattern);
  const uint64_t value_key = detail::stream_key(seed, detail::Salt::Values);
#pragma omp parallel if (threads)
  {
    std::vector<int64_t> columns, scratch;
#pragma omp for schedule(dynamic, 64)
    for (int64_t row = 0; row < int64_t{rows}; ++row) {
      detail::fill_random_row(A, row, cols, length_of(row), column_key, value_key, columns, scratch);
    }
  }
  return A;
}

template Csr<float, int32_t> long_rows<float, int32_t>(int32_t, int32_t, int32_t, int32_t, double, int32_t,
                                                       uint64_t);
template Csr<float, int64_t> long_rows<float, int64_t>(int64_t, int64_t, int64_t, int64_t, double, int64_t,
                                                       uint64_t);
template Csr<double, int32_t> long_rows<double, int32_t>(int32_t, int32_t, int32_t, int32_t, double, int32_t,
                                                         uint64_t);
template Csr<double, int64_t> long_rows<double, int64_t>(int64_t, int64_t, int64_t, int64_t, double, int64_t,
                                                         uint64_t);

}  // namespace spx::gen
