// Distributed products, host side (docs/distributed.md): rows split into contiguous blocks balanced
// by nonzeros (or any per-row cost), each block stored as a local part (the columns its rank owns)
// and a remote part (columns other ranks own, renumbered compactly into a halo vector), and the halo
// pattern — for every ordered pair of ranks, exactly which x entries are sent and where they land —
// computed once. A CPU executor runs k "simulated ranks" with that pattern (the copies NCCL's
// grouped send/recv would make), so the layout is tested against spx::ref without several GPUs.
// The GPUs' side (NCCL) is spx/cuda/dist.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "spx/matrix.hpp"

namespace spx::dist {

/// Contiguous blocks of an index range [0, size): block r is [begin[r], begin[r + 1]).
struct Partition {
  std::vector<int64_t> begin;  ///< ranks + 1 entries, non-decreasing from 0 to size

  int ranks() const { return static_cast<int>(begin.size()) - 1; }
  int64_t size() const { return begin.back(); }
  int64_t block_size(int r) const {
    return begin[static_cast<std::size_t>(r) + 1] - begin[static_cast<std::size_t>(r)];
  }
  /// The rank whose block holds index i (0 <= i < size); with empty blocks, the last such rank.
  int owner(int64_t i) const;
};

/// Splits rows 0..n-1 (n = row_cost.size()) into `ranks` contiguous non-empty blocks whose summed
/// costs are as equal as contiguity allows: each boundary is the row prefix nearest to its share
/// r·total/ranks, so no block exceeds total/ranks by more than the largest row cost. Costs must be
/// finite and >= 0. Throws spx::Error for ranks < 1, ranks > n.
Partition partition_by_cost(std::span<const double> row_cost, int ranks);

/// The rows of A balanced by nonzeros plus `row_overhead` per row (a row's fixed cost in units of
/// one nonzero; 0 balances nonzeros alone).
template <class T, class I>
Partition partition_rows(const Csr<T, I>& A, int ranks, double row_overhead = 0.0);

/// `size` indices into `ranks` blocks of equal size (the first size % ranks one larger); blocks may
/// be empty when ranks > size. Used for x of a rectangular matrix.
Partition partition_even(int64_t size, int ranks);

/// One message of the halo exchange: rank `from` sends x entries it owns to rank `to`.
struct HaloMessage {
  int from = 0;
  int to = 0;
  std::vector<int32_t> send_local;  ///< indices into the sender's part of x (global = its col begin + i)
  int32_t recv_offset = 0;          ///< where they land in the receiver's halo buffer, contiguously

  int32_t count() const { return static_cast<int32_t>(send_local.size()); }
};

/// The most nonzeros one slice of a local part holds: every kernel indexes a matrix with int32_t.
inline constexpr int64_t kMaxSliceNnz = std::numeric_limits<int32_t>::max();

/// Consecutive rows of a rank's local part: its rows [row_begin, row_begin + A.rows), counted from
/// the rank's first row, × the columns the rank owns (column c is global col_begin + c).
template <class T>
struct LocalSlice {
  int64_t row_begin = 0;
  Csr<T, int32_t> A;
};

/// Rank r's share: rows [row_begin, row_end) of A, owning x entries [col_begin, col_end).
template <class T>
struct RankPart {
  int rank = 0;
  int64_t row_begin = 0, row_end = 0;
  int64_t col_begin = 0, col_end = 0;
  /// The local part in row slices of at most the split's slice_nnz nonzeros each, in row order and
  /// covering every row: one slice unless the rank holds more local nonzeros than int32_t indexes
  /// (a rank of a large GPU) or the caller asked for smaller slices; then ceil(nnz / slice_nnz)
  /// slices of about equal nonzeros (cut greedily at nnz / slices).
  std::vector<LocalSlice<T>> local;
  Csr<T, int32_t> remote;            ///< rows × halo size; column h is global halo_global[h]
  std::vector<int64_t> halo_global;  ///< strictly increasing, so each sender's entries are contiguous

