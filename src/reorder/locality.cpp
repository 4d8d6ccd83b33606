// The sampled locality statistic (spx/reorder.hpp): x sectors per window of rows, now and as
// estimated after RCM.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/host_parallel.hpp"
#include "spx/error.hpp"
#include "spx/reorder.hpp"

namespace spx::reorder {

namespace {
constexpr int kF64PerSector = 4;  // 32-byte sectors of doubles
}

double rcm_window_sectors(double window_rows, double avg_row, int values_per_sector) {
  const double run = std::ceil((window_rows + avg_row) / values_per_sector) + 1;
  return std::min(kRcmRunsPerWindow * run, std::max(window_rows * avg_row, 1.0));
}

namespace {

// Mean over sampled rows of |rows within two steps| / d^2 (following at most kTwoHopMaxNeighbours
// neighbours of the row, and of each neighbour, so d is capped there too). Columns were range-checked
// by the caller's sample only, so each is checked here before it is followed.
template <class T, class I>
double two_hop_growth(const Csr<T, I>& A) {
  const int64_t rows = A.rows;
  const int64_t step = std::max<int64_t>(1, rows / kTwoHopSampleRows);
  const auto row_span = [&](int64_t r) {
    const int64_t b = A.row_ptr[static_cast<std::size_t>(r)], e = A.row_ptr[static_cast<std::size_t>(r) + 1];
    if (b < 0 || b > e || static_cast<std::size_t>(e) > A.col_idx.size())
      throw Error(
          fmt::format("locality: row {} spans [{}, {}) of {} column indices", r, b, e, A.col_idx.size()));
    return std::pair{b, std::min(e, b + kTwoHopMaxNeighbours)};
  };
  // Each sampled row's ratio (-1: an empty row) on any thread, then added in row order, so the
  // result does not depend on the thread count.
  const int64_t samples = rows > step / 2 ? (rows - step / 2 + step - 1) / step : 0;
  std::vector<double> ratio(static_cast<std::size_t>(samples), -1.0);
  detail::for_items_first_error<std::vector<int64_t>>(
      samples, samples * kTwoHopMaxNeighbours * kTwoHopMaxNeighbours >= detail::kMinParallelItems,
      [&](int64_t i, std::vector<int64_t>& reach) {
        const int64_t r = step / 2 + i * step;
        const auto [b, e] = row_span(r);
        const int64_t d = e - b;
        if (d == 0) return;
        reach.clear();
        for (int64_t p = b; p < e; ++p) {
          const int64_t c = static_cast<int64_t>(A.col_idx[static_cast<std::size_t>(p)]);
          if (c < 0 || c >= rows)
            throw Error(fmt::format("locality: row {} has column {} outside 0..{}", r, c, rows - 1));
          reach.push_back(c);
          const auto [cb, ce] = row_span(c);
          for (int64_t q = cb; q < ce; ++q)
            reach.push_back(static_cast<int64_t>(A.col_idx[static_cast<std::size_t>(q)]));
        }
        std::sort(reach.begin(), reach.end());
        const auto distinct = std::unique(reach.begin(), reach.end()) - reach.begin();
        ratio[static_cast<std::size_t>(i)] = static_cast<double>(distinct) / static_cast<double>(d * d);
      });
  double sum = 0;
  int64_t counted = 0;
  for (const double x : ratio) {
    if (x < 0) continue;
    sum += x;
    ++counted;
  }
  return counted > 0 ? sum / static_cast<double>(counted) : 0.0;
}

}  // namespace

template <class T, class I>
Locality locality(const Csr<T, I>& A) {
  // Only what the sample reads is checked (a full validate() would cost O(nnz), the statistic's
  // whole point is to cost far less).
  Locality L;
  const int64_t rows = static_cast<int64_t>(A.rows);
  if (rows < 0 || A.row_ptr.size() != static_cast<std::size_t>(rows) + 1)
    throw Error(fmt::format("locality: row_ptr has {} entries for {} rows", A.row_ptr.size(), rows));
  if (rows == 0 || A.nnz() == 0 || A.cols == 0) return L;
  const int64_t windows = (rows + kLocalityWindowRows - 1) / kLocalityWindowRows;
  const double mean_window_nnz = static_cast<double>(A.nnz()) / static_cast<double>(windows);
  const auto budget =
      static_cast<int64_t>(std::ceil(static_cast<double>(kLocalitySampleNnz) / mean_window_nnz));
  const int64_t sampled =
      std::min(windows, std::clamp(budget, kLocalityMinSampleWindows, kLocalitySampleWindows));
  // Windows on every thread, each one's counts in its own slot, added in window order.
  struct WindowCounts {
    int64_t rows = 0, nnz = 0, distance = 0, sectors = 0;
  };
  std::vector<WindowCounts> counts(static_cast<std::size_t>(sampled));
  detail::for_items_first_error<std::vector<int64_t>>(
      sampled, A.nnz() / windows * sampled >= detail::kMinParallelItems,
      [&](int64_t s, std::vector<int64_t>& sectors) {
        // Windows spread evenly: window s * windows / sampled.
        const int64_t w = s * windows / sampled;
        const int64_t first = w * kLocalityWindowRows, last = std::min(rows, first + kLocalityWindowRows);
        WindowCounts& k = counts[static_cast<std::size_t>(s)];
        sectors.clear();
        for (int64_t r = first; r < last; ++r) {
          if (A.row_ptr[r] < 0 || A.row_ptr[r] > A.row_ptr[r + 1] ||
              static_cast<std::size_t>(A.row_ptr[r + 1]) > A.col_idx.size())
            throw Error(fmt::format("locality: row {} spans [{}, {}) of {} column indices", r,
                                    static_cast<int64_t>(A.row_ptr[r]),
                                    static_cast<int64_t>(A.row_ptr[r + 1]), A.col_idx.size()));
          int64_t last_sector = -1;  // a row's columns are ascending: repeats of a sector are adjacent
          for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p) {
            const int64_t c = static_cast<int64_t>(A.col_idx[p]);
            if (c < 0 || c >= static_cast<int64_t>(A.cols))
              throw Error(fmt::format("locality: row {} has column {} outside 0..{}", r, c,
                                      static_cast<int64_t>(A.cols) - 1));
            k.distance += c > r ? c - r : r - c;
            ++k.nnz;
            if (c / kF64PerSector != last_sector) sectors.push_back(last_sector = c / kF64PerSector);
          }
        }
        k.rows = last - first;
        std::sort(sectors.begin(), sectors.end());
        k.sectors = std::unique(sectors.begin(), sectors.end()) - sectors.begin();
      });
  int64_t distance = 0, distinct = 0;
  for (const WindowCounts& k : counts) {
    L.sampled_rows += k.rows;
    L.sampled_nnz += k.nnz;
    distance += k.distance;
    distinct += k.sectors;
  }
  if (L.sampled_rows == 0) return L;
  const double rows_sampled = static_cast<double>(L.sampled_rows);
  L.mean_distance = L.sampled_nnz > 0 ? static_cast<double>(distance) / static_cast<double>(L.sampled_nnz) /
                                            static_cast<double>(A.cols)
                                      : 0;
  L.sectors_per_row = static_cast<double>(distinct) / rows_sampled;
  const double avg_row = static_cast<double>(A.nnz()) / static_cast<double>(rows);
  L.two_hop_growth = A.rows == A.cols ? two_hop_growth(A) : 0.0;
  // An expander-like graph keeps its gathers whatever the numbering: no gain estimated.
  L.rcm_sectors_per_row =
      L.two_hop_growth > kRcmMaxTwoHopGrowth
          ? L.sectors_per_row
          : std::min(L.sectors_per_row, rcm_window_sectors(kLocalityWindowRows, avg_row, kF64PerSector) /
                                            static_cast<double>(kLocalityWindowRows));
  return L;
}

template Locality locality(const Csr<float, int32_t>&);
template Locality locality(const Csr<float, int64_t>&);
template Locality locality(const Csr<double, int32_t>&);
template Locality locality(const Csr<double, int64_t>&);

}  // namespace spx::reorder
