// Why a CG solve cannot start: the right-hand side, the initial guess or A·x0 holds NaN or Inf.
// One wording for the CPU solver (which names the first bad entry) and the GPU solvers (which know
// only the norms their first reduction computed). The solve then ends as a breakdown at iteration 0.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace spx::cg_detail {

// The first entry of v that is NaN or Inf.
template <class T>
std::optional<std::size_t> first_not_finite(std::span<const T> v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(static_cast<double>(v[i]))) return i;
  return std::nullopt;
}

// " (b[3] = nan)" naming the entry, or "" when it is not known.
template <class T>
std::string entry_of(const char* name, std::span<const T> v, std::optional<std::size_t> i) {
  return i ? fmt::format(" ({}[{}] = {})", name, *i, static_cast<double>(v[*i])) : std::string();
}

inline std::string rhs_not_finite(const std::string& entry) {
  return "the right-hand side b holds NaN or Inf" + entry;
}
inline std::string rhs_norm_overflows() {
  return "the norm of the right-hand side b overflows (|b|^2 = inf)";
}
inline std::string x0_not_finite(const std::string& entry) {
  return "the initial guess x0 holds NaN or Inf" + entry;
}
inline std::string x0_or_product_not_finite() {
  return "the initial residual b - A*x0 is not finite: the initial guess x0 or the matrix holds NaN or Inf";
}
inline std::string product_not_finite() {
  return "the initial residual b - A*x0 is not finite: the matrix holds NaN or Inf (or A*x0 overflows)";
}

}  // namespace spx::cg_detail
