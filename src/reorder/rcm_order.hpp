// RCM's order on a graph (src/reorder/rcm.cpp builds the graph): George & Liu's pseudo-peripheral
// start per component, breadth-first by increasing degree, reversed. A level whose edges reach
// `min_parallel_edges` is searched by every OpenMP thread, a small one by one: the breadth-first
// passes over a shuffled mesh were RCM's host time (~0.2 s each at 13M nonzeros). The parallel
// level gives the serial order exactly: a node's parent is the first node of the level (in order)
// that reaches it (an atomic minimum), and each parent's children are sorted as the serial pass
// sorts them, then laid out by a prefix sum of their counts.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace spx::reorder::detail {

// A pattern without the diagonal, rows sorted: offsets in 64 bits (up to 2 nnz entries).
template <class I>
struct Graph {
  std::vector<int64_t> ptr;
  std::vector<I> adj;
  int64_t degree(I v) const {
    return ptr[static_cast<std::size_t>(v) + 1] - ptr[static_cast<std::size_t>(v)];
  }
  // About how many edges the nodes queue[begin, end) have (the mean degree times their count).
  int64_t edges_estimate(std::size_t begin, std::size_t end) const {
    const std::size_t n = ptr.size() - 1;
    return n == 0 ? 0 : static_cast<int64_t>((end - begin) * (adj.size() / n + 1));
  }
};

// George & Liu stop when the eccentricity no longer grows; this caps the searches of one component
// (each a breadth-first pass over it) for graphs where it would creep up for long.
inline constexpr int kMaxPeripheralSearches = 16;

// Breadth-first level structure of the component of `root`, marking with `stamp`; returns the
// number of levels, and the last level's nodes in `last` (in no particular order when a level ran
// in parallel: only the set is used).
template <class I>
int64_t levels(const Graph<I>& g, I root, std::vector<int64_t>& mark, int64_t stamp, std::vector<I>& queue,
               std::vector<I>& last, int64_t min_parallel_edges) {
  queue.clear();
  queue.push_back(root);
  mark[static_cast<std::size_t>(root)] = stamp;
  int64_t depth = 0;
  std::size_t level_begin = 0;
  std::vector<std::vector<I>> found(static_cast<std::size_t>(omp_get_max_threads()));
  while (level_begin < queue.size()) {
    const std::size_t level_end = queue.size();
    ++depth;
    if (g.edges_estimate(level_begin, level_end) < min_parallel_edges) {
      for (std::size_t q = level_begin; q < level_end; ++q) {
        const I v = queue[q];
        for (int64_t p = g.ptr[static_cast<std::size_t>(v)]; p < g.ptr[static_cast<std::size_t>(v) + 1];
             ++p) {
          const I w = g.adj[static_cast<std::size_t>(p)];
          if (mark[static_cast<std::size_t>(w)] != stamp) {
            mark[static_cast<std::size_t>(w)] = stamp;
            queue.push_back(w);
          }
        }
      }
    } else {
#pragma omp parallel
      {
        std::vector<I>& mine = found[static_cast<std::size_t>(omp_get_thread_num())];
        mine.clear();
#pragma omp for schedule(dynamic, 64)
        for (std::size_t q = level_begin; q < level_end; ++q) {
          const I v = queue[q];
          for (int64_t p = g.ptr[static_cast<std::size_t>(v)]; p < g.ptr[static_cast<std::size_t>(v) + 1];
               ++p) {
            const I w = g.adj[static_cast<std::size_t>(p)];
            std::atomic_ref<int64_t> m(mark[static_cast<std::size_t>(w)]);
            int64_t seen = m.load(std::memory_order_relaxed);
            if (seen != stamp && m.compare_exchange_strong(seen, stamp, std::memory_order_relaxed))
              mine.push_back(w);
          }
        }
      }
      for (const auto& f : found) queue.insert(queue.end(), f.begin(), f.end());
    }
    if (queue.size() == level_end)
      last.assign(queue.begin() + static_cast<std::ptrdiff_t>(level_begin),
                  queue.begin() + static_cast<std::ptrdiff_t>(level_end));
    level_begin = level_end;
  }
  return depth;
}

