// MPI ranks that each drive one GPU (docs/distributed.md, "MPI ranks on GPUs"): the CPU ranks'
// matrix (spx/dist_mpi.hpp's RankMatrix: split_block's rows merged over [owned x | halo]) uploaded
// to the rank's GPU as one front-door SparseMatrix, planned like any other, and the x halo moved
// either by NCCL (a communicator from an MPI-broadcast unique id; every rank needs its own GPU)
// or staged through the host over MPI (ranks may share a GPU). spx::dist::mpi::cg takes a
// GpuProduct as its operator: one CG driver, with exact sums, for CPU and GPU ranks.
//
// What is guaranteed: every row of a rank's matrix keeps its nonzeros in global column order, so
// a kernel whose row sum depends on the row alone (csr_vector, which the tests pin, on rows shorter
// than its long-row threshold: 2048 nonzeros or more, growing with the part's nonzeros) gives y
// bitwise equal to the same kernel on the whole matrix on one GPU, for every rank count and either
// transport; CG's iterates then agree bitwise across rank counts. GPU and
// CPU ranks sum rows in different orders, so they agree to rounding, not bitwise.
//
// Built with MPI and CUDA (built_with_gpu_ranks()); otherwise, or on a machine without a usable
// GPU, GpuProduct throws spx::Error saying which.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "spx/dist_mpi.hpp"
#include "spx/plan.hpp"

namespace spx::dist::mpi {

bool built_with_gpu_ranks();

// How the x halo travels between GPU ranks. Auto: NCCL when every rank has a GPU of its own (NCCL
// refuses two ranks on one GPU), else host-staged MPI.
enum class HaloTransport { Auto, Nccl, Mpi };
const char* to_string(HaloTransport t);                    // "auto", "nccl", "mpi"
HaloTransport parse_halo_transport(const std::string& s);  // spx::Error naming the choices

// The environment variable that picks a rank's GPU (a device index as this process sees it),
// for schedulers that do not set CUDA_VISIBLE_DEVICES per rank.
inline constexpr const char* kRankGpuEnv = "SPX_RANK_GPU";

struct GpuRankOptions {
  // This rank's GPU: >= 0 that index; -1: $SPX_RANK_GPU when set, else the rank's index among the
  // ranks of its host modulo the GPUs it sees (ranks share GPUs when there are fewer).
  int device = -1;
  HaloTransport halo = HaloTransport::Auto;
  plan::Options plan = default_plan();  // the rank's SparseMatrix's plan

  // Only bitwise-reproducible kernels: CG's decisions must be the same on every run.
  static plan::Options default_plan() {
    plan::Options o;
    o.deterministic_only = true;
    return o;
  }
};

// The GPU and halo transport of this rank, agreed by every rank of the group (GpuProduct's choice,
// and the CLI's between GpuProduct and a spx::cuda::dist::Team per rank): the GPU by
// options.device; halo never Auto (Auto: NCCL when no two ranks of a host share a GPU).
// Collective; JobError on every rank when a rank has no usable GPU, or NCCL is asked for on ranks
// sharing one.
struct RankGpu {
  int device = 0;
  HaloTransport halo = HaloTransport::Mpi;
};
RankGpu choose_rank_gpu(Group group, const GpuRankOptions& options = {});

// y = A·x on this rank's GPU, x and y on the host (as cg() keeps its vectors). Setup is collective
// over A.group: a rank without a usable GPU, a GPU index out of range, or NCCL asked for on ranks
// sharing a GPU throws JobError on every rank. Keeps A's address (A must outlive it).
template <class T>
class GpuProduct : public RankOperator<T> {
 public:
  explicit GpuProduct(const RankMatrix<T>& A, const GpuRankOptions& options = {});
  ~GpuProduct() override;
  GpuProduct(const GpuProduct&) = delete;
  GpuProduct& operator=(const GpuProduct&) = delete;

  void operator()(std::span<const T> x, std::span<T> y) override;

  int device() const;
  HaloTransport halo() const;  // Nccl or Mpi, never Auto
  // "GPU 0 (NVIDIA H200), halo over NCCL, kernel csr_param": this rank's choices.
  std::string describe() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace spx::dist::mpi
