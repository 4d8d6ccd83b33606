// Contiguous row blocks balanced by a per-row cost (nonzeros by default), and the even split used
// for x of a rectangular matrix.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "spx/dist.hpp"
#include "spx/error.hpp"

namespace spx::dist {

int Partition::owner(int64_t i) const {
  if (begin.size() < 2 || i < 0 || i >= size())
    throw Error(fmt::format("partition: index {} out of range 0..{}", i, begin.empty() ? 0 : size() - 1));
  // The last block whose begin is <= i (empty blocks before it share its begin).
  const auto it = std::upper_bound(begin.begin(), begin.end() - 1, i);
  return static_cast<int>(it - begin.begin()) - 1;
}

Partition partition_by_cost(std::span<const double> row_cost, int ranks) {
  const auto n = static_cast<int64_t>(row_cost.size());
  if (ranks < 1) throw Error(fmt::format("partition: {} ranks; need at least 1", ranks));
  if (ranks > n)
    throw Error(fmt::format("partition: {} ranks for {} rows; every rank needs at least one row", ranks, n));
  std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
  for (int64_t r = 0; r < n; ++r) {
    const double c = row_cost[static_cast<std::size_t>(r)];
    if (!std::isfinite(c) || c < 0)
      throw Error(fmt::format("partition: row {} has cost {}; costs must be finite and >= 0", r, c));
    prefix[static_cast<std::size_t>(r) + 1] = prefix[static_cast<std::size_t>(r)] + c;
  }
  const double total = prefix.back();
  Partition p;
  p.begin.assign(static_cast<std::size_t>(ranks) + 1, 0);
  p.begin.back() = n;
  for (int b = 1; b < ranks; ++b) {
    const double target = total * b / ranks;
    // First prefix >= target, or the one before it when that is nearer (ties: the earlier row).
    auto at = static_cast<int64_t>(std::lower_bound(prefix.begin(), prefix.end(), target) - prefix.begin());
    if (at > 0 &&
        target - prefix[static_cast<std::size_t>(at) - 1] <= prefix[static_cast<std::size_t>(at)] - target)
      --at;
    // Every block keeps at least one row: after the previous boundary, leaving one row per later rank.
    const int64_t lo = p.begin[static_cast<std::size_t>(b) - 1] + 1, hi = n - (ranks - b);
    p.begin[static_cast<std::size_t>(b)] = std::clamp(at, lo, hi);
  }
  return p;
}

template <class T, class I>
Partition partition_rows(const Csr<T, I>& A, int ranks, double row_overhead) {
  if (!std::isfinite(row_overhead) || row_overhead < 0)
    throw Error(fmt::format("partition: row overhead {}; must be finite and >= 0", row_overhead));
  std::vector<double> cost(static_cast<std::size_t>(A.rows));
  for (I r = 0; r < A.rows; ++r)
    cost[static_cast<std::size_t>(r)] = static_cast<double>(A.row_length(r)) + row_overhead;
  return partition_by_cost(cost, ranks);
}

Partition partition_even(int64_t size, int ranks) {
  if (ranks < 1) throw Error(fmt::format("partition: {} ranks; need at least 1", ranks));
  if (size < 0) throw Error(fmt::format("partition: size {} is negative", size));
  Partition p;
  p.begin.resize(static_cast<std::size_t>(ranks) + 1);
  const int64_t base = size / ranks, extra = size % ranks;
  for (int r = 0; r <= ranks; ++r)
    p.begin[static_cast<std::size_t>(r)] = r * base + std::min<int64_t>(r, extra);
  return p;
}

#define SPX_INSTANTIATE(T, I) template Partition partition_rows(const Csr<T, I>&, int, double);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE

}  // namespace spx::dist
