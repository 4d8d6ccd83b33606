// CPU conjugate gradients (spx/cg.hpp): the Chronopoulos–Gear recurrences of the GPU solver with
// OpenMP loops, each fused loop computing its inner products as it updates (double accumulation).
#include "spx/cg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "common/cg_not_finite.hpp"
#include "common/cg_stop.hpp"
#include "spx/cpu.hpp"
#include "spx/error.hpp"

namespace spx {

const char* to_string(CgStatus status) {
  switch (status) {
    case CgStatus::Converged:
      return "converged";
    case CgStatus::MaxIterations:
      return "max_iterations";
    case CgStatus::Breakdown:
      return "breakdown";
    case CgStatus::Stagnation:
      return "stagnation";
  }
  return "?";
}

const char* to_string(Preconditioner p) { return p == Preconditioner::Jacobi ? "jacobi" : "none"; }

std::string summary(const CgResult& r) {
  switch (r.status) {
    case CgStatus::Converged:
      return fmt::format("converged in {} iterations: |r| = {:.3e}, |r|/|b| = {:.3e}", r.iterations,
                         r.residual, r.relative_residual);
    case CgStatus::MaxIterations:
      return fmt::format("not converged: iteration cap {} reached at |r|/|b| = {:.3e}", r.iterations,
                         r.relative_residual);
    case CgStatus::Breakdown:
      if (!std::isfinite(r.relative_residual))  // b or the first residual holds NaN or Inf: no ratio
        return fmt::format("breakdown at iteration {}: {}", r.iterations, r.message);
      return fmt::format("breakdown at iteration {}: {} (|r|/|b| = {:.3e})", r.iterations, r.message,
                         r.relative_residual);
    case CgStatus::Stagnation:
      return fmt::format("stagnated at iteration {}: {} (|r|/|b| = {:.3e})", r.iterations, r.message,
                         r.relative_residual);
  }
  return "?";
}

namespace {

// Jacobi's inverse diagonal for either index type (a matrix read with 64-bit indices, spx cg --index).
template <class T, class I>
std::vector<T> inverse_diagonal_of(const Csr<T, I>& A, int64_t first_row) {
  if (first_row < 0 || first_row + A.rows > A.cols)
    throw Error(fmt::format("Jacobi: rows {} .. {} of a matrix of {} columns hold no square's diagonal",
                            first_row, first_row + A.rows - 1, A.cols));
  // Row r's entry in column first_row + r, or 0 when it has none.
  const auto diagonal = [&](I r) {
    double d = 0;
    for (I k = A.row_ptr[static_cast<std::size_t>(r)]; k < A.row_ptr[static_cast<std::size_t>(r) + 1]; ++k)
      if (A.col_idx[static_cast<std::size_t>(k)] == first_row + r)
        d = static_cast<double>(A.values[static_cast<std::size_t>(k)]);
    return d;
  };
  std::vector<T> inv(static_cast<std::size_t>(A.rows));
  int64_t bad = A.rows;  // the first row without a positive diagonal
#pragma omp parallel for schedule(static) reduction(min : bad) if (A.rows >= 8192)
  for (I r = 0; r < A.rows; ++r) {
    const double d = diagonal(r);
    if (d > 0)
      inv[static_cast<std::size_t>(r)] = static_cast<T>(1.0 / d);
    else
      bad = std::min<int64_t>(bad, r);
  }
  if (bad < A.rows)
    throw Error(fmt::format("Jacobi needs a positive diagonal: row {} has diagonal {} (not SPD?)",
                            first_row + bad, diagonal(static_cast<I>(bad))));
  return inv;
}

template <class T, class I>
std::vector<T> inverse_diagonal_square(const Csr<T, I>& A) {
  if (A.rows != A.cols) throw Error(fmt::format("Jacobi: matrix is {} x {}, not square", A.rows, A.cols));
  return inverse_diagonal_of(A, 0);
}

}  // namespace

template <class T>
std::vector<T> inverse_diagonal(const Csr<T, int32_t>& A, int64_t first_row) {
  return inverse_diagonal_of(A, first_row);
}

template <class T>
std::vector<T> inverse_diagonal(const Csr<T, int32_t>& A) {
  return inverse_diagonal_square(A);
}

template <class T>
std::vector<T> inverse_diagonal(const Csr<T, int64_t>& A) {
  return inverse_diagonal_square(A);
}

namespace {

bool parallel(int64_t n) { return n >= 8192; }

// Which value keeps CG from starting when ‖b‖² or the initial residual is not finite: b (its
// first bad entry), x0 (when the caller gave one), or else A·x0.
template <class T>
std::string not_finite_start(std::span<const T> b, std::span<const T> x, bool initial_guess, double bb) {
  using namespace cg_detail;
  if (!std::isfinite(bb)) {
    const auto i = first_not_finite(b);
    return i ? rhs_not_finite(entry_of("b", b, i)) : rhs_norm_overflows();
  }
  if (initial_guess)
    if (const auto i = first_not_finite(x)) return x0_not_finite(entry_of("x0", x, i));
  return product_not_finite();
}

}  // namespace

template <class T>
CgResult cg(const HostOperator<T>& apply, int64_t n, std::span<const T> inv_diag, std::span<const T> b,
            std::span<T> x, const CgOptions& options, const HostCgProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  if (static_cast<int64_t>(b.size()) != n || static_cast<int64_t>(x.size()) != n)
    throw Error(
        fmt::format("cg: b has {} and x {} entries; the operator has {} rows", b.size(), x.size(), n));
  const bool jacobi = !inv_diag.empty();
  if (jacobi && static_cast<int64_t>(inv_diag.size()) != n)
    throw Error(fmt::format("cg: Jacobi diagonal has {} entries, not {}", inv_diag.size(), n));
  if (options.max_iterations < 0) throw Error("cg: max_iterations must be >= 0");
  const std::size_t N = static_cast<std::size_t>(n);
  std::vector<T> r(N), u(N), w(N), p(N, T{0}), s(N, T{0});
  CgResult res;
  auto finish = [&](CgStatus status, std::string message) {
    res.status = status;
    res.message = std::move(message);
    res.relative_residual = res.rhs_norm == 0 ? 0 : res.residual / res.rhs_norm;  // NaN for a NaN b
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
  };
  if (options.zero_initial_guess) std::fill(x.begin(), x.end(), T{0});
  apply(std::span<const T>(x), std::span<T>(w));
  double bb = 0, gamma = 0, rr = 0;
#pragma omp parallel for reduction(+ : bb, gamma, rr) if (parallel(n))
  for (int64_t i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    r[k] = b[k] - w[k];
    u[k] = jacobi ? r[k] * inv_diag[k] : r[k];
    bb += static_cast<double>(b[k]) * static_cast<double>(b[k]);
    gamma += static_cast<double>(r[k]) * static_cast<double>(u[k]);
    rr += static_cast<double>(r[k]) * static_cast<double>(r[k]);
  }
  res.rhs_norm = std::sqrt(bb);
  res.residual = std::sqrt(rr);
  if (options.history) res.history.push_back(res.residual);
  if (bb == 0) {
    std::fill(x.begin(), x.end(), T{0});
    res.residual = 0;
    if (options.history) res.history.back() = 0;
    return finish(CgStatus::Converged, "zero right-hand side: x = 0");
  }
  const double tol = std::max(options.rtol * res.rhs_norm, options.atol);
  if (!std::isfinite(bb) || !std::isfinite(rr))
    return finish(CgStatus::Breakdown,
                  not_finite_start<T>(b, std::span<const T>(x), !options.zero_initial_guess, bb));
  if (res.residual <= tol) return finish(CgStatus::Converged, "initial guess already converged");
  double alpha = 0, beta = 0;
  cg_detail::CgStopRule rule(rr, cg_detail::kUnit<T>);
  for (int64_t it = 0;; ++it) {
    // w = A·u, δ = (w, u), then the scalars of the next update.
    apply(std::span<const T>(u), std::span<T>(w));
    double delta = 0;
#pragma omp parallel for reduction(+ : delta) if (parallel(n))
    for (int64_t i = 0; i < n; ++i)
      delta += static_cast<double>(w[static_cast<std::size_t>(i)]) *
               static_cast<double>(u[static_cast<std::size_t>(i)]);
    if (!(gamma > 0) || !std::isfinite(gamma))
      return finish(CgStatus::Breakdown,
                    fmt::format("(r, M r) = {:.3e} <= 0: the preconditioner is not SPD", gamma));
    const double pap = it == 0 ? delta : delta - beta * gamma / alpha;
    if (!(pap > 0) || !std::isfinite(pap))
      return finish(CgStatus::Breakdown, fmt::format("p'Ap = {:.3e} <= 0: the matrix is not SPD", pap));
    alpha = gamma / pap;
    if (it >= options.max_iterations) return finish(CgStatus::MaxIterations, "iteration cap reached");
    // p = u + βp, s = w + βs, x += αp, r −= αs, u = M r, γ' = (r, u), ρ = (r, r).
    const T a = static_cast<T>(alpha), bt = static_cast<T>(beta);
    double gamma_new = 0, pp = 0, xx = 0;
    rr = 0;
#pragma omp parallel for reduction(+ : gamma_new, rr, pp, xx) if (parallel(n))
    for (int64_t i = 0; i < n; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      p[k] = u[k] + bt * p[k];
      s[k] = w[k] + bt * s[k];
      x[k] += a * p[k];
      r[k] -= a * s[k];
      u[k] = jacobi ? r[k] * inv_diag[k] : r[k];
      gamma_new += static_cast<double>(r[k]) * static_cast<double>(u[k]);
      rr += static_cast<double>(r[k]) * static_cast<double>(r[k]);
      pp += static_cast<double>(p[k]) * static_cast<double>(p[k]);
      xx += static_cast<double>(x[k]) * static_cast<double>(x[k]);
    }
    res.iterations = it + 1;
    res.residual = std::sqrt(rr);
    if (options.history) res.history.push_back(res.residual);
    if (progress) progress(res.iterations, res.residual);
    if (auto stop = rule.after(res.iterations, rr, res.residual, tol, alpha, pp, xx, options))
      return finish(stop->first, std::move(stop->second));
    beta = gamma_new / gamma;
    gamma = gamma_new;
  }
}

template <class T>
CgResult cg(const Csr<T, int32_t>& A, std::span<const T> b, std::span<T> x, const CgOptions& options) {
  if (A.rows != A.cols) throw Error(fmt::format("cg: matrix is {} x {}, not square", A.rows, A.cols));
  std::vector<T> inv;
  if (options.preconditioner == Preconditioner::Jacobi) inv = inverse_diagonal(A);
  const HostOperator<T> apply = [&A](std::span<const T> in, std::span<T> out) { omp::spmv(A, in, out); };
  return cg<T>(apply, A.rows, std::span<const T>(inv), b, x, options);
}

template std::vector<float> inverse_diagonal<float>(const Csr<float, int32_t>&);
template std::vector<double> inverse_diagonal<double>(const Csr<double, int32_t>&);
template std::vector<float> inverse_diagonal<float>(const Csr<float, int32_t>&, int64_t);
template std::vector<double> inverse_diagonal<double>(const Csr<double, int32_t>&, int64_t);
template std::vector<float> inverse_diagonal<float>(const Csr<float, int64_t>&);
template std::vector<double> inverse_diagonal<double>(const Csr<double, int64_t>&);
template CgResult cg<float>(const HostOperator<float>&, int64_t, std::span<const float>,
                            std::span<const float>, std::span<float>, const CgOptions&,
                            const HostCgProgress&);
template CgResult cg<double>(const HostOperator<double>&, int64_t, std::span<const double>,
                             std::span<const double>, std::span<double>, const CgOptions&,
                             const HostCgProgress&);
template CgResult cg<float>(const Csr<float, int32_t>&, std::span<const float>, std::span<float>,
                            const CgOptions&);
template CgResult cg<double>(const Csr<double, int32_t>&, std::span<const double>, std::span<double>,
                             const CgOptions&);

}  // namespace spx
