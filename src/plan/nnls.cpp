// Lawson & Hanson, "Solving Least Squares Problems" (1974), chapter 23: the active-set NNLS. The
// unconstrained subproblems are solved from the normal equations by Gaussian elimination with
// partial pivoting: the systems are tiny (the model's coefficients), and columns are scaled to unit
// norm first so that terms of very different magnitudes (µs of launch against bytes) stay
// well-conditioned.
#include "plan/nnls.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "spx/error.hpp"

namespace spx::model {
namespace {

// Least squares on the columns in `passive` (normal equations); returns their coefficients.
std::vector<double> solve_passive(const std::vector<double>& A, const std::vector<double>& b, int rows,
                                  int cols, const std::vector<int>& passive) {
  const std::size_t n = passive.size();
  std::vector<double> M(n * (n + 1), 0.0);  // augmented [AtA | Atb]
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t q = 0; q < n; ++q) {
      double s = 0;
      for (int i = 0; i < rows; ++i)
        s += A[static_cast<std::size_t>(i) * cols + passive[p]] *
             A[static_cast<std::size_t>(i) * cols + passive[q]];
      M[p * (n + 1) + q] = s;
    }
    double s = 0;
    for (int i = 0; i < rows; ++i) s += A[static_cast<std::size_t>(i) * cols + passive[p]] * b[i];
    M[p * (n + 1) + n] = s;
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t pivot = k;
    for (std::size_t r = k + 1; r < n; ++r)
      if (std::abs(M[r * (n + 1) + k]) > std::abs(M[pivot * (n + 1) + k])) pivot = r;
    if (pivot != k)
      for (std::size_t c = 0; c <= n; ++c) std::swap(M[k * (n + 1) + c], M[pivot * (n + 1) + c]);
    const double d = M[k * (n + 1) + k];
    if (std::abs(d) < 1e-300) continue;  // dependent column: its coefficient stays 0
    for (std::size_t r = 0; r < n; ++r) {
      if (r == k) continue;
      const double f = M[r * (n + 1) + k] / d;
      if (f == 0) continue;
      for (std::size_t c = k; c <= n; ++c) M[r * (n + 1) + c] -= f * M[k * (n + 1) + c];
    }
  }
  std::vector<double> z(n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    const double d = M[k * (n + 1) + k];
    z[k] = std::abs(d) < 1e-300 ? 0.0 : M[k * (n + 1) + n] / d;
  }
  return z;
}

}  // namespace

std::vector<double> nnls(const std::vector<double>& A_in, const std::vector<double>& b, int rows, int cols) {
  if (rows < 0 || cols < 0 ||
      A_in.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) ||
      b.size() != static_cast<std::size_t>(rows))
    throw Error(fmt::format("nnls: A has {} entries and b {} for a {} x {} system", A_in.size(), b.size(),
                            rows, cols));
  // Unit-norm columns (undone at the end).
  std::vector<double> A = A_in, scale(static_cast<std::size_t>(cols), 0.0);
  for (int j = 0; j < cols; ++j) {
    double s = 0;
    for (int i = 0; i < rows; ++i)
      s += A[static_cast<std::size_t>(i) * cols + j] * A[static_cast<std::size_t>(i) * cols + j];
    scale[j] = s > 0 ? 1.0 / std::sqrt(s) : 0.0;
    for (int i = 0; i < rows; ++i) A[static_cast<std::size_t>(i) * cols + j] *= scale[j];
  }
  std::vector<double> x(static_cast<std::size_t>(cols), 0.0);
  std::vector<bool> in_passive(static_cast<std::size_t>(cols), false);
  const double tol = 1e-12;
  auto residual_gradient = [&] {
    std::vector<double> r(b);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) r[i] -= A[static_cast<std::size_t>(i) * cols + j] * x[j];
    std::vector<double> w(static_cast<std::size_t>(cols), 0.0);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) w[j] += A[static_cast<std::size_t>(i) * cols + j] * r[i];
    return w;
  };
  for (int outer = 0; outer < 3 * cols + 10; ++outer) {
    const std::vector<double> w = residual_gradient();
    int best = -1;
    for (int j = 0; j < cols; ++j)
      if (!in_passive[j] && scale[j] > 0 && w[j] > tol && (best < 0 || w[j] > w[best])) best = j;
    if (best < 0) break;  // Kuhn-Tucker conditions hold
    in_passive[best] = true;
    for (int inner = 0; inner < 3 * cols + 10; ++inner) {
      std::vector<int> passive;
      for (int j = 0; j < cols; ++j)
        if (in_passive[j]) passive.push_back(j);
      const std::vector<double> z = solve_passive(A, b, rows, cols, passive);
      bool feasible = true;
      for (double v : z) feasible = feasible && v > 0;
      if (feasible) {
        std::fill(x.begin(), x.end(), 0.0);
        for (std::size_t p = 0; p < passive.size(); ++p) x[passive[p]] = z[p];
        break;
      }
      // Step from x towards z as far as feasibility allows; columns that reach 0 leave.
      double alpha = std::numeric_limits<double>::infinity();
      for (std::size_t p = 0; p < passive.size(); ++p)
        if (z[p] <= 0) alpha = std::min(alpha, x[passive[p]] / (x[passive[p]] - z[p]));
      for (std::size_t p = 0; p < passive.size(); ++p) {
        const int j = passive[p];
        x[j] += alpha * (z[p] - x[j]);
        if (x[j] <= tol) {
          x[j] = 0;
          in_passive[j] = false;
        }
      }
    }
  }
  for (int j = 0; j < cols; ++j) x[j] *= scale[j];
  return x;
}

}  // namespace spx::model
