// The host's reading of the device state a GPU solve ends in (cg_result.hpp).
#include "cuda/solve/cg_result.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

std::string breakdown_message(const CgState& st) {
  switch (st.reason) {
    case kReasonGamma:
      return fmt::format("(r, M r) = {:.3e} <= 0: the preconditioner is not SPD", st.bad);
    case kReasonCurvature:
      return fmt::format("p'Ap = {:.3e} <= 0: the matrix is not SPD", st.bad);
    case kReasonNotFinite:
      return "residual is not finite";
    default:
      return "breakdown";
  }
}

}  // namespace

CgResult cg_result(const CgState& st, const CgOptions& options) {
  CgResult res;
  res.iterations = st.it;
  res.rhs_norm = std::sqrt(st.bb);
  res.residual = std::sqrt(st.rr);
  switch (st.status) {
    case kCgConverged:
      res.status = CgStatus::Converged;
      break;
    case kCgMaxIterations:
      res.status = CgStatus::MaxIterations;
      res.message = "iteration cap reached";
      break;
    case kCgStagnation:
      res.status = CgStatus::Stagnation;
      res.message =
          st.reason == kReasonUnchanged
              ? fmt::format("x no longer changes: |alpha p| <= u |x| for {} iterations", kCgStagnationSteps)
              : fmt::format("no smaller residual in {} iterations", options.stagnation_window);
      break;
    case kCgBreakdown:
      res.status = CgStatus::Breakdown;
      res.message = breakdown_message(st);
      break;
    default:
      throw Error("cg: the device state is still running after the last batch (internal error)");
  }
  if (st.reason == kReasonZeroRhs) {
    res.residual = 0;
    res.message = "zero right-hand side: x = 0";
  } else if (st.reason == kReasonInitialConverged) {
    res.message = "initial guess already converged";
  }
  res.relative_residual = res.rhs_norm > 0 ? res.residual / res.rhs_norm : 0;
  return res;
}

}  // namespace spx::cuda::detail
