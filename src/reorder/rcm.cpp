// Reverse Cuthill-McKee (spx/reorder.hpp): the symmetrised pattern (or A's own, when the caller
// knows it is symmetric), George & Liu's pseudo-peripheral start per component, breadth-first by
// increasing degree, reversed.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/host_memory.hpp"
#include "reorder/square.hpp"
#include "spx/reorder.hpp"

namespace spx::reorder {
namespace {

// George & Liu stop when the eccentricity no longer grows; this caps the searches of one component
// (each a breadth-first pass over it) for graphs where it would creep up for long.
constexpr int kMaxPeripheralSearches = 16;

// The pattern of A + A^T without the diagonal, rows sorted: offsets in 64 bits (up to 2 nnz entries).
template <class I>
struct Graph {
  std::vector<int64_t> ptr;
  std::vector<I> adj;
  int64_t degree(I v) const {
    return ptr[static_cast<std::size_t>(v) + 1] - ptr[static_cast<std::size_t>(v)];
  }
};

template <class T, class I>
Graph<I> symmetrised(const Csr<T, I>& A) {
  const std::size_t n = static_cast<std::size_t>(A.rows);
  // A^T's pattern by counting sort: its rows come out sorted.
  std::vector<int64_t> tptr(n + 1, 0);
  for (I c : A.col_idx) ++tptr[static_cast<std::size_t>(c) + 1];
  for (std::size_t c = 0; c < n; ++c) tptr[c + 1] += tptr[c];
  std::vector<I> tadj(A.col_idx.size());
  {
    std::vector<int64_t> next(tptr.begin(), tptr.end() - 1);
    for (std::size_t r = 0; r < n; ++r)
      for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p)
        tadj[static_cast<std::size_t>(next[static_cast<std::size_t>(A.col_idx[p])]++)] = static_cast<I>(r);
  }
  // Row r of the graph: the sorted union of row r of A and of A^T, the diagonal dropped.
  Graph<I> g;
  g.ptr.assign(n + 1, 0);
  g.adj.reserve(2 * A.col_idx.size());
  for (std::size_t r = 0; r < n; ++r) {
    const I* a = A.col_idx.data() + A.row_ptr[r];
    const I* a_end = A.col_idx.data() + A.row_ptr[r + 1];
    const I* t = tadj.data() + tptr[r];
    const I* t_end = tadj.data() + tptr[r + 1];
    const I self = static_cast<I>(r);
    while (a != a_end || t != t_end) {
      I v;
      if (t == t_end || (a != a_end && *a < *t)) {
        v = *a++;
      } else if (a == a_end || *t < *a) {
        v = *t++;
      } else {
        v = *a++;
        ++t;
      }
      if (v != self) g.adj.push_back(v);
    }
    g.ptr[r + 1] = static_cast<int64_t>(g.adj.size());
  }
  return g;
}

// A's own pattern without the diagonal (a symmetric A's is already A + A^T's): one sequential pass.
template <class T, class I>
Graph<I> own_pattern(const Csr<T, I>& A) {
  const std::size_t n = static_cast<std::size_t>(A.rows);
  Graph<I> g;
  g.ptr.assign(n + 1, 0);
  g.adj.reserve(A.col_idx.size());
  for (std::size_t r = 0; r < n; ++r) {
    for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p)
      if (A.col_idx[p] != static_cast<I>(r)) g.adj.push_back(A.col_idx[p]);
    g.ptr[r + 1] = static_cast<int64_t>(g.adj.size());
  }
  return g;
}

// Breadth-first level structure of the component of `root`, marking with `stamp`; returns the
// number of levels, and the last level's nodes in `last`.
template <class I>
int64_t levels(const Graph<I>& g, I root, std::vector<int64_t>& mark, int64_t stamp, std::vector<I>& queue,
               std::vector<I>& last) {
  queue.clear();
  queue.push_back(root);
  mark[static_cast<std::size_t>(root)] = stamp;
  int64_t depth = 0;
  std::size_t level_begin = 0;
  while (level_begin < queue.size()) {
    const std::size_t level_end = queue.size();
    ++depth;
    for (std::size_t q = level_begin; q < level_end; ++q) {
      const I v = queue[q];
      for (int64_t p = g.ptr[static_cast<std::size_t>(v)]; p < g.ptr[static_cast<std::size_t>(v) + 1]; ++p) {
        const I w = g.adj[static_cast<std::size_t>(p)];
        if (mark[static_cast<std::size_t>(w)] != stamp) {
          mark[static_cast<std::size_t>(w)] = stamp;
          queue.push_back(w);
        }
      }
    }
    if (queue.size() == level_end)
      last.assign(queue.begin() + static_cast<std::ptrdiff_t>(level_begin),
                  queue.begin() + static_cast<std::ptrdiff_t>(level_end));
    level_begin = level_end;
  }
  return depth;
}

