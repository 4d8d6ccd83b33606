// Several GPUs of one host, driven by one process and joined by NCCL (docs/distributed.md).
//
//   spx::cuda::dist::Team team(4);                                   // GPUs 0..3, ncclCommInitAll
//   auto D = spx::dist::distribute(host_csr, team.size());           // rows balanced by nonzeros
//   spx::cuda::dist::DistSparseMatrix<double> A(team, D);            // local + remote parts planned
//   spx::cuda::dist::DistVector<double> x(team, A.col_partition()), y(team, A.row_partition());
//   x.upload(host_x);
//   spx::cuda::dist::spmv(A, x, y);                                  // y = A·x over the 4 GPUs
//   std::vector<double> host_y = y.download();
//
// A product on every rank: the local part (the columns the rank owns) starts at once on the rank's
// stream; beside it, on a second stream, the rank packs the x entries other ranks need and NCCL's
// grouped send/recv moves exactly those into each receiver's halo buffer; then the remote part
// (the halo columns) adds its share. A large halo moves in chunks, each followed at once by the
// remote piece it feeds (DistOptions::halo_chunks). Every part is a front-door matrix
// (spx/cuda/sparse_matrix.hpp), planned like any other. Nothing synchronises the host; all of it is enqueued
// on the ranks' streams.
//
// The same classes run one rank per process (an MPI job, spx/cuda/dist_mpi.hpp): a Team made from a
// TeamMember drives only its own rank, whose communicator joins the others' through a shared NCCL
// id; every loop below runs over team.members(), so each process enqueues exactly its rank's share
// of the work the single process enqueues for all of them, and gets the same bits.
//
// One GPU runs the same code: no halo, no remote part. NVLink multicast (NVLS) is turned off
// unless NCCL_NVLS_ENABLE is already set: the products use point-to-point messages and tiny
// all-reduces, which never need it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "spx/cuda/context.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/dist.hpp"
#include "spx/plan.hpp"

namespace spx::cuda::dist {

/// GPUs this process can use (0 when none is usable).
int device_count();

/// An NCCL unique id (ncclUniqueId's bytes): made by one process, handed to every other.
using NcclId = std::array<char, 128>;

/// One rank of a team whose ranks live in different processes: this process drives rank `rank` of
/// `size` on its GPU `device`; every process passes the same `id` (Team::new_id() on one of them).
struct TeamMember {
  int rank = 0;
  int size = 1;
  int device = 0;
  NcclId id{};
};

/// The GPUs of a distributed product: per rank this process drives, a Context (its stream is the
/// rank's compute stream), a halo stream, and an NCCL communicator over all ranks.
class Team {
 public:
  /// GPUs 0 .. gpus-1, all driven by this process. spx::Error when fewer are usable or NCCL fails
  /// (with NCCL's reason).
  explicit Team(int gpus);
  explicit Team(const std::vector<int>& devices);
  /// One rank of a team spread over processes (collective: every member must construct its Team).
  explicit Team(const TeamMember& member);
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  /// A fresh id for TeamMember (ncclGetUniqueId).
  static NcclId new_id();

  int size() const;  ///< ranks over all processes
  /// The ranks this process drives, increasing and contiguous: every rank, or one.
  const std::vector<int>& members() const;
  bool drives(int rank) const;
  /// The first rank this process drives: it keeps the CG history and reads the solver's state.
  int lead() const { return members().front(); }
  /// The rank's objects; spx::Error for a rank this process does not drive.
  Context& context(int rank);
  cudaStream_t halo_stream(int rank);
  void* nccl_comm(int rank);  ///< ncclComm_t
  /// Waits for the streams of every rank this process drives; a device fault becomes spx::Error.
  void synchronize();
  /// f(rank) for every rank this process drives, each on a host thread of its own that keeps the
  /// rank's GPU current (one rank: on the calling thread); returns when all have returned, then
  /// rethrows the lowest rank's exception. One thread enqueueing every rank's work costs ~6 µs a
  /// rank per product; in parallel the ranks cost one. NCCL calls inside f name only `rank`'s
  /// communicator (it is then used like one process's).
  void on_ranks(const std::function<void(int rank)>& f);
  /// "2 × NVIDIA H100 80GB HBM3, NCCL 2.28.9, peer access 0↔1".
  std::string summary() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// Makes `device` current for the calling thread and restores the previous one on scope exit.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

/// A block-distributed dense vector (cols == 1) or row-major block of `cols` columns: rank r holds
/// rows [p.begin[r], p.begin[r + 1]) on its GPU.
template <class T>
class DistVector {
 public:
  DistVector(Team& team, const spx::dist::Partition& p, int64_t cols = 1);
  int64_t size() const { return partition_.size(); }
  int64_t cols() const { return cols_; }
  const spx::dist::Partition& partition() const { return partition_; }
  std::span<T> part(int rank);
  std::span<const T> part(int rank) const;
  /// The whole vector (size() × cols() row-major) from / to the host; synchronous. Only the
  /// blocks of the ranks this process drives move (the rest of a download is zero).
  void upload(std::span<const T> host);
  std::vector<T> download();
  /// One rank's block (block_size(rank) × cols() values) from / to the host; synchronous.
  void upload_part(int rank, std::span<const T> host);
  std::vector<T> download_part(int rank);
  /// Every entry set to `value` on every rank (asynchronous, on the ranks' streams).
  void fill(T value);

