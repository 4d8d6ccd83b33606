// When a host CG driver stops after an iteration (spx::cg, the MPI ranks' cg: one rule, so that
// both take the same decisions on the same sums; the GPU solvers take them in device code,
// cuda/solve/cg_kernels.cu, with the same constants). In order: a residual that is not finite
// (breakdown), convergence, a step that no longer changes x (|α p| <= u |x|) for kStagnationSteps
// iterations in a row, no smaller residual in options.stagnation_window iterations (when asked
// for), the iteration cap.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "spx/cg.hpp"

namespace spx::cg_detail {

inline constexpr int64_t kStagnationSteps = 3;

// The stagnation messages, the GPU solvers' too (cuda/solve/cg_driver.cpp).
inline std::string unchanged_message() {
  return fmt::format("x no longer changes: |alpha p| <= u |x| for {} iterations", kStagnationSteps);
}
inline std::string no_smaller_residual_message(int64_t window) {
  return fmt::format("no smaller residual in {} iterations", window);
}

// The unit roundoff of T, the stagnation test's u.
template <class T>
constexpr double kUnit = sizeof(T) == 4 ? 0x1.0p-24 : 0x1.0p-53;

class CgStopRule {
 public:
  /// rr0: ‖r‖² of the initial residual; unit: kUnit<T>.
  CgStopRule(double rr0, double unit) : best_(rr0), unit_(unit) {}

  /// After iteration `iterations` (from 1), with ‖r‖² = rr (‖r‖ = residual), the step's α and the
  /// iteration's ‖p‖² and ‖x‖²: the status and message to stop with, or none.
  std::optional<std::pair<CgStatus, std::string>> after(int64_t iterations, double rr, double residual,
                                                        double tol, double alpha, double pp, double xx,
                                                        const CgOptions& options) {
    if (!std::isfinite(rr)) return std::pair{CgStatus::Breakdown, std::string("residual is not finite")};
    if (residual <= tol) return std::pair{CgStatus::Converged, std::string()};
    steps_without_change_ = alpha * alpha * pp <= unit_ * unit_ * xx ? steps_without_change_ + 1 : 0;
    if (steps_without_change_ >= kStagnationSteps)
      return std::pair{CgStatus::Stagnation, unchanged_message()};
    if (rr < best_) {
      best_ = rr;
      best_it_ = iterations;
    } else if (options.stagnation_window > 0 && iterations - best_it_ >= options.stagnation_window) {
      return std::pair{CgStatus::Stagnation, no_smaller_residual_message(options.stagnation_window)};
    }
    if (iterations >= options.max_iterations)
      return std::pair{CgStatus::MaxIterations, std::string("iteration cap reached")};
    return std::nullopt;
  }

 private:
  double best_;
  double unit_;
  int64_t best_it_ = 0, steps_without_change_ = 0;
};

}  // namespace spx::cg_detail
