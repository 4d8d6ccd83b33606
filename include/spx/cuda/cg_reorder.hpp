// CG in a renumbered order (docs/cg.md, "Reordering"): the solver runs on an operator built on
// P A P^T (spx::reorder::reorder_for_solve, once, on the host); solve_permuted() gathers b, x0 and
// the Jacobi diagonal into the new numbering, solves there and scatters x back, so the caller sees
// A's own numbering throughout.
//
//   auto R = spx::reorder::reorder_for_solve(A, spx::reorder::Choice::Rcm);
//   auto op = spx::cuda::make_csr_operator(ctx, R.reordered ? R.A : A);
//   spx::cuda::CgSolver<double> solver(ctx, *op);
//   auto perm = spx::cuda::to_device(ctx, R.perm);
//   spx::CgResult r = spx::cuda::solve_permuted(ctx, solver, perm.span(), inv_diag, b, x, options);
#pragma once

#include <cstdint>
#include <span>

#include "spx/cg.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/context.hpp"

namespace spx::cuda {

/// solver.solve in the numbering `perm` (device span; new index i is old perm[i]): inv_diag, b and x
/// are device spans in the caller's numbering (inv_diag may be empty). An empty perm solves as is.
/// Allocates three work vectors per call; result.seconds covers the permutations too.
template <class T>
CgResult solve_permuted(Context& ctx, CgSolver<T>& solver, std::span<const int32_t> perm,
                        std::span<const T> inv_diag, std::span<const T> b, std::span<T> x,
                        const CgOptions& options, const CgProgress& progress = {});

}  // namespace spx::cuda
