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

#include "common/host_parallel.hpp"
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
  // Version tags: change one whenever its hashed sequence changes, so stale tuning caches miss.
  // fpv2: each row hashed on its own (row_hash), the rows' hashes then folded in order.
  static constexpr uint64_t kStructureSeed = 0x7370782d66707632ULL;  // "spx-fpv2"
  static constexpr uint64_t kRowSeed = 0x7370782d72777632ULL;        // "spx-rwv2"
  static constexpr uint64_t kRowLengthSeed = 0x7370782d726c7631ULL;  // "spx-rlv1"
  explicit Fingerprint(uint64_t seed = kStructureSeed) : state_(splitmix64(seed)) {}
  void add(uint64_t value) { state_ = splitmix64(state_ ^ value); }
  uint64_t value() const { return state_; }

 private:
  uint64_t state_;
};

// Rows hashed a block at a time (in parallel within a block: each row's chain is independent of
// the others', so the result does not depend on the thread count), then folded in row order. The
// block bounds the scratch whatever the row count.
constexpr int64_t kFingerprintRowsPerBlock = int64_t{1} << 16;
// Rows handed out at a time where row lengths may be skewed (an R-MAT graph's first rows hold most
// of its nonzeros: static halves leave one thread most of the work).
constexpr int64_t kSkewedRowsPerChunk = 256;

// A row's hash: splitmix64 of each column xored with a key of its position in the row, summed, then
// folded with the row's length. No nonzero waits for another's hash (fpv1 chained them: one
// dependent splitmix64 a nonzero), and since splitmix64 is a bijection one changed column changes
// its term, its row's hash and so the fingerprint. Every value is widened to 64 bits first, so int32
// and int64 copies of a pattern agree.
template <class I>
uint64_t row_hash(const I* cols, int64_t len) {
  constexpr uint64_t kPositionStep = 0x9E3779B97F4A7C15ULL;  // 2^64 / golden ratio: distinct keys
  uint64_t sum = 0;
  for (int64_t j = 0; j < len; ++j)
    sum += splitmix64(static_cast<uint64_t>(cols[j]) ^ (static_cast<uint64_t>(j + 1) * kPositionStep));
  return splitmix64(splitmix64(Fingerprint::kRowSeed ^ static_cast<uint64_t>(len)) ^ sum);
}

template <class T, class I>
uint64_t fingerprint_of_valid(const Csr<T, I>& A) {
  Fingerprint h;
  h.add(static_cast<uint64_t>(A.rows));
  h.add(static_cast<uint64_t>(A.cols));
  const int64_t rows = A.rows;
  std::vector<uint64_t> hashes(static_cast<std::size_t>(std::min(rows, kFingerprintRowsPerBlock)));
  for (int64_t first = 0; first < rows; first += kFingerprintRowsPerBlock) {
    const int64_t last = std::min(rows, first + kFingerprintRowsPerBlock);
    const bool parallel =
        static_cast<int64_t>(A.row_ptr[last] - A.row_ptr[first]) >= detail::kMinParallelItems;
#pragma omp parallel for schedule(dynamic, kSkewedRowsPerChunk) if (parallel)
    for (int64_t r = first; r < last; ++r)
      hashes[static_cast<std::size_t>(r - first)] =
          row_hash(A.col_idx.data() + A.row_ptr[r], static_cast<int64_t>(A.row_ptr[r + 1] - A.row_ptr[r]));
    for (int64_t r = first; r < last; ++r) h.add(hashes[static_cast<std::size_t>(r - first)]);
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
  const int64_t rows = A.rows;
  // Integer minima, maxima and counts: the same whatever the threads and their order.
  int64_t min_row = rows > 0 ? A.row_length(0) : 0, max_row = 0, empty_rows = 0;
  int64_t lower = 0, upper = 0;
#pragma omp parallel for schedule(static) reduction(min : min_row) reduction(max : max_row, lower, upper) \
    reduction(+ : empty_rows) if (rows >= detail::kMinParallelItems)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len = static_cast<int64_t>(A.row_ptr[r + 1] - A.row_ptr[r]);
    min_row = std::min(min_row, len);
    max_row = std::max(max_row, len);
    if (len == 0) ++empty_rows;
    if (len > 0) {
      // Columns are sorted: the first entry is the farthest left, the last the farthest right.
      lower = std::max<int64_t>(lower, r - A.col_idx[A.row_ptr[r]]);
      upper = std::max<int64_t>(upper, A.col_idx[A.row_ptr[r + 1] - 1] - r);
    }
  }
  s.min_row = min_row;
  s.max_row = max_row;
  s.empty_rows = empty_rows;
  s.lower_bandwidth = lower;
  s.upper_bandwidth = upper;
  s.bandwidth = std::max(s.lower_bandwidth, s.upper_bandwidth);
  if (A.rows > 0) {
    s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
    // Two passes (mean, then squared deviations): no cancellation for long, uniform rows. Summed in
    // row order on one thread, so the bits do not depend on the threads (O(rows), reads row_ptr only).
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
