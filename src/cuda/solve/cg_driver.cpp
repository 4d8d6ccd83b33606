// The host side shared by the GPU CG drivers (cg_driver.hpp).
#include "cuda/solve/cg_driver.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "common/cg_not_finite.hpp"
#include "common/cg_stop.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {

static_assert(kCgStagnationSteps == cg_detail::kStagnationSteps, "the GPU and host CG stop alike");

namespace {

// A residual that is not finite before the first iteration names its cause from the norms the
// first reduction computed: b (‖b‖² not finite), else x0 or the matrix.
std::string not_finite_start(const CgState& st, const CgOptions& options) {
  using namespace cg_detail;
  if (!std::isfinite(st.bb)) return rhs_not_finite("");
  return options.zero_initial_guess ? product_not_finite() : x0_or_product_not_finite();
}

std::string breakdown_message(const CgState& st, const CgOptions& options) {
  if (st.reason == kReasonNotFinite && st.it == 0 && !std::isfinite(st.rr))
    return not_finite_start(st, options);
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

CgState initial_cg_state(const CgOptions& options) {
  if (options.max_iterations < 0) throw Error("cg: max_iterations must be >= 0");
  if (options.check_every < 1) throw Error("cg: check_every must be >= 1");
  CgState init{};
  init.rtol = options.rtol;
  init.atol = options.atol;
  init.max_it = options.max_iterations;
  init.window = options.stagnation_window;
  return init;
}

void run_cg_batches(Context& ctx, const CgState* state, CgState* host, Event& done0, Event& done1,
                    const CgOptions& options, const std::function<void()>& enqueue_batch,
                    const CgProgress& progress) {
  Event* done[2] = {&done0, &done1};
  const int64_t max_batches = options.max_iterations / options.check_every + 3;
  bool finished = false;
  for (int64_t batch = 0; !finished; ++batch) {
    if (batch < max_batches) {
      enqueue_batch();
      copy_to_host_async(ctx, &host[batch % 2], state, sizeof(CgState));
      done[batch % 2]->record(ctx.stream());
    }
    if (batch >= 1) {
      const int64_t prev = batch - 1;
      done[prev % 2]->synchronize();
      const CgState& st = host[prev % 2];
      if (progress) progress(st.it, std::sqrt(st.rr));
      finished = st.status != kCgRunning;
    }
    if (batch >= max_batches) finished = true;
  }
}

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
      res.message = st.reason == kReasonUnchanged
                        ? cg_detail::unchanged_message()
                        : cg_detail::no_smaller_residual_message(options.stagnation_window);
      break;
    case kCgBreakdown:
      res.status = CgStatus::Breakdown;
      res.message = breakdown_message(st, options);
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
  res.relative_residual = res.rhs_norm == 0 ? 0 : res.residual / res.rhs_norm;  // NaN for a NaN b
  return res;
}

}  // namespace spx::cuda::detail
