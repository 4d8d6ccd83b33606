// Matrix features on the host: one parallel pass over 32-row windows (row lengths, SELL-32 slots,
// sectors, the window bitmaps, the column bitset), then the column bitset's counts and the HYB
// split. The device pass (src/cuda/plan/features.cu) follows the same rules (features_detail.hpp)
// and finishes its counts with the functions defined here, so the two agree exactly.
#include "spx/features.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/name_value_lines.hpp"
#include "plan/features_detail.hpp"
#include "spx/error.hpp"

namespace spx {
namespace detail::feature_rules {

const std::vector<int64_t>& linear_counting_table() {
  static const std::vector<int64_t> table = [] {
    constexpr int64_t m = MatrixFeatures::kWindowBitmapBits;
    std::vector<int64_t> t(static_cast<std::size_t>(m) + 1);
    // 1 - z/m is exact in double (z/m is a multiple of 2^-12), so this is one rounding of a log.
    for (int64_t z = 0; z < m; ++z)
      t[static_cast<std::size_t>(z)] = std::llround(
          -static_cast<double>(m) * std::log(1.0 - static_cast<double>(z) / static_cast<double>(m)));
    t[static_cast<std::size_t>(m)] = std::numeric_limits<int64_t>::max();
    return t;
  }();
  return table;
}

// Below this many rows a COO pass costs no more than ELL (Bell & Garland; spx::hyb_ell_width).
constexpr int64_t kBreakevenRows = 4096;

int64_t hyb_top_bin(int64_t rows, int64_t nnz) { return rows < kBreakevenRows ? -1 : 3 * nnz / rows + 1; }

HybSplit hyb_split(int64_t rows, std::span<const int64_t> hist) {
  HybSplit s;
  if (hist.empty()) return s;
  const auto top = static_cast<int64_t>(hist.size()) - 1;
  // Largest K with at least max(4096, rows/3) rows of length >= K ("rows/3" exactly: 3*count >= rows).
  int64_t at_least = 0;
  for (int64_t k = top; k > 0; --k) {
    at_least += hist[static_cast<std::size_t>(k)];
    if (at_least >= kBreakevenRows && 3 * at_least >= rows) {
      s.width = k;
      break;
    }
  }
  // width < top, so every row of the top bin keeps exactly `width` entries in ELL.
  for (int64_t k = 0; k <= top; ++k) s.ell_nnz += std::min(k, s.width) * hist[static_cast<std::size_t>(k)];
  return s;
}

}  // namespace detail::feature_rules

namespace {

namespace rules = detail::feature_rules;

constexpr int kGranularities = MatrixFeatures::kGranularities;

// One thread's share of the pass, merged at the end.
struct Partial {
  int64_t min_row = std::numeric_limits<int64_t>::max();
  int64_t max_row = 0;
  int64_t empty_rows = 0;
  uint64_t sum_sq_row = 0;
  int64_t sell_slots = 0;
  std::array<RowLengthBucket, MatrixFeatures::kBuckets> buckets{};
  std::array<int64_t, kGranularities> row_sectors{};
  std::array<int64_t, kGranularities> window_sectors{};
  std::vector<int64_t> hist;  // HYB row-length histogram (hyb_top_bin + 1 bins; empty below 4096 rows)
};

std::vector<uint64_t> column_bitset(int64_t cols) {
  const auto words = static_cast<std::size_t>((cols + 63) / 64);
  try {
    return std::vector<uint64_t>(words, 0);
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("features: cannot allocate the column bitset ({} bytes for {} columns)",
                            words * sizeof(uint64_t), cols));
  } catch (const std::length_error&) {
    throw Error(fmt::format("features: the column bitset for {} columns is too large", cols));
  }
}

// Several threads mark columns in one bitset: a relaxed fetch_or, skipped when the bit is already
// set (most columns recur, so most marks are only a load).
inline void mark_column(std::vector<uint64_t>& bits, uint64_t col) {
  std::atomic_ref<uint64_t> word(bits[static_cast<std::size_t>(col >> 6)]);
  const uint64_t bit = uint64_t{1} << (col & 63);
  if ((word.load(std::memory_order_relaxed) & bit) == 0) word.fetch_or(bit, std::memory_order_relaxed);
}

template <class T, class I>
void window_pass(const Csr<T, I>& A, int64_t top_bin, std::vector<uint64_t>& col_bits, Partial& total) {
  constexpr int64_t kWindowRows = MatrixFeatures::kWindowRows;
  constexpr int kBitmapWords = MatrixFeatures::kWindowBitmapBits / 64;
  const int64_t rows = A.rows;
  const int64_t windows = (rows + kWindowRows - 1) / kWindowRows;
  const std::vector<int64_t>& estimate = rules::linear_counting_table();
  if (top_bin >= 0) total.hist.assign(static_cast<std::size_t>(top_bin) + 1, 0);
#pragma omp parallel
  {
    Partial part;
    part.hist.assign(total.hist.size(), 0);
    uint64_t bitmap[kGranularities][kBitmapWords] = {};
    // Windows differ in nonzeros (power-law rows): hand them out in small dynamic chunks.
#pragma omp for schedule(dynamic, 16) nowait
    for (int64_t w = 0; w < windows; ++w) {
      const int64_t first = w * kWindowRows, last = std::min(first + kWindowRows, rows);
      int64_t longest = 0;                              // the window is also a SELL-32 slice
      int64_t window_row_sectors[kGranularities] = {};  // caps the window's estimate
      for (int64_t r = first; r < last; ++r) {
        const int64_t begin = A.row_ptr[r], end = A.row_ptr[r + 1], len = end - begin;
        longest = std::max(longest, len);
        part.min_row = std::min(part.min_row, len);
        part.max_row = std::max(part.max_row, len);
        if (len == 0) ++part.empty_rows;
        part.sum_sq_row += static_cast<uint64_t>(len) * static_cast<uint64_t>(len);
        RowLengthBucket& bucket =
            part.buckets[static_cast<std::size_t>(rules::length_bucket(static_cast<uint64_t>(len)))];
        ++bucket.rows;
        bucket.nnz += len;
        if (top_bin >= 0) ++part.hist[static_cast<std::size_t>(std::min(len, top_bin))];
        // Columns are sorted, so a row's distinct sectors are its sector changes. A sector seen
        // again in the same row is already in the window's bitmap: only changes set bits.
        uint64_t previous[kGranularities];
        std::fill_n(previous, kGranularities, ~uint64_t{0});  // no sector: a column is below 2^63
        for (int64_t p = begin; p < end; ++p) {
          const auto col = static_cast<uint64_t>(A.col_idx[p]);
          mark_column(col_bits, col);
          for (int k = 0; k < kGranularities; ++k) {
            const uint64_t sector = col >> rules::sector_shift(k);
            if (sector == previous[k]) continue;
            previous[k] = sector;
            ++window_row_sectors[k];
            const unsigned bit = rules::window_bitmap_bit(sector);
            bitmap[k][bit >> 6] |= uint64_t{1} << (bit & 63);
          }
        }
      }
      part.sell_slots += kWindowRows * longest;
      for (int k = 0; k < kGranularities; ++k) {
        int64_t z = 0;
        for (uint64_t& word : bitmap[k]) {
          z += rules::popcount64(word);
          word = 0;
        }
        const auto g = static_cast<std::size_t>(k);
        part.row_sectors[g] += window_row_sectors[k];
        part.window_sectors[g] +=
            rules::window_estimate(window_row_sectors[k], estimate[static_cast<std::size_t>(z)]);
      }
    }
#pragma omp critical(spx_features_merge)
    {
      total.min_row = std::min(total.min_row, part.min_row);
      total.max_row = std::max(total.max_row, part.max_row);
      total.empty_rows += part.empty_rows;
      total.sum_sq_row += part.sum_sq_row;
      total.sell_slots += part.sell_slots;
      for (std::size_t b = 0; b < total.buckets.size(); ++b) {
        total.buckets[b].rows += part.buckets[b].rows;
        total.buckets[b].nnz += part.buckets[b].nnz;
      }
      for (std::size_t k = 0; k < total.row_sectors.size(); ++k) {
        total.row_sectors[k] += part.row_sectors[k];
        total.window_sectors[k] += part.window_sectors[k];
      }
      for (std::size_t b = 0; b < total.hist.size(); ++b) total.hist[b] += part.hist[b];
    }
  }
}

}  // namespace

