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
#include <optional>
#include <string>
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

/// How rows are cut over ranks: contiguous blocks of the given numbering balanced by nonzeros
/// (rows), METIS parts, blocks of RCM's numbering, or the one of these whose halo repays its cost.
enum class PartitionKind { Rows, Metis, Rcm, Auto };
const char* partition_kind_name(PartitionKind kind);  ///< "rows", "metis", "rcm", "auto"
/// The kind a word names; spx::Error naming the word and the choices.
PartitionKind parse_partition_kind(const std::string& word);

/// What the automatic choice weighs (docs/distributed.md). A split's predicted halo time is the
/// largest over ranks of what the halo adds to a product: the exchange (a latency, and its bytes at
/// the receive rate) and the remote part that runs after it (a fixed cost and its nonzeros). A
/// candidate is worth trying when the best split's halo time over `products` products exceeds its
/// predicted cost, and kept when it cuts that time by min_gain. Defaults: 4 × H200 over NVLink.
struct PartitionCosts {
  int64_t products = 1000;                ///< products the split will serve
  double value_bytes = 8;                 ///< bytes a halo entry moves
  double halo_bytes_per_second = 2e11;    ///< a receiver's rate (NCCL, registered buffers: 0.70 ms / 139 MB)
  double exchange_seconds = 2e-5;         ///< an exchange's latency (pack, one NCCL group: ~20-30 µs)
  double remote_part_seconds = 1e-5;      ///< the remote part's fixed cost (launches, compressed rows)
  double remote_seconds_per_nnz = 2e-11;  ///< its nonzeros (a 201M power law's: 0.80 ms for 37M)
  double metis_seconds_per_nnz = 2.5e-6;  ///< METIS on A + Aᵀ (measured: 81 s for 32M nonzeros)
  double rcm_seconds_per_nnz = 5e-8;      ///< RCM and its blocks
  double min_gain = 0.2;  ///< a 17% predicted cut was 6% slower on a 64k-row mesh (partition-auto)
};

/// One split the choice looked at: the busiest rank's received x entries per product, all ranks',
/// the share of nonzeros in remote parts, its predicted halo time a product (PartitionCosts), and
/// the host seconds it took to compute (0 for rows).
struct PartitionCandidate {
  PartitionKind kind = PartitionKind::Rows;
  int64_t busiest_halo = 0, halo_entries = 0;
  double remote_fraction = 0, predicted_seconds = 0, seconds = 0;
};

struct PartitionChoice {
  PartitionKind chosen = PartitionKind::Rows;
  std::optional<GraphPartition> graph;         ///< the renumbering, when `chosen` is metis or rcm
  std::vector<PartitionCandidate> considered;  ///< rows first, then in the order tried
  std::string reason;
  /// "rows: halo 1.2M entries (busiest 310k), remote 75.1%\nmetis: ...\nchose rows: <reason>".
  std::string summary() const;
};

/// The split of `kind` (Auto: chosen by `costs`), with every candidate's halo for the report (rows
/// first, for a square A). Auto gives rows for a rectangular A, one rank, or no worthwhile gain, and
/// skips METIS where it is not built in; metis or rcm of a rectangular A, and metis without METIS,
/// throw spx::Error.
template <class T>
PartitionChoice choose_partition(const Csr<T, int32_t>& A, int ranks, PartitionKind kind,
                                 const PartitionCosts& costs = {});

}  // namespace spx::dist