// George & Liu: from `start`, move to a least-degree node of the last level (the lowest index among
// equals) while that deepens the level structure.
template <class I>
I pseudo_peripheral(const Graph<I>& g, I start, std::vector<int64_t>& mark, int64_t& stamp,
                    std::vector<I>& queue, int64_t min_parallel_edges) {
  std::vector<I> last;
  I root = start;
  int64_t depth = levels(g, root, mark, ++stamp, queue, last, min_parallel_edges);
  for (int search = 0; search < kMaxPeripheralSearches; ++search) {
    I best = last.front();
    for (I v : last)
      if (g.degree(v) < g.degree(best) || (g.degree(v) == g.degree(best) && v < best)) best = v;
    std::vector<I> best_last;
    const int64_t best_depth = levels(g, best, mark, ++stamp, queue, best_last, min_parallel_edges);
    if (best_depth <= depth) break;
    root = best;
    depth = best_depth;
    last = std::move(best_last);
  }
  return root;
}

// The nodes by increasing degree, by index among equals: a counting sort (a comparison sort of 2M
// nodes took ~0.2 s of RCM's host time).
template <class I>
std::vector<I> nodes_by_degree(const Graph<I>& g, std::size_t n) {
  int64_t max_degree = 0;
  for (std::size_t v = 0; v < n; ++v) max_degree = std::max(max_degree, g.degree(static_cast<I>(v)));
  std::vector<int64_t> start(static_cast<std::size_t>(max_degree) + 2, 0);
  for (std::size_t v = 0; v < n; ++v) ++start[static_cast<std::size_t>(g.degree(static_cast<I>(v))) + 1];
  for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
  std::vector<I> out(n);
  for (std::size_t v = 0; v < n; ++v)
    out[static_cast<std::size_t>(start[static_cast<std::size_t>(g.degree(static_cast<I>(v)))]++)] =
        static_cast<I>(v);
  return out;
}

// The default threshold: measured on a 16-core host (shuffled meshes; serial / 2^16 / 4096 / 1024
// edges), stencil27:n=80 0.67 / 0.117 / 0.105 / 0.104 s, stencil2d:n=1500 (levels of a few
// thousand edges) 1.12 / 1.17 / 0.80 / 0.43 s, stencil27:n=120 2.27 / 0.51 / 0.38 / 0.41 s. A
// parallel level scans its edges three times to the serial pass's once: it pays from ~4 threads.
inline constexpr int64_t kMinParallelLevelEdges = 1024;
inline int64_t default_min_parallel_edges() {
  return omp_get_max_threads() >= 4 ? kMinParallelLevelEdges : std::numeric_limits<int64_t>::max();
}