// George & Liu: from `start`, move to a least-degree node of the last level while that deepens the
// level structure.
template <class I>
I pseudo_peripheral(const Graph<I>& g, I start, std::vector<int64_t>& mark, int64_t& stamp,
                    std::vector<I>& queue) {
  std::vector<I> last;
  I root = start;
  int64_t depth = levels(g, root, mark, ++stamp, queue, last);
  for (int search = 0; search < kMaxPeripheralSearches; ++search) {
    I best = last.front();
    for (I v : last)
      if (g.degree(v) < g.degree(best) || (g.degree(v) == g.degree(best) && v < best)) best = v;
    std::vector<I> best_last;
    const int64_t best_depth = levels(g, best, mark, ++stamp, queue, best_last);
    if (best_depth <= depth) break;
    root = best;
    depth = best_depth;
    last = std::move(best_last);
  }
  return root;
}

// RCM's order on the graph g of n nodes.
template <class I>
std::vector<I> order_of(const Graph<I>& g, std::size_t n) {
  // Components are started from their least-degree node, lowest index first among equals: visit the
  // nodes by (degree, index) and start a component at each one not yet ordered.
  std::vector<I> by_degree(n);
  for (std::size_t v = 0; v < n; ++v) by_degree[v] = static_cast<I>(v);
  std::stable_sort(by_degree.begin(), by_degree.end(), [&](I a, I b) { return g.degree(a) < g.degree(b); });
  std::vector<int64_t> mark(n, 0);  // search stamps (1, 2, ...) of the peripheral searches
  std::vector<char> ordered(n, 0);
  std::vector<I> order, queue, children;
  order.reserve(n);
  int64_t stamp = 0;
  const auto by_degree_then_index = [&](I a, I b) {
    return g.degree(a) != g.degree(b) ? g.degree(a) < g.degree(b) : a < b;
  };
  for (I seed : by_degree) {
    if (ordered[static_cast<std::size_t>(seed)]) continue;
    I root = g.degree(seed) == 0 ? seed : pseudo_peripheral(g, seed, mark, stamp, queue);
    // On a pattern that is not symmetric (rcm_symmetric's caller was wrong), the search can reach
    // a node an earlier component already ordered: start from the seed itself then.
    if (ordered[static_cast<std::size_t>(root)]) root = seed;
    std::size_t head = order.size();
    order.push_back(root);
    ordered[static_cast<std::size_t>(root)] = 1;
    for (; head < order.size(); ++head) {
      const I v = order[head];
      children.clear();
      for (int64_t p = g.ptr[static_cast<std::size_t>(v)]; p < g.ptr[static_cast<std::size_t>(v) + 1]; ++p) {
        const I w = g.adj[static_cast<std::size_t>(p)];
        if (!ordered[static_cast<std::size_t>(w)]) {
          ordered[static_cast<std::size_t>(w)] = 1;
          children.push_back(w);
        }
      }
      std::sort(children.begin(), children.end(), by_degree_then_index);
      order.insert(order.end(), children.begin(), children.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace

template <class T, class I>
std::vector<I> rcm(const Csr<T, I>& A) {
  detail::require_square(A, "rcm");
  // The symmetrised pattern (up to 2 nnz indices and n + 1 offsets, plus Aᵀ's while it is built) and
  // the per-node arrays.
  const double n_rows = static_cast<double>(A.rows), nnz = static_cast<double>(A.nnz());
  spx::detail::require_host_memory(3 * nnz * sizeof(I) + n_rows * (2 * sizeof(int64_t) + 3 * sizeof(I) + 1),
                                   "rcm (the symmetrised pattern)");
  return order_of(symmetrised(A), static_cast<std::size_t>(A.rows));
}

template <class T, class I>
std::vector<I> rcm_symmetric(const Csr<T, I>& A) {
  detail::require_square(A, "rcm");
  const double n_rows = static_cast<double>(A.rows), nnz = static_cast<double>(A.nnz());
  spx::detail::require_host_memory(nnz * sizeof(I) + n_rows * (2 * sizeof(int64_t) + 3 * sizeof(I) + 1),
                                   "rcm (the pattern)");
  return order_of(own_pattern(A), static_cast<std::size_t>(A.rows));
}

#define SPX_INSTANTIATE_RCM(T, I)                \
  template std::vector<I> rcm(const Csr<T, I>&); \
  template std::vector<I> rcm_symmetric(const Csr<T, I>&);
SPX_INSTANTIATE_RCM(float, int32_t)
SPX_INSTANTIATE_RCM(float, int64_t)
SPX_INSTANTIATE_RCM(double, int32_t)
SPX_INSTANTIATE_RCM(double, int64_t)
#undef SPX_INSTANTIATE_RCM

}  // namespace spx::reorder
