// The fused kernels of the GPU CG (spx/cuda/cg.hpp) and the device-side state they share. Host
// code includes this header to launch them; the kernels live in cg_kernels.cu.
#pragma once

#include <cstdint>

#include "spx/cuda/context.hpp"

namespace spx::cuda::detail {

inline constexpr int kCgBlock = 256;
inline constexpr int kCgBlocksPerSm = 8;  // 2048 resident threads per SM: full occupancy

enum CgCode : int {
  kCgRunning = 0,
  kCgConverged = 1,
  kCgMaxIterations = 2,
  kCgBreakdown = 3,
  kCgStagnation = 4
};
enum CgReason : int {
  kReasonNone = 0,
  kReasonZeroRhs = 1,
  kReasonInitialConverged = 2,
  kReasonGamma = 10,      // (r, M r) <= 0
  kReasonCurvature = 11,  // pᵀAp <= 0
  kReasonNotFinite = 12,  // residual not finite
  kReasonUnchanged = 20,  // stagnation: |αp| <= u|x| for kCgStagnationSteps iterations
  kReasonWindow = 21,     // stagnation: no smaller residual in the window
};
inline constexpr long long kCgStagnationSteps = 3;

// Everything the iteration decides on the device; copied to the host every check_every iterations.
struct CgState {
  double gamma, gamma_prev, alpha, beta, rr, bb, rtol, atol, tol, best_rr, bad;
  long long it, best_it, max_it, window, unchanged;
  int status, reason;
};

// A distributed solve (spx/cuda/dist_cg.hpp) gives the kernels below `totals`: the last block then
// writes the grid's sums there (init 3, scalars 1, update 4 doubles, in the order the kernels
// reduce them) and decides nothing. The ranks' sums are all-gathered (rank r's at r·count), and
// launch_cg_decide adds them up in rank order — the same bits on every rank, every run and either
// grouping of the reductions — and makes the single-GPU solver's decisions on them. Null totals:
// the single-GPU solve.
enum class CgStage : int {
  Init,               // 3 sums: ‖b‖², (r, u), (r, r)
  Scalars,            // 1 sum: δ = (w, u)
  Update,             // 4 sums: (r, u), (r, r), (p, p), (x, x)
  UpdateThenScalars,  // 5 sums: Update's four, then Scalars' δ (the single-reduction iteration)
};
constexpr int cg_stage_sums(CgStage stage) {
  return stage == CgStage::Init ? 3 : stage == CgStage::Scalars ? 1 : stage == CgStage::Update ? 4 : 5;
}
template <class T>
void launch_cg_decide(cudaStream_t stream, CgStage stage, const double* gathered, int ranks, CgState* state,
                      double* history);

// r = b − w (w = A·x0), u = M·r; ‖b‖², (r, u), (r, r); the last block sets the tolerance, history[0]
// and the first decisions (zero rhs, already converged, not finite).
template <class T>
void launch_cg_init(cudaStream_t stream, unsigned grid, int64_t n, const T* b, const T* w, T* r, T* u,
                    const T* inv_diag, double* partials, unsigned* counter, CgState* state, double* history,
                    double* totals = nullptr);
// δ = (w, u); the last block computes β, α, checks breakdown and the iteration cap.
template <class T>
void launch_cg_scalars(cudaStream_t stream, unsigned grid, int64_t n, const T* w, const T* u,
                       double* partials, unsigned* counter, CgState* state, double* totals = nullptr);
// p = u + βp, s = w + βs, x += αp, r −= αs, u = M·r, (r, u), (r, r); the last block records ‖r‖ and
// decides convergence, stagnation and the cap.
template <class T>
void launch_cg_update(cudaStream_t stream, unsigned grid, int64_t n, const T* w, T* u, T* p, T* s, T* x, T* r,
                      const T* inv_diag, double* partials, unsigned* counter, CgState* state, double* history,
                      double* totals = nullptr);

}  // namespace spx::cuda::detail