// RCM's order of the graph's n nodes.
template <class I>
std::vector<I> rcm_order(const Graph<I>& g, std::size_t n,
                         int64_t min_parallel_edges = default_min_parallel_edges()) {
  // Components are started from their least-degree node, lowest index first among equals: visit the
  // nodes by (degree, index) and start a component at each one not yet ordered.
  const std::vector<I> by_degree = nodes_by_degree(g, n);
  std::vector<int64_t> mark(n, 0);  // search stamps (1, 2, ...) of the peripheral searches
  std::vector<char> ordered(n, 0);
  // A parallel level's claims: the position in `order` of the first node of the level reaching it.
  constexpr int64_t kUnclaimed = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> owner(n, kUnclaimed);
  std::vector<int64_t> offset;
  std::vector<I> order, queue, children;
  order.reserve(n);
  int64_t stamp = 0;
  const auto by_degree_then_index = [&](I a, I b) {
    return g.degree(a) != g.degree(b) ? g.degree(a) < g.degree(b) : a < b;
  };
  for (I seed : by_degree) {
    if (ordered[static_cast<std::size_t>(seed)]) continue;
    I root = g.degree(seed) == 0 ? seed : pseudo_peripheral(g, seed, mark, stamp, queue, min_parallel_edges);
    // On a pattern that is not symmetric (rcm_symmetric's caller was wrong), the search can reach
    // a node an earlier component already ordered: start from the seed itself then.
    if (ordered[static_cast<std::size_t>(root)]) root = seed;
    order.push_back(root);
    ordered[static_cast<std::size_t>(root)] = 1;
    for (std::size_t begin = order.size() - 1; begin < order.size();) {
      const std::size_t end = order.size();  // the level is order[begin, end)
      if (g.edges_estimate(begin, end) < min_parallel_edges) {
        for (std::size_t head = begin; head < end; ++head) {
          const I v = order[head];
          children.clear();
          for (int64_t p = g.ptr[static_cast<std::size_t>(v)]; p < g.ptr[static_cast<std::size_t>(v) + 1];
               ++p) {
            const I w = g.adj[static_cast<std::size_t>(p)];
            if (!ordered[static_cast<std::size_t>(w)]) {
              ordered[static_cast<std::size_t>(w)] = 1;
              children.push_back(w);
            }
          }
          std::sort(children.begin(), children.end(), by_degree_then_index);
          order.insert(order.end(), children.begin(), children.end());
        }
      } else {
        const auto level = static_cast<int64_t>(end - begin);
        offset.assign(static_cast<std::size_t>(level) + 1, 0);
        const auto owns = [&](I w, int64_t i) {
          return !ordered[static_cast<std::size_t>(w)] && owner[static_cast<std::size_t>(w)] == i;
        };
#pragma omp parallel
        {
#pragma omp for schedule(dynamic, 64)
          for (int64_t i = 0; i < level; ++i) {  // each unordered neighbour's first parent
            const I v = order[begin + static_cast<std::size_t>(i)];
            for (int64_t p = g.ptr[static_cast<std::size_t>(v)]; p < g.ptr[static_cast<std::size_t>(v) + 1];
                 ++p) {
              const I w = g.adj[static_cast<std::size_t>(p)];
              if (ordered[static_cast<std::size_t>(w)]) continue;
              std::atomic_ref<int64_t> o(owner[static_cast<std::size_t>(w)]);
              int64_t cur = o.load(std::memory_order_relaxed);
              while (i < cur && !o.compare_exchange_weak(cur, i, std::memory_order_relaxed)) {
              }
            }
          }
#pragma omp for schedule(dynamic, 64)
          for (int64_t i = 0; i < level; ++i) {  // how many children each parent has
            const I v = order[begin + static_cast<std::size_t>(i)];
            int64_t count = 0;
            for (int64_t p = g.ptr[static_cast<std::size_t>(v)]; p < g.ptr[static_cast<std::size_t>(v) + 1];
                 ++p)
              count += owns(g.adj[static_cast<std::size_t>(p)], i);
            offset[static_cast<std::size_t>(i) + 1] = count;
          }
#pragma omp single
          {
            for (int64_t i = 0; i < level; ++i)
              offset[static_cast<std::size_t>(i) + 1] += offset[static_cast<std::size_t>(i)];
            order.resize(end + static_cast<std::size_t>(offset.back()));
          }
#pragma omp for schedule(dynamic, 64)
          for (int64_t i = 0; i < level; ++i) {  // each parent's children, sorted, in its slot
            const I v = order[begin + static_cast<std::size_t>(i)];
            auto out = order.begin() + static_cast<std::ptrdiff_t>(end) + offset[static_cast<std::size_t>(i)];
            auto at = out;
            for (int64_t p = g.ptr[static_cast<std::size_t>(v)]; p < g.ptr[static_cast<std::size_t>(v) + 1];
                 ++p) {
              const I w = g.adj[static_cast<std::size_t>(p)];
              if (owns(w, i)) *at++ = w;
            }
            std::sort(out, at, by_degree_then_index);
          }
#pragma omp for schedule(static)
          for (std::size_t q = end; q < order.size(); ++q) ordered[static_cast<std::size_t>(order[q])] = 1;
        }
      }
      begin = end;
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace spx::reorder::detail
