// Local stiffness matrices of the Q_p elements with a varying coefficient: K_e[i][j] =
// Σ_q w_q kappa(x_q) ∇ξφ_i·∇ξφ_j over (p + 2)² Gauss–Legendre points. On a square element the
// affine map's Jacobian factors cancel in 2-D ((2/h)² from the gradients, h²/4 from the area).
#include <cmath>
#include <numbers>
#include <vector>

#include "generate/fem_detail.hpp"

namespace spx::fem::detail {
namespace {

// Lagrange basis l_a on `nodes` and its derivative at t.
void lagrange(const std::vector<double>& nodes, std::size_t a, double t, double& value, double& derivative) {
  value = 1;
  derivative = 0;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    if (k == a) continue;
    const double factor = (t - nodes[k]) / (nodes[a] - nodes[k]);
    derivative = derivative * factor + value / (nodes[a] - nodes[k]);
    value *= factor;
  }
}

}  // namespace

std::vector<double> local_matrices(const FemSpec& spec) {
  const int p = spec.p;
  const std::size_t p1 = static_cast<std::size_t>(p) + 1, m = p1 * p1;
  const std::vector<double> nodes = nodes_1d(p, spec.nodes);
  std::vector<double> qx, qw;
  gauss_legendre(p + 2, qx, qw);
  const std::size_t nq = qx.size();
  std::vector<double> L(p1 * nq), D(p1 * nq);  // l_a(ξ_q), l_a'(ξ_q) at [a·nq + q]
  for (std::size_t a = 0; a < p1; ++a)
    for (std::size_t q = 0; q < nq; ++q) lagrange(nodes, a, qx[q], L[a * nq + q], D[a * nq + q]);

  const int64_t n = spec.n;
  const double h = 1.0 / static_cast<double>(n);
  std::vector<double> K(static_cast<std::size_t>(n * n) * m * m);
#pragma omp parallel if (n * n * static_cast <int64_t>(m * m) >= (int64_t{1} << 16))
  {
    std::vector<double> gx(m * nq * nq), gy(m * nq * nq), wk(nq * nq);
#pragma omp for schedule(static)
    for (int64_t e = 0; e < n * n; ++e) {
      const double x0 = static_cast<double>(e % n) * h, y0 = static_cast<double>(e / n) * h;
      for (std::size_t qb = 0; qb < nq; ++qb)
        for (std::size_t qa = 0; qa < nq; ++qa) {
          const double x = x0 + (qx[qa] + 1) * h / 2, y = y0 + (qx[qb] + 1) * h / 2;
          const double kappa = 1 + spec.kappa_amplitude * std::sin(2 * std::numbers::pi * x) *
                                       std::sin(2 * std::numbers::pi * y);
          wk[qa + nq * qb] = qw[qa] * qw[qb] * kappa;
        }
      for (std::size_t b = 0; b < p1; ++b)
        for (std::size_t a = 0; a < p1; ++a)
          for (std::size_t qb = 0; qb < nq; ++qb)
            for (std::size_t qa = 0; qa < nq; ++qa) {
              const std::size_t i = a + p1 * b, q = qa + nq * qb;
              gx[i * nq * nq + q] = D[a * nq + qa] * L[b * nq + qb];
              gy[i * nq * nq + q] = L[a * nq + qa] * D[b * nq + qb];
            }
      double* Ke = &K[static_cast<std::size_t>(e) * m * m];
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = i; j < m; ++j) {
          double sum = 0;
          for (std::size_t q = 0; q < nq * nq; ++q)
            sum += wk[q] *
                   (gx[i * nq * nq + q] * gx[j * nq * nq + q] + gy[i * nq * nq + q] * gy[j * nq * nq + q]);
          Ke[i * m + j] = sum;
          Ke[j * m + i] = sum;
        }
    }
  }
  return K;
}

}  // namespace spx::fem::detail
