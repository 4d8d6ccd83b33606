// Matrix statistics and the structure fingerprint.
#include "spx/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/name_value_lines.hpp"
#include "common/splitmix64.hpp"

namespace spx {
namespace {

using spx::detail::splitmix64;  // src/common/splitmix64.hpp: a bijection with full avalanche

// Chained as h = splitmix64(h ^ value). Because splitmix64 is a bijection, two sequences of equal length
// that differ in exactly one value always hash differently (one changed column always changes the
// fingerprint); other collisions are as unlikely as for a random 64-bit function.
class Fingerprint {
 public:
  // Version tag: change it whenever the hashed sequence changes, so stale tuning caches miss.
  static constexpr uint64_t kStructureSeed = 0x7370782d66707631ULL;  // "spx-fpv1"
  static constexpr uint64_t kRowLengthSeed = 0x7370782d726c7631ULL;  // "spx-rlv1"
  explicit Fingerprint(uint64_t seed = kStructureSeed) : state_(splitmix64(seed)) {}
  void add(uint64_t value) { state_ = splitmix64(state_ ^ value); }
  uint64_t value() const { return state_; }

 private:
  uint64_t state_;
};

// Every value is widened to 64 bits first, so int32 and int64 copies of a pattern agree.
template <class T, class I>
uint64_t fingerprint_of_valid(const Csr<T, I>& A) {
  Fingerprint h;
  h.add(static_cast<uint64_t>(A.rows));
  h.add(static_cast<uint64_t>(A.cols));
  for (I r = 0; r < A.rows; ++r) {
    h.add(static_cast<uint64_t>(A.row_length(r)));
    for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p) h.add(static_cast<uint64_t>(A.col_idx[p]));
  }
  return h.value();
}

}  // namespace

uint64_t row_length_fingerprint(int64_t rows, int64_t cols, std::span<const int64_t> row_ptr) {
  Fingerprint h(Fingerprint::kRowLengthSeed);
  h.add(static_cast<uint64_t>(rows));
  h.add(static_cast<uint64_t>(cols));
  for (std::size_t r = 0; r + 1 < row_ptr.size(); ++r)
    h.add(static_cast<uint64_t>(row_ptr[r + 1] - row_ptr[r]));
  return h.value();
}

template <class T, class I>
uint64_t structure_fingerprint(const Csr<T, I>& A) {
  A.validate();
  return fingerprint_of_valid(A);
}

template <class T, class I>
MatrixStats stats(const Csr<T, I>& A) {
  A.validate();
  MatrixStats s;
  s.rows = A.rows;
  s.cols = A.cols;
  s.nnz = A.nnz();
  if (A.rows > 0) s.min_row = A.row_length(0);
  for (I r = 0; r < A.rows; ++r) {
    const int64_t len = A.row_length(r);
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    if (len == 0) ++s.empty_rows;
    if (len > 0) {
      // Columns are sorted: the first entry is the farthest left, the last the farthest right.
      s.lower_bandwidth = std::max<int64_t>(s.lower_bandwidth, r - A.col_idx[A.row_ptr[r]]);
      s.upper_bandwidth = std::max<int64_t>(s.upper_bandwidth, A.col_idx[A.row_ptr[r + 1] - 1] - r);
    }
  }
  s.bandwidth = std::max(s.lower_bandwidth, s.upper_bandwidth);
  if (A.rows > 0) {
    s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
    // Two passes (mean, then squared deviations): no cancellation for long, uniform rows.
    double sum_sq = 0;
    for (I r = 0; r < A.rows; ++r) {
      const double d = static_cast<double>(A.row_length(r)) - s.avg_row;
      sum_sq += d * d;
    }
    s.stddev_row = std::sqrt(sum_sq / static_cast<double>(s.rows));
  }
  if (s.nnz > 0) {
    s.ell_padding_ratio =
        static_cast<double>(s.rows) * static_cast<double>(s.max_row) / static_cast<double>(s.nnz);
  }
  s.fingerprint = fingerprint_of_valid(A);
  return s;
}

std::string to_string(const MatrixStats& s) {
  const std::pair<std::string_view, std::string> lines[] = {
      {"rows", fmt::format("{}", s.rows)},
      {"cols", fmt::format("{}", s.cols)},
      {"nnz", fmt::format("{}", s.nnz)},
      {"min_row", fmt::format("{}", s.min_row)},
      {"max_row", fmt::format("{}", s.max_row)},
      {"avg_row", fmt::format("{:.6g}", s.avg_row)},
      {"stddev_row", fmt::format("{:.6g}", s.stddev_row)},
      {"empty_rows", fmt::format("{}", s.empty_rows)},
      {"lower_bandwidth", fmt::format("{}", s.lower_bandwidth)},
      {"upper_bandwidth", fmt::format("{}", s.upper_bandwidth)},
      {"bandwidth", fmt::format("{}", s.bandwidth)},
      {"ell_padding_ratio", fmt::format("{:.6g}", s.ell_padding_ratio)},
      {"fingerprint", fmt::format("{:016x}", s.fingerprint)},
  };
  return detail::name_value_lines(lines);
}

std::ostream& operator<<(std::ostream& os, const MatrixStats& s) { return os << to_string(s); }

template MatrixStats stats(const Csr<float, int32_t>&);
template MatrixStats stats(const Csr<float, int64_t>&);
template MatrixStats stats(const Csr<double, int32_t>&);
template MatrixStats stats(const Csr<double, int64_t>&);
template uint64_t structure_fingerprint(const Csr<float, int32_t>&);
template uint64_t structure_fingerprint(const Csr<float, int64_t>&);
template uint64_t structure_fingerprint(const Csr<double, int32_t>&);
template uint64_t structure_fingerprint(const Csr<double, int64_t>&);

}  // namespace spx
