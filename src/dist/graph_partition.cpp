// METIS k-way partitioning of A + Aᵀ (spx/dist_graph.hpp). Without METIS (SPX_HAVE_METIS unset)
// only the checks run and partition_graph throws.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spx/dist_graph.hpp"
#include "spx/error.hpp"
#ifdef SPX_HAVE_METIS
#include <metis.h>
#endif

namespace spx::dist {
namespace {

#ifdef SPX_HAVE_METIS
static_assert(sizeof(idx_t) == sizeof(int32_t), "Debian's METIS indexes with 32-bit idx_t");

// The adjacency of A + Aᵀ without the diagonal, rows sorted and without repeats (what METIS takes).
template <class T>
void symmetric_graph(const Csr<T, int32_t>& A, std::vector<idx_t>& xadj, std::vector<idx_t>& adjncy) {
  const auto n = static_cast<std::size_t>(A.rows);
  // Aᵀ's pattern by counting sort: its rows come out sorted.
  std::vector<int64_t> t_ptr(n + 1, 0);
  for (const int32_t c : A.col_idx) ++t_ptr[static_cast<std::size_t>(c) + 1];
  for (std::size_t i = 0; i < n; ++i) t_ptr[i + 1] += t_ptr[i];
  std::vector<int32_t> t_idx(A.col_idx.size());
  std::vector<int64_t> fill(t_ptr.begin(), t_ptr.end() - 1);
  for (int32_t r = 0; r < A.rows; ++r)
    for (int32_t k = A.row_ptr[static_cast<std::size_t>(r)]; k < A.row_ptr[static_cast<std::size_t>(r) + 1];
         ++k)
      t_idx[static_cast<std::size_t>(
          fill[static_cast<std::size_t>(A.col_idx[static_cast<std::size_t>(k)])]++)] = r;
  xadj.assign(n + 1, 0);
  adjncy.clear();
  for (std::size_t r = 0; r < n; ++r) {  // merge row r of A and of Aᵀ
    auto a = A.col_idx.begin() + A.row_ptr[r], a_end = A.col_idx.begin() + A.row_ptr[r + 1];
    auto t = t_idx.begin() + t_ptr[r], t_end = t_idx.begin() + t_ptr[r + 1];
    int64_t last = -1;
    while (a != a_end || t != t_end) {
      const int32_t c = (t == t_end || (a != a_end && *a <= *t)) ? *a++ : *t++;
      if (c != static_cast<int32_t>(r) && c != last) adjncy.push_back(c);
      last = c;
    }
    if (adjncy.size() > static_cast<std::size_t>(INT32_MAX))
      throw Error(
          fmt::format("partition_graph: A + Aᵀ has more than {} entries, more than METIS's 32-bit "
                      "indices hold",
                      INT32_MAX));
    xadj[r + 1] = static_cast<idx_t>(adjncy.size());
  }
}
#endif

}  // namespace

bool metis_available() {
#ifdef SPX_HAVE_METIS
  return true;
#else
  return false;
#endif
}

template <class T>
GraphPartition partition_graph(const Csr<T, int32_t>& A, int ranks, int seed) {
  if (A.rows != A.cols)
    throw Error(fmt::format("partition_graph: the matrix is {} x {}; a graph partition needs a square matrix",
                            A.rows, A.cols));
  if (ranks < 1 || ranks > A.rows)
    throw Error(fmt::format("partition_graph: {} ranks for {} rows; give 1 .. {}", ranks, A.rows, A.rows));
#ifndef SPX_HAVE_METIS
  (void)seed;
  throw Error(
      "partition_graph: this spx was built without METIS (install libmetis-dev, configure with "
      "-DSPX_METIS=ON)");
#else
  A.validate();
  const auto n = static_cast<std::size_t>(A.rows);
  std::vector<idx_t> part(n, 0);
  GraphPartition g;
  if (ranks > 1) {
    std::vector<idx_t> xadj, adjncy;
    symmetric_graph(A, xadj, adjncy);
    // Weights: a row's nonzeros plus one, so parts balance the products' work as partition_rows
    // does (the one keeps empty rows from weighing nothing).
    std::vector<idx_t> vwgt(n);
    for (std::size_t r = 0; r < n; ++r) vwgt[r] = A.row_ptr[r + 1] - A.row_ptr[r] + 1;
    idx_t nvtxs = A.rows, ncon = 1, nparts = ranks, objval = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = seed;
    options[METIS_OPTION_NUMBERING] = 0;
    const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                       nullptr, &nparts, nullptr, nullptr, options, &objval, part.data());
    if (rc != METIS_OK)
      throw Error(fmt::format("partition_graph: METIS_PartGraphKway failed ({}) on {} rows into {} parts",
                              rc == METIS_ERROR_MEMORY  ? "out of memory"
                              : rc == METIS_ERROR_INPUT ? "bad input"
                                                        : "error",
                              A.rows, ranks));
    g.edge_cut = objval;
  }
  // Rows by part, each part's rows in their original order.
  g.rows.begin.assign(static_cast<std::size_t>(ranks) + 1, 0);
  for (const idx_t p : part) ++g.rows.begin[static_cast<std::size_t>(p) + 1];
  for (std::size_t r = 0; r < static_cast<std::size_t>(ranks); ++r) g.rows.begin[r + 1] += g.rows.begin[r];
  std::vector<int64_t> next(g.rows.begin.begin(), g.rows.begin.end() - 1);
  g.perm.resize(n);
  for (std::size_t r = 0; r < n; ++r)
    g.perm[static_cast<std::size_t>(next[static_cast<std::size_t>(part[r])]++)] = static_cast<int32_t>(r);
  return g;
#endif
}

template GraphPartition partition_graph(const Csr<float, int32_t>&, int, int);
template GraphPartition partition_graph(const Csr<double, int32_t>&, int, int);

}  // namespace spx::dist