double MatrixFeatures::avg_row() const {
  return rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
}

double MatrixFeatures::stddev_row() const {
  if (rows <= 0) return 0.0;
  // Variance = (rows * sum_sq - nnz^2) / rows^2, numerator exact in 128 bits (>= 0 by
  // Cauchy–Schwarz): no cancellation, whatever the row lengths.
  __extension__ using u128 = unsigned __int128;
  const u128 numerator =
      static_cast<u128>(rows) * sum_sq_row - static_cast<u128>(nnz) * static_cast<u128>(nnz);
  const double r = static_cast<double>(rows);
  return std::sqrt(static_cast<double>(numerator) / r / r);
}

template <class T, class I>
MatrixFeatures features(const Csr<T, I>& A) {
  A.validate();
  MatrixFeatures f;
  f.rows = A.rows;
  f.cols = A.cols;
  f.nnz = A.nnz();
  const int64_t top_bin = rules::hyb_top_bin(f.rows, f.nnz);
  std::vector<uint64_t> col_bits = column_bitset(f.nnz > 0 ? f.cols : 0);
  Partial total;
  window_pass(A, top_bin, col_bits, total);
  if (f.rows > 0) {
    f.min_row = total.min_row;
    f.max_row = total.max_row;
  }
  f.empty_rows = total.empty_rows;
  f.sum_sq_row = total.sum_sq_row;
  f.length_buckets = total.buckets;
  f.row_sectors = total.row_sectors;
  f.window_sectors = total.window_sectors;
  const rules::HybSplit hyb = rules::hyb_split(f.rows, total.hist);
  f.hyb_width = hyb.width;
  f.hyb_ell_nnz = hyb.ell_nnz;
  f.sell_slots = total.sell_slots;
  const auto words = static_cast<int64_t>(col_bits.size());
  // x_sectors[kColumn] counts the same bits as nonempty_cols, but through touched_sectors like the
  // other granularities: the tests' identity x_sectors[kColumn] == nonempty_cols checks that rule.
  int64_t nonempty = 0, f32 = 0, f64 = 0, columns = 0;
#pragma omp parallel for reduction(+ : nonempty, f32, f64, columns) schedule(static)
  for (int64_t j = 0; j < words; ++j) {
    const uint64_t word = col_bits[static_cast<std::size_t>(j)];
    nonempty += rules::popcount64(word);
    f32 += rules::touched_sectors(word, MatrixFeatures::kF32);
    f64 += rules::touched_sectors(word, MatrixFeatures::kF64);
    columns += rules::touched_sectors(word, MatrixFeatures::kColumn);
  }
  f.nonempty_cols = nonempty;
  f.x_sectors = {f32, f64, columns};
  return f;
}

