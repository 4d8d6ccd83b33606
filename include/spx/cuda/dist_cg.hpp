// Conjugate gradients over several GPUs (docs/distributed.md): the single-GPU solver's iteration
// (spx/cuda/cg.hpp, Chronopoulos–Gear PCG with fused vector kernels and the decisions made on the
// device) with the matrix a DistSparseMatrix and the inner products reduced over the ranks by one
// NCCL all-gather of a few doubles per rank, added in rank order on every rank: every rank makes
// the same decisions on the same sums, bit for bit, run after run.
//
//   spx::cuda::dist::DistCgSolver<double> solver(A);   // A square, rows split like its columns
//   auto r = solver.solve(&inv_diag, b, x, options);   // DistVectors; inv_diag may be null
//
// Reductions::One (default): the update's sums ((r, u), (r, r), (p, p), (x, x)) wait for the next
// product's δ = (w, u), and the five travel in one collective: one reduction point per iteration.
// Reductions::Two: the fused iteration as on one GPU, one collective at each of its two reduction
// points (after the update and after the product). Both compute the same sums and take the same
// decisions, so they give the same iterates, bit for bit; they differ in latency only.
#pragma once

#include <cstdint>
#include <memory>

#include "spx/cg.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/dist.hpp"

namespace spx::cuda::dist {

enum class Reductions { One, Two };
const char* to_string(Reductions r);  ///< "one", "two"

template <class T>
class DistCgSolver {
 public:
  /// Allocates the work vectors and the reduction buffers on every rank. spx::Error when A is not
  /// square or its rows are not split like its columns.
  explicit DistCgSolver(DistSparseMatrix<T>& A, Reductions reductions = Reductions::One);
  ~DistCgSolver();
  DistCgSolver(const DistCgSolver&) = delete;
  DistCgSolver& operator=(const DistCgSolver&) = delete;

  /// Solves A·x = b; inv_diag: the Jacobi inverse diagonal split like b, or null. The options are
  /// the single-GPU solver's (use_graph is ignored: the iterations are enqueued directly). The
  /// history (options.history) is kept by the lead rank of every process (each gets it whole).
  CgResult solve(const DistVector<T>* inv_diag, const DistVector<T>& b, DistVector<T>& x,
                 const CgOptions& options, const CgProgress& progress = {});

  Reductions reductions() const;
  /// NCCL collectives (reduction points) per iteration (1 or 2).
  int reductions_per_iteration() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Jacobi's inverse diagonal of a square matrix split with equal row and column partitions, taken
/// from every rank's local part (which holds the diagonal); spx::Error naming the global row of a
/// non-positive or missing diagonal entry.
template <class T>
DistVector<T> inverse_diagonal(Team& team, const spx::dist::DistMatrix<T>& D);

}  // namespace spx::cuda::dist
