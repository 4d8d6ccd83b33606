// A graph partitioner beside contiguous row blocks (docs/distributed.md): METIS's k-way partition of
// the graph of A + Aᵀ, rows weighted by their nonzeros, turned into a symmetric permutation after
// which every part is a contiguous block of rows, so the row-block machinery (distribute,
// split_block, the MPI ranks) runs unchanged on P A Pᵀ. On irregular matrices it cuts the halo that
// contiguous blocks of the original numbering leave (report both: dist::statistics).
//
// Usage: g = partition_graph(A, k); B = reorder::permute_symmetric(A, g.perm);
// D = distribute(B, g.rows, g.rows); x' = reorder::permute(x, g.perm); y = unpermute(B x', g.perm).
// Built with METIS only (CMake SPX_METIS, Debian's libmetis-dev); metis_available() says whether.
#pragma once

#include <cstdint>
#include <vector>

#include "spx/dist.hpp"
#include "spx/matrix.hpp"

namespace spx::dist {

bool metis_available();

struct GraphPartition {
  std::vector<int32_t> perm;  // new row i is old row perm[i] (spx/reorder.hpp's convention)
  Partition rows;             // part r is new rows [rows.begin[r], rows.begin[r + 1]); a part may be empty
  int64_t edge_cut = 0;       // METIS's objective: edges of A + Aᵀ between parts (-1: not computed)
};

// A square; 1 <= ranks <= rows. Deterministic for a given seed (METIS's own, single-threaded).
// Within a part the rows keep their original order. Throws spx::Error (also without METIS).
template <class T>
GraphPartition partition_graph(const Csr<T, int32_t>& A, int ranks, int seed = 1);

// Without METIS: RCM's numbering (spx/reorder.hpp) cut into blocks of rows balanced by nonzeros.
// On a mesh numbered at random (whose row blocks need x from nearly every rank) each block then
// borders only its neighbours, about one level of RCM wide; it does not balance the cut as METIS
// does. A square; 1 <= ranks <= rows; edge_cut is -1. Throws spx::Error.
template <class T>
GraphPartition partition_rcm(const Csr<T, int32_t>& A, int ranks);

}  // namespace spx::dist