namespace {
// "len_0", "len_1", "len_2-3", ..., "len_2147483648+": the lengths bucket b holds.
std::string bucket_name(int b) {
  if (b == 0) return "len_0";
  const uint64_t low = uint64_t{1} << (b - 1);
  if (b == MatrixFeatures::kBuckets - 1) return fmt::format("len_{}+", low);
  if (low == 1) return "len_1";
  return fmt::format("len_{}-{}", low, 2 * low - 1);
}
}  // namespace

std::string to_string(const MatrixFeatures& f) {
  std::vector<std::pair<std::string, std::string>> lines = {
      {"rows", fmt::format("{}", f.rows)},
      {"cols", fmt::format("{}", f.cols)},
      {"nnz", fmt::format("{}", f.nnz)},
      {"min_row", fmt::format("{}", f.min_row)},
      {"max_row", fmt::format("{}", f.max_row)},
      {"avg_row", fmt::format("{:.6g}", f.avg_row())},
      {"stddev_row", fmt::format("{:.6g}", f.stddev_row())},
      {"empty_rows", fmt::format("{}", f.empty_rows)},
      {"sum_sq_row", fmt::format("{}", f.sum_sq_row)},
      {"hyb_width", fmt::format("{}", f.hyb_width)},
      {"hyb_ell_nnz", fmt::format("{}", f.hyb_ell_nnz)},
      {"sell_slots", fmt::format("{}", f.sell_slots)},
      {"nonempty_cols", fmt::format("{}", f.nonempty_cols)},
  };
  constexpr std::array<std::string_view, kGranularities> suffix = {"f32", "f64", "col"};
  static_assert(MatrixFeatures::kF32 == 0 && MatrixFeatures::kF64 == 1 && MatrixFeatures::kColumn == 2);
  for (const auto& [name, values] :
       {std::pair{"x_sectors", &f.x_sectors}, std::pair{"row_sectors", &f.row_sectors},
        std::pair{"window_sectors", &f.window_sectors}})
    for (std::size_t k = 0; k < suffix.size(); ++k)
      lines.emplace_back(fmt::format("{}_{}", name, suffix[k]), fmt::format("{}", (*values)[k]));
  for (int b = 0; b < MatrixFeatures::kBuckets; ++b) {
    const RowLengthBucket& bucket = f.length_buckets[static_cast<std::size_t>(b)];
    if (bucket.rows > 0)
      lines.emplace_back(bucket_name(b), fmt::format("{} rows, {} nnz", bucket.rows, bucket.nnz));
  }
  return detail::name_value_lines(lines);
}

std::ostream& operator<<(std::ostream& os, const MatrixFeatures& f) { return os << to_string(f); }

template MatrixFeatures features(const Csr<float, int32_t>&);
template MatrixFeatures features(const Csr<float, int64_t>&);
template MatrixFeatures features(const Csr<double, int32_t>&);
template MatrixFeatures features(const Csr<double, int64_t>&);

}  // namespace spx