 private:
  Team* team_;
  spx::dist::Partition partition_;
  int64_t cols_;
  std::vector<DeviceBuffer<T>> parts_;
};

/// How a distributed matrix is set up.
struct DistOptions {
  plan::Options plan;  ///< for both parts of every rank (the front door's options)
  /// The remote part keeps only the rows that have remote entries when they are at most this
  /// fraction of the rank's rows (its product then goes to a short buffer that a kernel adds into
  /// y); above it, the remote part spans every row and adds into y directly (beta = 1).
  double compress_remote_below = 0.5;
  /// A rank whose local part comes in several int32 slices (spx::dist::RankPart) and holds more
  /// nonzeros than this is uploaded as one matrix with 64-bit row offsets, run by the 64-bit
  /// kernels, instead of slice by slice. Lower it only to test that path on small matrices.
  int64_t wide_local_above = spx::dist::kMaxSliceNnz;
  /// The halo moves in this many chunks, one NCCL group each (every message cut alike), and the
  /// remote part is cut the same way: piece k multiplies the x entries of chunk k, starting as soon
  /// as they are in while the next chunk moves, and gathers from that chunk only (an L2-sized
  /// window where the whole halo is not). Each chunk costs ~20 µs more (an NCCL group, a pass over
  /// y). 0: one chunk per whole halo_chunk_bytes of the busiest receiver's halo (values of T per
  /// product), from 1 to max_halo_chunks — the same on every process. Fitted on 4 × H200
  /// (docs/distributed.md): a 131 MB halo ran best in 4 chunks, a 17 MB one in 1.
  int halo_chunks = 0;
  double halo_chunk_bytes = 32e6;
  int max_halo_chunks = 4;
  /// The send and halo buffers registered with NCCL (ncclMemAlloc, ncclCommRegister), so that a
  /// send within a host writes straight into the receiver's buffer; every process must choose
  /// alike. false: cudaMalloc'd buffers through NCCL's staging copies.
  bool register_halo_buffers = true;
  /// Where the ranks live in several processes: called by every process after setting up its
  /// ranks and before the first message, with the setup's error ("" when none); it must throw on
  /// every process when any failed, so that none waits for a message that will never come
  /// (spx/cuda/dist_mpi.hpp's agree_on_setup). Unset: the error is thrown here.
  std::function<void(const std::string& error)> agree;
};

/// What one product does; the benchmark times the pieces apart to report the overlap.
enum class Phases : unsigned { Local = 1, Halo = 2, Remote = 4, All = 7 };

template <class T>
class DistSparseMatrix {
 public:
  /// Uploads every driven rank's parts to its GPU and plans their SpMV (D's ranks must equal
  /// team.size()), one host thread per rank. Parts of ranks another process drives are not read
  /// (they may be empty shells: spx/cuda/dist_mpi.hpp). Pass D as an rvalue to move its parts in rather than
  /// copy them (a matrix of tens of GB on the host).
  DistSparseMatrix(Team& team, spx::dist::DistMatrix<T> D, const DistOptions& options = {});
  ~DistSparseMatrix();
  DistSparseMatrix(DistSparseMatrix&&) noexcept;
  DistSparseMatrix& operator=(DistSparseMatrix&&) noexcept;

  int64_t rows() const;
  int64_t cols() const;
  int64_t nnz() const;
  Team& team();
  const spx::dist::Partition& row_partition() const;
  const spx::dist::Partition& col_partition() const;
  const spx::dist::DistStats& stats() const;
  /// Rank r's parts: its local part in local_slices(r) slices of consecutive rows (one unless the
  /// split cut it and wide_local_above kept the slices), and its remote part in remote_pieces(r)
  /// pieces (none when the rank needs no halo; one per halo chunk that brings it entries);
  /// remote() is null past the last piece.
  int local_slices(int rank) const;
  SparseMatrix<T>& local(int rank, int slice = 0);
  int remote_pieces(int rank) const;
  SparseMatrix<T>* remote(int rank, int piece = 0);
  /// Rows of a remote piece ("compressed": only the rows with entries in it).
  int64_t remote_rows(int rank, int piece = 0) const;
  bool remote_compressed(int rank, int piece = 0) const;
  /// The chunks each product's halo moves in (DistOptions::halo_chunks, resolved at setup).
  int halo_chunks() const;
  /// One line per rank: rows, nonzeros, halo in/out, and whose kernel each part's plan chose.
  std::string describe() const;
  /// Host seconds of the setup, each the largest over the ranks: checking and uploading a rank's
  /// parts, then planning them ("slowest rank: upload 3.1 s, plan 1.2 s").
  std::string setup_summary() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// y = alpha·A·x + beta·y over the team (beta = 0 never reads y). x follows A.col_partition(), y
/// A.row_partition(), both with cols() == 1. `phases` other than All is for timing studies only
/// (the result is then incomplete).
template <class T>
void spmv(DistSparseMatrix<T>& A, const DistVector<T>& x, DistVector<T>& y, T alpha = T{1}, T beta = T{0},
          Phases phases = Phases::All);

/// Y = alpha·A·X + beta·Y with X and Y of L = X.cols() columns, row-major on every rank; each halo
/// message carries L values per x entry. Planned per L on first use, like the front door.
template <class T>
void spmm(DistSparseMatrix<T>& A, const DistVector<T>& X, DistVector<T>& Y, T alpha = T{1}, T beta = T{0},
          Phases phases = Phases::All);

}  // namespace spx::cuda::dist
