// Distributed products and CG over MPI ranks on CPUs (docs/distributed.md, "MPI ranks"): one
// process per rank, each holding a contiguous block of rows split as spx::dist splits them for
// GPUs (split_block: the same halo numbering and messages), its x halo exchanged with
// MPI_Isend/Irecv between neighbours only, its rows multiplied with spx::omp::spmv.
//
// What is guaranteed (each rank running one OpenMP thread, as the tests do):
//  * SpMV: y is bitwise the single-process omp::spmv of the whole matrix, for any rank count. The
//    rank's matrix keeps each row's nonzeros in their global column order over [owned x | halo],
//    so every row sums the same products in the same order (no local/remote split of a row).
//    With several threads per rank, a row the merge-path cuts is summed in two pieces, so the
//    bits may differ in such rows.
//  * CG: the recurrences of spx::cg (spx/cg.hpp), with every inner product summed exactly
//    (fixed-point, then rounded once): each rank gets the same scalars, so all take the same
//    decisions, and the iterates, iteration counts and residual histories are bitwise identical
//    for every rank count and every MPI reduction algorithm. They agree with spx::cg (OpenMP
//    sums in double) to rounding, not bitwise.
// Both hold for one numbering of the matrix: METIS and RCM splits renumber it, differently for each
// rank count.
//
// Built only with MPI (CMake SPX_MPI, spx::dist::mpi::built_with_mpi()); without it every call
// below but built_with_mpi() and rows_of() throws spx::Error saying so. A rank's rows come from
// its own generator (rows_of a block, gen::stencil_rows) or from scatter_rows.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spx/cg.hpp"
#include "spx/dist.hpp"
#include "spx/dist_graph.hpp"
#include "spx/error.hpp"
#include "spx/matrix.hpp"

namespace spx::dist::mpi {

bool built_with_mpi();

// An error every rank of the group throws at the same point (a setup step agreed on, a load
// broadcast from root), so the job can end normally instead of being aborted. `origin`: whether
// this rank found the problem (else it only learnt that another one did).
class JobError : public Error {
 public:
  JobError(const std::string& what, bool origin_) : Error(what), origin(origin_) {}
  bool origin;
};

// The processes a call spans: every process of the job, or this one alone (a one-rank reference
// run inside an MPI job).
enum class Group { World, Self };

// MPI for this process: the first Session initialises MPI (unless the caller already has; then
// the caller finalises it), the last one alive finalises what it initialised. A process started
// without mpirun is one rank. Throws spx::Error without MPI.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};
int rank(Group group = Group::World);
int size(Group group = Group::World);
// Barrier; the max of a value over the group (timings: the slowest rank's).
void barrier(Group group = Group::World);
double max_over_ranks(double v, Group group = Group::World);
// Sums over the group: of an integer (nonzeros, halo entries), exact; of a double (a norm for a
// report), in MPI's order.
int64_t sum_over_ranks(int64_t v, Group group = Group::World);
double sum_over_ranks(double v, Group group = Group::World);
// Ends every process of the job (MPI_Abort): a rank that failed alone must not leave the others
// waiting in a collective.
[[noreturn]] void abort_job(int status);

// This rank's rows of a distributed matrix.
template <class T>
struct RankMatrix {
  Group group = Group::World;
  int rank = 0;
  int64_t rows = 0, cols = 0;
  Partition row_partition, col_partition;
  int64_t row_begin = 0, col_begin = 0;
  int64_t owned = 0;                 // x entries this rank owns: [col_begin, col_begin + owned)
  std::vector<int64_t> halo_global;  // the halo's global columns, increasing (split_block's)
  // Rows × (owned + halo): column c < owned is x entry col_begin + c, column owned + h is
  // halo_global[h]; each row's nonzeros in increasing global column.
  Csr<T, int32_t> A;
  std::vector<HaloMessage> recv;  // into this rank's halo (from, recv_offset, count)
  std::vector<HaloMessage> send;  // out of this rank's x (to, send_local)
};

// Collective over `group` (every rank calls it with its own rows): `my_rows` are this rank's rows
// (row_partition's block `rank`) of a rows × cols canonical matrix, with global columns. Every
// rank must pass the same partitions. A problem on any rank throws JobError on every rank.
template <class T>
RankMatrix<T> distribute(Group group, const Csr<T, int64_t>& my_rows, const Partition& row_partition,
                         const Partition& col_partition);

// The same rows as the spx/dist.hpp split for this rank alone, for a process that drives one GPU
// of a spx::cuda::dist::Team (spx/cuda/dist_mpi.hpp): this rank's part (split_block), the messages
// into its halo and out of its x, shells (the ranges alone) for the other ranks' parts, and the whole
// split's statistics gathered from every rank. Collective; a problem on any rank throws JobError on
// every rank.
template <class T>
DistMatrix<T> distribute_parts(Group group, const Csr<T, int64_t>& my_rows, const Partition& row_partition,
                               const Partition& col_partition);

// A matrix only `root` loads, sent out block by block: every rank gets its rows (global columns)
// and the partitions root chose (x split like the rows when square, else evenly), so only root
// ever holds the whole matrix. `split` as for spx/dist_graph.hpp's choose_partition (rows: blocks
// balanced by nonzeros; metis and rcm renumber the matrix P A Pᵀ so that each part is a block of
// rows; auto weighs them with `costs`). `load` runs on root alone; an exception there reaches every
// rank (root's own message; the others "rank 0 could not load the matrix: ..."). keep_whole leaves
// the whole matrix (renumbered, where it was) in `whole` on root. Renumbered, every rank gets `perm`
// (new row i is old row perm[i]): vectors of the original numbering go through reorder::permute.
// Collective.
template <class T>
struct ScatteredRows {
  Partition row_partition, col_partition;
  Csr<T, int64_t> mine;
  std::optional<Csr<T, int32_t>> whole;           // root, when asked to keep it
  std::vector<int32_t> perm;                      // renumbered only
  PartitionKind partition = PartitionKind::Rows;  // the split used (auto resolved), on every rank
  std::string partition_report;                   // root: PartitionChoice::summary() where a choice was made
};
template <class T>
ScatteredRows<T> scatter_rows(Group group, const std::function<Csr<T, int32_t>()>& load,
                              bool keep_whole = false, PartitionKind split = PartitionKind::Rows,
                              int root = 0, const PartitionCosts& costs = {});

// This rank's part of a vector split by `p` gathered on `root` (the whole vector there; empty
// elsewhere). Collective.
template <class T>
std::vector<T> gather_rows(Group group, const Partition& p, std::span<const T> mine, int root = 0);

// y = A·x for this rank's rows, x its owned block (A.owned entries) and y its rows, both on the
// host: what cg() multiplies with. Product runs it on the CPU; spx::cuda::dist::mpi::GpuProduct
// (spx/cuda/dist_mpi.hpp) on the rank's GPU. Collective over A.group.
template <class T>
class RankOperator {
 public:
  virtual ~RankOperator() = default;
  virtual void operator()(std::span<const T> x, std::span<T> y) = 0;
};

// The CPU product (spx::omp::spmv on [owned x | halo]). Holds the halo buffers, so repeated
// products allocate nothing.
template <class T>
class Product : public RankOperator<T> {
 public:
  explicit Product(const RankMatrix<T>& A);
  void operator()(std::span<const T> x, std::span<T> y) override;
  const RankMatrix<T>& matrix() const { return A_; }

