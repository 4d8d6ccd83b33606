// Power-law (Zipf) row lengths, as web and social graphs have: most rows short, a few enormous.
//
// Each row length is round(X), X the inverse CDF of the density x^-exponent on a window [lo, hi),
// the discrete Zipf law P(len = k) ~ k^-exponent in continuous form. The window is fitted
// (bisection on the closed-form mean) so the mean row length is avg_row: for heavy tails it is
// [0.5, hi) with hi <= n + 0.5 (the tail is cut where the mean says), for light tails
// [lo, n + 0.5). Rows take stratified quantiles in random order (see row_length below); columns
// are distinct and uniform at random. Structure decisions use det_math (own log/exp), so the
// pattern is bitwise reproducible across platforms.
#include <algorithm>
#include <cmath>
#include <vector>

#include "build.hpp"
#include "det_math.hpp"
#include "random.hpp"
#include "sampling.hpp"
#include "spx/generate.hpp"

namespace spx::gen {
namespace {

constexpr std::string_view kName = "power_law";
// Past this exponent every row but a vanishing few has the shortest length: the law is a
// constant, and x^-exponent underflows the window fit (1e5 made it NaN and every row length 1).
constexpr double kMaxExponent = 100;

bool near_zero(double e) { return e > -1e-9 && e < 1e-9; }

// Integral of x^power over [lo, hi].
double power_integral(double lo, double hi, double power) {
  const double e = power + 1;
  if (near_zero(e)) return detail::det_log(hi / lo);
  return (detail::det_pow(hi, e) - detail::det_pow(lo, e)) / e;
}

double mean_on(double lo, double hi, double exponent) {
  return power_integral(lo, hi, 1 - exponent) / power_integral(lo, hi, -exponent);
}

// The length distribution: a window [lo, hi) of the density x^-exponent.
class ZipfLengths {
 public:
  ZipfLengths(double exponent, double avg_row, int64_t max_len) : e_(1 - exponent), max_len_(max_len) {
    double lo = 0.5, hi = static_cast<double>(max_len) + 0.5;
    // The mean grows with either end of the window; move the one that can reach avg_row.
    const bool shrink_top = mean_on(lo, hi, exponent) >= avg_row;
    double below = lo, above = hi;
    for (int iteration = 0; iteration < 200 && below < above; ++iteration) {
      const double mid = below + (above - below) / 2;
      if (mid <= below || mid >= above) break;
      const double mean = shrink_top ? mean_on(lo, mid, exponent) : mean_on(mid, hi, exponent);
      (mean < avg_row ? below : above) = mid;
    }
    if (shrink_top) {
      hi = above;
    } else {
      lo = below;
    }
    lo_ = lo;
    log_ratio_ = detail::det_log(hi / lo);
    lo_e_ = near_zero(e_) ? 0 : detail::det_pow(lo, e_);
    hi_e_ = near_zero(e_) ? 0 : detail::det_pow(hi, e_);
  }

  int64_t operator()(double u) const {
    const double x = near_zero(e_) ? lo_ * detail::det_exp(u * log_ratio_)
                                   : detail::det_pow(lo_e_ + u * (hi_e_ - lo_e_), 1 / e_);
    const double rounded = std::floor(x + 0.5);
    if (!(rounded >= 1)) return 1;
    return rounded >= static_cast<double>(max_len_) ? max_len_ : static_cast<int64_t>(rounded);
  }

 private:
  double e_, lo_ = 0, log_ratio_ = 0, lo_e_ = 0, hi_e_ = 0;
  int64_t max_len_;
};

// A pseudo-random bijection of [0, n): a 4-round Feistel network on the smallest even number of
// bits covering n, walking the cycle until the value falls inside [0, n) (at most 4x domain).
class RowPermutation {
 public:
  RowPermutation(uint64_t key, uint64_t n) : key_(key), n_(n) {
    while ((uint64_t{1} << (2 * half_bits_)) < n) ++half_bits_;
    mask_ = (uint64_t{1} << half_bits_) - 1;
  }
  uint64_t operator()(uint64_t x) const {
    do x = feistel(x);
    while (x >= n_);
    return x;
  }

 private:
  uint64_t feistel(uint64_t x) const {
    uint64_t left = x >> half_bits_, right = x & mask_;
    for (uint64_t round = 0; round < 4; ++round) {
      const uint64_t mixed = left ^ (detail::hash_pair(key_, round, right) & mask_);
      left = right;
      right = mixed;
    }
    return (left << half_bits_) | right;
  }
  uint64_t key_, n_, mask_ = 0;
  int half_bits_ = 1;
};

}  // namespace

template <class T, class I>
Csr<T, I> power_law(I n, double avg_row, double exponent, uint64_t seed) {
  detail::require(n >= 0, kName, "n", n, "must be >= 0");
  detail::require(std::isfinite(exponent) && exponent > 0 && exponent <= kMaxExponent, kName,
                  "exponent (exp)", exponent, fmt::format("must be in (0, {}]", kMaxExponent));
  detail::require(n == 0 || (avg_row >= 1 && avg_row <= static_cast<double>(n)), kName, "avg_row (avg)",
                  avg_row, fmt::format("must be in [1, n = {}]", n));
  const int64_t size = n;
  detail::require_fits<I>(static_cast<int64_t>(std::min(static_cast<double>(size) * avg_row, 9.0e18)), kName,
                          "expected nnz (n*avg_row)");
  Csr<T, I> A = detail::empty_shape<T, I>(size, size, kName);
  if (size == 0) return A;
  const bool threads = detail::worth_threads(static_cast<int64_t>(static_cast<double>(size) * avg_row));

  const ZipfLengths lengths(exponent, avg_row, size);
  const uint64_t length_key = detail::stream_key(seed, detail::Salt::Rows);
  const uint64_t column_key = detail::stream_key(seed, detail::Salt::Pattern);
  const uint64_t value_key = detail::stream_key(seed, detail::Salt::Values);
  // Stratified quantiles: row r takes the u from stratum perm(r) of n equal strata, so the
  // realized lengths follow the law closely (the mean of a heavy tail drawn independently
  // wanders by 10% at a million rows) while the long rows still land at random positions.
  const RowPermutation stratum(detail::stream_key(seed, detail::Salt::RowPlacement),
                               static_cast<uint64_t>(size));
  const auto row_length = [&](int64_t row) {
    detail::Rng rng(length_key, static_cast<uint64_t>(row));
    const double u =
        (static_cast<double>(stratum(static_cast<uint64_t>(row))) + rng.unit()) / static_cast<double>(size);
    return lengths(u);
  };

#pragma omp parallel for if (threads) schedule(static)
  for (int64_t row = 0; row < size; ++row) A.row_ptr[row + 1] = static_cast<I>(row_length(row));
  detail::lengths_to_offsets(A, kName);

#pragma omp parallel if (threads)
  {
    std::vector<int64_t> columns, scratch;
#pragma omp for schedule(dynamic, 256)
    for (int64_t row = 0; row < size; ++row) {
      detail::fill_random_row(A, row, size, row_length(row), column_key, value_key, columns, scratch);
    }
  }
  return A;
}

template Csr<float, int32_t> power_law<float, int32_t>(int32_t, double, double, uint64_t);
template Csr<float, int64_t> power_law<float, int64_t>(int64_t, double, double, uint64_t);
template Csr<double, int32_t> power_law<double, int32_t>(int32_t, double, double, uint64_t);
template Csr<double, int64_t> power_law<double, int64_t>(int64_t, double, double, uint64_t);

}  // namespace spx::gen