  int64_t local_nnz() const {
    int64_t n = 0;
    for (const auto& s : local) n += s.A.nnz();
    return n;
  }
};

/// What a user looks at before running on several GPUs.
struct RankStats {
  int rank = 0;
  int64_t rows = 0, nnz = 0, local_nnz = 0, remote_nnz = 0;
  int64_t owned_cols = 0;
  int64_t halo_recv = 0, halo_send = 0;  ///< x entries received and sent per product
  int neighbours_recv = 0, neighbours_send = 0;
};
struct DistStats {
  int ranks = 0;
  int64_t nnz = 0;
  int64_t halo_entries = 0;  ///< x entries moved per SpMV, all messages together
  int messages = 0;
  int64_t bytes_f32 = 0, bytes_f64 = 0;  ///< halo bytes moved per SpMV (times L for SpMM)
  int64_t max_rank_recv_bytes_f64 = 0;   ///< the busiest receiver
  double nnz_imbalance = 1.0;            ///< max rank nnz / mean rank nnz
  double remote_fraction = 0.0;          ///< remote nnz / nnz
  std::vector<RankStats> per_rank;
};
/// A matrix split over ranks, with its halo pattern. Messages are sorted by (to, from); pairs that
/// exchange nothing have none.
template <class T>
struct DistMatrix {
  int64_t rows = 0, cols = 0;
  Partition row_partition;  ///< rows of A and of y
  Partition col_partition;  ///< entries of x
  std::vector<RankPart<T>> parts;
  std::vector<HaloMessage> messages;
  /// Set where a process holds only its own ranks' parts (one MPI rank per process): the other
  /// parts are then shells (their ranges, no nonzeros), `messages` only those to or from its ranks,
  /// and this the whole split's statistics, gathered from every rank.
  std::optional<DistStats> stats;

  int ranks() const { return row_partition.ranks(); }
};

/// Splits A (canonical) by the given row and x partitions (sizes rows(A) and cols(A), the same
/// number of ranks). Every rank's rows, owned columns, halo and remote nonzeros must fit int32_t;
/// its local nonzeros are cut into slices of at most slice_nnz (1 .. kMaxSliceNnz; a row longer
/// than that is a slice of its own). Throws spx::Error.
template <class T, class I>
DistMatrix<T> distribute(const Csr<T, I>& A, const Partition& rows, const Partition& cols,
                         int64_t slice_nnz = kMaxSliceNnz);
/// The default layout: rows balanced by nonzeros; x split like the rows when A is square (y and x
/// then share one layout, as CG needs), else evenly.
template <class T, class I>
DistMatrix<T> distribute(const Csr<T, I>& A, int ranks, double row_overhead = 0.0);

/// Makes rows [begin, end) of a matrix: (end − begin) × cols with global column indices.
template <class T>
using RowBlockMaker = std::function<Csr<T, int64_t>(int64_t begin, int64_t end)>;
/// The same split built rank by rank from blocks of rows, so the whole matrix never exists in one
/// place: a matrix larger than one GPU (or than the host holds twice) is generated straight into
/// its parts. The ranks are built concurrently, one host thread each (make_block must allow
/// that); the host then holds every rank's block and part at once. Every block is validated.
/// Throws spx::Error (the first failing rank's).
template <class T>
DistMatrix<T> distribute_blocks(int64_t rows, int64_t cols, const Partition& row_partition,
                                const Partition& col_partition, const RowBlockMaker<T>& make_block,
                                int64_t slice_nnz = kMaxSliceNnz);

/// One rank's share alone, from a block holding just its rows (global columns), as
/// distribute_blocks builds each rank's; and the messages that fill its halo, sorted by sender.
/// For a process that holds one rank (spx/dist_mpi.hpp). Throws spx::Error.
template <class T>
RankPart<T> split_block(const Csr<T, int64_t>& block, int rank, const Partition& row_partition,
                        const Partition& col_partition, int64_t slice_nnz = kMaxSliceNnz);
template <class T>
std::vector<HaloMessage> halo_messages(const RankPart<T>& to, const Partition& col_partition);

template <class T>
DistStats statistics(const DistMatrix<T>& D);
/// The totals of per-rank statistics (one entry per rank, in rank order): what ranks that each
/// computed their own line (one MPI process per rank) gather and sum.
DistStats statistics(std::vector<RankStats> per_rank);

/// Which kernels the simulated ranks use.
enum class Kernels { Reference, OpenMP };

/// x (cols entries) into the ranks' parts and y's parts back into one vector.
template <class T>
std::vector<std::vector<T>> scatter(const Partition& p, std::span<const T> v);
template <class T>
std::vector<T> gather(const Partition& p, const std::vector<std::vector<T>>& parts);

/// y = A·x on simulated ranks, each holding only its part of x and y: pack every message's send
/// buffer, copy it into the receiver's halo buffer (what NCCL's grouped send/recv does), then the
/// local product and the remote product added to it. Sizes checked (spx::Error).
template <class T>
std::vector<std::vector<T>> simulated_spmv(const DistMatrix<T>& D, const std::vector<std::vector<T>>& x_parts,
                                           Kernels kernels = Kernels::OpenMP);
/// The same on whole vectors: scatter, simulated_spmv, gather.
template <class T>
std::vector<T> simulated_spmv(const DistMatrix<T>& D, std::span<const T> x,
                              Kernels kernels = Kernels::OpenMP);
/// C = A·B, B cols × L and C rows × L in any layout (C is overwritten); each message carries L
/// values per entry.
template <class T>
void simulated_spmm(const DistMatrix<T>& D, const Dense<T>& B, Dense<T>& C,
                    Kernels kernels = Kernels::OpenMP);

}  // namespace spx::dist
