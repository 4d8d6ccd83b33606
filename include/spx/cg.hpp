// Conjugate gradients, preconditioned or not (Jacobi), for symmetric positive definite systems:
// the options, the result, and the CPU solver (OpenMP), which is the reference for the GPU solver
// (spx/cuda/cg.hpp) and the fallback without a GPU.
//
// Algorithm (both backends, the same recurrences, so their iterates agree within rounding): the
// Chronopoulos–Gear form of PCG, whose inner products sit next to each other in the iteration
// (docs/cg.md):
//   r = b − A·x, u = M·r, w = A·u, γ = (r, u), δ = (w, u), α = γ/δ, β = 0
//   repeat: p = u + βp, s = w + βs, x += αp, r −= αs, u = M·r, γ' = (r, u), ρ = (r, r)
//           stop when √ρ <= max(rtol·‖b‖, atol)
//           w = A·u, δ = (w, u), β = γ'/γ, α = γ'/(δ − βγ'/α)
// with M = I (no preconditioner) or M = diag(A)⁻¹ (Jacobi). Inner products are accumulated in
// double (f32 too) and the scalars kept in double.
//
// Stops: Converged (‖r‖ <= max(rtol·‖b‖, atol), ‖r‖ the recurred residual), MaxIterations,
// Breakdown (pᵀAp = δ − βγ'/α <= 0, or (r, M r) <= 0, or a non-finite value: A or M is not SPD),
// Stagnation (the step no longer changes x: ‖αp‖ <= u‖x‖, u the unit roundoff of T, in 3 iterations
// in a row, as MATLAB's pcg; or, when stagnation_window > 0, no smaller residual in that many
// iterations — off by default: CG's residual may rise for hundreds of iterations on ill-conditioned
// matrices such as bcsstk13 and still converge). None of them throws or
// returns NaN: x holds the last finite iterate. A zero right-hand side gives x = 0 at iteration 0.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "spx/matrix.hpp"

namespace spx {

enum class CgStatus { Converged, MaxIterations, Breakdown, Stagnation };
const char* to_string(CgStatus status);  ///< "converged", "max_iterations", "breakdown", "stagnation"

enum class Preconditioner { None, Jacobi };
const char* to_string(Preconditioner p);  ///< "none", "jacobi"

struct CgOptions {
  double rtol = 1e-8;  ///< relative to ‖b‖
  double atol = 0;     ///< absolute
  int64_t max_iterations = 10000;
  Preconditioner preconditioner = Preconditioner::None;
  int64_t stagnation_window = 0;   ///< 0: no window rule
  bool history = true;             ///< keep ‖r‖ of every iteration
  bool zero_initial_guess = true;  ///< x = 0 first (else x holds the initial guess)
  /// GPU only: iterations enqueued between two reads of the device status (the host never waits
  /// per iteration), and whether they are replayed as one CUDA graph.
  int check_every = 32;
  bool use_graph = true;
};

struct CgResult {
  CgStatus status = CgStatus::MaxIterations;
  int64_t iterations = 0;
  double residual = 0;           ///< ‖r‖ of the recurrence at the last iteration
  double rhs_norm = 0;           ///< ‖b‖
  double relative_residual = 0;  ///< residual / ‖b‖ (0 when b = 0)
  std::vector<double> history;   ///< ‖r‖ at iterations 0 .. iterations (when asked for)
  double seconds = 0;            ///< wall time of the solve, setup of the operator excluded
  std::string message;           ///< one line: why it stopped
};

/// "converged in 123 iterations: ‖r‖/‖b‖ = 9.1e-09 (rtol 1e-08)" etc.
std::string summary(const CgResult& r);

/// The inverse diagonal of A for Jacobi; spx::Error naming the first row whose diagonal is absent,
/// zero or negative.
template <class T>
std::vector<T> inverse_diagonal(const Csr<T, int32_t>& A);
template <class T>
std::vector<T> inverse_diagonal(const Csr<T, int64_t>& A);  ///< 64-bit indices (spx cg --index 64)
/// The same for rows [first_row, first_row + A.rows) of a square matrix given as a block of rows
/// (a slice of a rank's local part): row r's diagonal entry is in column first_row + r.
template <class T>
std::vector<T> inverse_diagonal(const Csr<T, int32_t>& A, int64_t first_row);

/// The CPU solver on any operator y = A·x (size n). inv_diag: empty for no preconditioner.
/// `progress`, when given, is called after every iteration with its number and ‖r‖ (as the GPU
/// solver's CgProgress): a caller shows progress on a long solve from it, rate-limited itself.
template <class T>
using HostOperator = std::function<void(std::span<const T> x, std::span<T> y)>;
using HostCgProgress = std::function<void(int64_t iteration, double residual)>;
template <class T>
CgResult cg(const HostOperator<T>& apply, int64_t n, std::span<const T> inv_diag, std::span<const T> b,
            std::span<T> x, const CgOptions& options, const HostCgProgress& progress = {});

/// The CPU solver on a CSR matrix (spx::omp::spmv). Checks square shape and sizes; Jacobi takes the
/// inverse diagonal from A.
template <class T>
CgResult cg(const Csr<T, int32_t>& A, std::span<const T> b, std::span<T> x, const CgOptions& options);

}  // namespace spx