 private:
  const RankMatrix<T>& A_;
  std::vector<T> x_ext_, send_;
};

// CG (spx/cg.hpp's options and result) for a square matrix whose rows and x share one partition:
// b and x are this rank's rows. Every rank returns the same result (history included). Collective.
// The product is Product's, or `apply`'s (which must multiply by A): one driver, so GPU ranks take
// the same decisions on the same sums as CPU ranks whenever their products agree bit for bit.
template <class T>
CgResult cg(const RankMatrix<T>& A, std::span<const T> b, std::span<T> x, const CgOptions& options);
template <class T>
CgResult cg(const RankMatrix<T>& A, RankOperator<T>& apply, std::span<const T> b, std::span<T> x,
            const CgOptions& options);

// Rows [begin, end) of A with global 64-bit columns (a rank's block of a matrix it read whole).
template <class T, class I>
Csr<T, int64_t> rows_of(const Csr<T, I>& A, int64_t begin, int64_t end) {
  if (begin < 0 || begin > end || end > static_cast<int64_t>(A.rows))
    throw Error("rows_of: rows [" + std::to_string(begin) + ", " + std::to_string(end) + ") of a matrix of " +
                std::to_string(A.rows) + " rows");
  Csr<T, int64_t> B(end - begin, static_cast<int64_t>(A.cols));
  const auto k0 = static_cast<std::size_t>(A.row_ptr[static_cast<std::size_t>(begin)]);
  const auto k1 = static_cast<std::size_t>(A.row_ptr[static_cast<std::size_t>(end)]);
  for (int64_t r = begin; r <= end; ++r)
    B.row_ptr[static_cast<std::size_t>(r - begin)] =
        static_cast<int64_t>(A.row_ptr[static_cast<std::size_t>(r)]) - static_cast<int64_t>(k0);
  B.col_idx.assign(A.col_idx.begin() + static_cast<std::ptrdiff_t>(k0),
                   A.col_idx.begin() + static_cast<std::ptrdiff_t>(k1));
  B.values.assign(A.values.begin() + static_cast<std::ptrdiff_t>(k0),
                  A.values.begin() + static_cast<std::ptrdiff_t>(k1));
  return B;
}

}  // namespace spx::dist::mpi
