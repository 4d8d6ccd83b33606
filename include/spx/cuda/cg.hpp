// Conjugate gradients on the GPU (docs/cg.md): the recurrences of the CPU solver (spx/cg.hpp,
// Chronopoulos–Gear PCG) with the vector operations merged and the host out of the loop.
//
//   auto A = spx::cuda::make_csr_operator(ctx, host_csr);        // or make_ell_operator,
//                                                               //    make_lma_operator(ctx, elements)
//   spx::cuda::CgSolver<double> solver(ctx, *A);                 // all allocation happens here
//   spx::CgResult r = solver.solve(inv_diag, b, x, options);     // device spans
//
// One iteration = the operator's product w = A·u, then two fused kernels:
//   scalars: δ = (w, u) reduced across the grid; the last block to finish computes β, α, checks
//            breakdown and the iteration cap, and writes them to the device-side state;
//   update:  p = u + βp, s = w + βs, x += αp, r −= αs, u = M·r with (r, u) and (r, r) computed
//            on the way; the last block records ‖r‖ in the history and decides convergence and
//            stagnation.
// Both kernels return at once once the state says the solve is over, so work enqueued after
// convergence costs a few microseconds. The host enqueues `check_every` iterations (replayed as one
// CUDA graph when options.use_graph, captured after all allocation), then a copy of the 136-byte
// state to pinned memory, and reads the copy of the previous batch while the next one runs: no
// host synchronisation per iteration, and the GPU never waits for the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "spx/cg.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/fem.hpp"
#include "spx/matrix.hpp"
#include "spx/plan.hpp"  // IndexWidth

namespace spx::cuda {

/// y = A·x for CG: enqueued on ctx.stream(), allocating nothing and never synchronising, so it can
/// be captured into a CUDA graph.
template <class T>
class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  virtual int64_t size() const = 0;
  virtual void apply(Context& ctx, std::span<const T> x, std::span<T> y) = 0;
  virtual std::string name() const = 0;        ///< "csr", "ell", "lma_atomic", "lma_colour", ...
  virtual std::string details() const = 0;     ///< the kernel's parameters, for the JSON
  virtual std::size_t bytes() const = 0;       ///< device bytes of the operator's data
  virtual double bytes_per_apply() const = 0;  ///< minimum bytes one product moves (docs/cg.md)
};

/// Through the front door (SparseMatrix, spx/cuda/sparse_matrix.hpp), planned at construction in
/// Measure mode among the bitwise-reproducible candidates, for `expected_calls` products: the CSR
/// candidates only (csr_only, name "csr": csr_param, csr_vector, segmented sum, cuSPARSE CSR), or
/// every candidate (name "auto").
template <class T>
std::unique_ptr<LinearOperator<T>> make_planned_operator(Context& ctx, const Csr<T, int32_t>& A,
                                                         bool csr_only = true, int64_t expected_calls = 1000);
/// The same for a matrix read or built with 64-bit indices (spx cg --index): the front door holds it
/// with the row offsets `width` gives (plan::offset_bits: Auto narrows to 32 bits where they fit).
template <class T>
std::unique_ptr<LinearOperator<T>> make_planned_operator(Context& ctx, Csr<T, int64_t> A,
                                                         plan::IndexWidth width, bool csr_only = true,
                                                         int64_t expected_calls = 1000);
/// CSR through spx's parametrised CSR SpMV and its fixed rule directly (plan_csr_spmv + spmv_csr),
/// without the planner: name "csr_param".
template <class T>
std::unique_ptr<LinearOperator<T>> make_csr_operator(Context& ctx, const Csr<T, int32_t>& A);
/// ELLPACK-R with T threads per row (the ellr_t_rule), converted on the GPU.
template <class T>
std::unique_ptr<LinearOperator<T>> make_ell_operator(Context& ctx, const Csr<T, int32_t>& A);
/// The local matrix approach on FEM element data: y = 0, then one thread per element gathers x,
/// multiplies by its packed symmetric local matrix and adds into y, either with atomicAdd (one
/// launch) or colour by colour with plain stores (4 launches; elements of a colour share no node).
enum class LmaScatter { Atomic, Colour };
template <class T>
std::unique_ptr<LinearOperator<T>> make_lma_operator(Context& ctx, const fem::ElementData<T>& E,
                                                     LmaScatter scatter);

/// Called with (iteration, ‖r‖) about every check_every iterations (never per iteration).
using CgProgress = std::function<void(int64_t iteration, double residual)>;

template <class T>
class CgSolver {
 public:
  /// Allocates the work vectors (r, u, w, p, s), the reduction scratch, the state and the history
  /// (options.max_iterations + 1 doubles, allocated on the first solve that needs them).
  CgSolver(Context& ctx, LinearOperator<T>& A);
  ~CgSolver();
  CgSolver(const CgSolver&) = delete;
  CgSolver& operator=(const CgSolver&) = delete;

  /// Solves A·x = b (device spans of size()); inv_diag: device span of the inverse diagonal for
  /// Jacobi, or empty. x is the initial guess unless options.zero_initial_guess. The result's
  /// seconds cover the solve, graph capture included, setup of the solver excluded.
  CgResult solve(std::span<const T> inv_diag, std::span<const T> b, std::span<T> x, const CgOptions& options,
                 const CgProgress& progress = {});

  int64_t size() const;
  /// Minimum bytes of one iteration's vector operations (the fused kernels; docs/cg.md).
  double vector_bytes_per_iteration(bool jacobi) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// The inverse diagonal of A on the device (Jacobi); spx::Error for a non-positive diagonal entry.
template <class T>
DeviceBuffer<T> device_inverse_diagonal(Context& ctx, const Csr<T, int32_t>& A);

}  // namespace spx::cuda
