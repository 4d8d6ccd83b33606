// 1-D ingredients of the Q_p elements: Gauss–Lobatto–Legendre (or equispaced) nodes and
// Gauss–Legendre quadrature, both by Newton's method on the Legendre recurrence (no tables).
#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "spx/error.hpp"
#include "spx/fem.hpp"

namespace spx::fem {
namespace {

// P_k(x) and P_k'(x) by the three-term recurrence.
void legendre(int k, double x, double& value, double& derivative) {
  double p0 = 1, p1 = x;
  if (k == 0) {
    value = 1;
    derivative = 0;
    return;
  }
  for (int j = 2; j <= k; ++j) {
    const double p2 = ((2.0 * j - 1) * x * p1 - (j - 1.0) * p0) / j;
    p0 = p1;
    p1 = p2;
  }
  value = p1;
  derivative = k * (x * p1 - p0) / (x * x - 1);  // interior points only
}

}  // namespace

void gauss_legendre(int q, std::vector<double>& points, std::vector<double>& weights) {
  if (q < 1) throw Error(fmt::format("gauss_legendre: {} points", q));
  points.assign(static_cast<std::size_t>(q), 0.0);
  weights.assign(static_cast<std::size_t>(q), 0.0);
  for (int i = 0; i < q; ++i) {
    double x = -std::cos(std::numbers::pi * (i + 0.75) / (q + 0.5));  // ascending initial guess
    double value = 0, derivative = 1;
    for (int it = 0; it < 100; ++it) {
      legendre(q, x, value, derivative);
      const double step = value / derivative;
      x -= step;
      if (std::abs(step) < 1e-16) break;
    }
    legendre(q, x, value, derivative);
    points[static_cast<std::size_t>(i)] = x;
    weights[static_cast<std::size_t>(i)] = 2.0 / ((1 - x * x) * derivative * derivative);
  }
}

std::vector<double> nodes_1d(int p, NodeFamily family) {
  std::vector<double> x(static_cast<std::size_t>(p) + 1);
  x.front() = -1;
  x.back() = 1;
  for (int i = 1; i < p; ++i) {
    double t = -std::cos(std::numbers::pi * i / p);  // Chebyshev–Lobatto guess
    if (family == NodeFamily::Equispaced) {
      t = -1.0 + 2.0 * i / p;
    } else {
      // Roots of P_p'(x): Newton on q(x) = (1 - x²) P_p'(x), whose derivative is -p(p+1) P_p(x).
      for (int it = 0; it < 100; ++it) {
        double value = 0, derivative = 0;
        legendre(p, t, value, derivative);
        const double q = (1 - t * t) * derivative;
        const double dq = -p * (p + 1.0) * value;
        const double step = q / dq;
        t -= step;
        if (std::abs(step) < 1e-16) break;
      }
    }
    x[static_cast<std::size_t>(i)] = t;
  }
  return x;
}

}  // namespace spx::fem
