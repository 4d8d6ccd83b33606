// Reverse Cuthill-McKee (spx/reorder.hpp): the symmetrised pattern (or A's own, when the caller
// knows it is symmetric), George & Liu's pseudo-peripheral start per component, breadth-first by
// increasing degree, reversed.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/host_memory.hpp"
#include "reorder/rcm_order.hpp"
#include "reorder/square.hpp"
#include "spx/reorder.hpp"

namespace spx::reorder {
namespace {

template <class T, class I>
detail::Graph<I> symmetrised(const Csr<T, I>& A) {
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
  detail::Graph<I> g;
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
detail::Graph<I> own_pattern(const Csr<T, I>& A) {
  const std::size_t n = static_cast<std::size_t>(A.rows);
  detail::Graph<I> g;
  g.ptr.assign(n + 1, 0);
  g.adj.reserve(A.col_idx.size());
  for (std::size_t r = 0; r < n; ++r) {
    for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p)
      if (A.col_idx[p] != static_cast<I>(r)) g.adj.push_back(A.col_idx[p]);
    g.ptr[r + 1] = static_cast<int64_t>(g.adj.size());
  }
  return g;
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
  return detail::rcm_order(symmetrised(A), static_cast<std::size_t>(A.rows));
}

template <class T, class I>
std::vector<I> rcm_symmetric(const Csr<T, I>& A) {
  detail::require_square(A, "rcm");
  const double n_rows = static_cast<double>(A.rows), nnz = static_cast<double>(A.nnz());
  spx::detail::require_host_memory(nnz * sizeof(I) + n_rows * (2 * sizeof(int64_t) + 3 * sizeof(I) + 1),
                                   "rcm (the pattern)");
  return detail::rcm_order(own_pattern(A), static_cast<std::size_t>(A.rows));
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
