// Row blocks of RCM's numbering (spx/dist_graph.hpp): a cheap partition for meshes numbered at
// random, whose row blocks in the given numbering reach nearly every rank.
#include <fmt/format.h>

#include <cstdint>
#include <span>
#include <vector>

#include "spx/dist_graph.hpp"
#include "spx/error.hpp"
#include "spx/reorder.hpp"

namespace spx::dist {

template <class T>
GraphPartition partition_rcm(const Csr<T, int32_t>& A, int ranks) {
  if (ranks < 1 || ranks > A.rows)
    throw Error(fmt::format("partition_rcm: {} ranks for {} rows", ranks, static_cast<int64_t>(A.rows)));
  GraphPartition g;
  g.perm = reorder::rcm(A);  // validates A and refuses a non-square one
  std::vector<double> cost(g.perm.size());
  for (std::size_t i = 0; i < cost.size(); ++i) {
    const auto old = static_cast<std::size_t>(g.perm[i]);
    cost[i] = static_cast<double>(A.row_ptr[old + 1] - A.row_ptr[old]);
  }
  g.rows = partition_by_cost(std::span<const double>(cost), ranks);
  g.edge_cut = -1;
  return g;
}

template GraphPartition partition_rcm(const Csr<float, int32_t>&, int);
template GraphPartition partition_rcm(const Csr<double, int32_t>&, int);

}  // namespace spx::dist
