// CG over MPI ranks (spx/dist_mpi.hpp): spx::cg's Chronopoulos–Gear recurrences (src/cpu/cg.cpp,
// the same loops and stopping rules) on this rank's rows, with every inner product an exact sum
// over all ranks (common/exact_sum.hpp): the scalars, and so every decision, are the same bits on
// every rank and for every rank count. The one product per iteration is the RankOperator's
// (Product's on CPUs, GpuProduct's on GPUs).
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <vector>

#include "common/cg_not_finite.hpp"
#include "common/cg_stop.hpp"
#include "common/exact_sum.hpp"
#include "mpi/comm.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/error.hpp"

namespace spx::dist::mpi {
namespace {

using spx::detail::ExactSum;

constexpr int64_t kParallelRows = 8192;  // rows below which a loop runs on one thread

// body(i, terms) updates row i and writes its S terms; returns the S sums over every rank's rows,
// each exact and then rounded once, so identical on every rank.
template <int S, class Body>
std::array<double, S> exact_sums(Group group, int64_t n, const Body& body) {
  std::array<ExactSum, S> total{};
#pragma omp parallel if (n >= kParallelRows)
  {
    std::array<ExactSum, S> mine{};
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      std::array<double, S> t{};
      body(i, t);
      for (int s = 0; s < S; ++s) mine[static_cast<std::size_t>(s)].add(t[static_cast<std::size_t>(s)]);
    }
#pragma omp critical
    for (int s = 0; s < S; ++s) total[static_cast<std::size_t>(s)].add(mine[static_cast<std::size_t>(s)]);
  }
  std::array<int64_t, static_cast<std::size_t>(S) * ExactSum::kWords> words{};
  for (int s = 0; s < S; ++s) {
    auto& e = total[static_cast<std::size_t>(s)];
    e.normalize();
    std::copy(e.words(), e.words() + ExactSum::kWords, words.begin() + s * ExactSum::kWords);
  }
  detail::check(MPI_Allreduce(MPI_IN_PLACE, words.data(), static_cast<int>(words.size()), MPI_INT64_T,
                              MPI_SUM, detail::comm(group)),
                "MPI_Allreduce");
  std::array<double, S> out{};
  for (int s = 0; s < S; ++s) {
    auto& e = total[static_cast<std::size_t>(s)];
    std::copy(words.begin() + s * ExactSum::kWords, words.begin() + (s + 1) * ExactSum::kWords, e.words());
    out[static_cast<std::size_t>(s)] = e.value();
  }
  return out;
}

// Jacobi's 1/a_ii for this rank's rows (row i's diagonal is its owned column i, as spx::cg's), or `error`
// naming the first global row whose diagonal is absent, zero or negative.
template <class T>
std::vector<T> inverse_diagonal(const RankMatrix<T>& A, std::string& error) {
  const Csr<T, int32_t>& M = A.A;
  std::vector<T> inv(static_cast<std::size_t>(M.rows));
  for (int32_t i = 0; i < M.rows; ++i) {
    // A row is in global column order, so its owned columns are not sorted among the halo's.
    double d = 0;
    for (int32_t k = M.row_ptr[static_cast<std::size_t>(i)]; k < M.row_ptr[static_cast<std::size_t>(i) + 1];
         ++k)
      if (M.col_idx[static_cast<std::size_t>(k)] == i)
        d = static_cast<double>(M.values[static_cast<std::size_t>(k)]);
    if (!(d > 0)) {
      error = fmt::format("Jacobi needs a positive diagonal: row {} has diagonal {} (not SPD?)",
                          A.row_begin + i, d);
      return {};
    }
    inv[static_cast<std::size_t>(i)] = static_cast<T>(1.0 / d);
  }
  return inv;
}

}  // namespace

template <class T>
CgResult cg(const RankMatrix<T>& A, std::span<const T> b, std::span<T> x, const CgOptions& options) {
  Product<T> apply(A);
  return cg(A, apply, b, x, options);
}

template <class T>
CgResult cg(const RankMatrix<T>& A, RankOperator<T>& apply, std::span<const T> b, std::span<T> x,
            const CgOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const Group g = A.group;
  if (A.rows != A.cols || A.row_partition.begin != A.col_partition.begin)
    throw Error(fmt::format(
        "dist cg: the matrix is {} × {} with rows and x split {}; CG needs a square matrix "
        "whose rows and x are split alike",
        A.rows, A.cols, A.row_partition.begin == A.col_partition.begin ? "alike" : "differently"));
  const int64_t n = A.A.rows;
  if (static_cast<int64_t>(b.size()) != n || static_cast<int64_t>(x.size()) != n)
    throw Error(fmt::format("dist cg: rank {} got b of {} and x of {} entries; it holds {} rows", A.rank,
                            b.size(), x.size(), n));
  if (options.max_iterations < 0) throw Error("dist cg: max_iterations must be >= 0");
  // Jacobi: this rank's diagonal, in its owned columns (row i's diagonal is owned column i).
  const bool jacobi = options.preconditioner == Preconditioner::Jacobi;
  std::vector<T> inv_diag;
  std::string error;
  if (jacobi) inv_diag = inverse_diagonal(A, error);
  // every rank stops if one cannot precondition
  detail::agree(g, error, "dist cg: another rank's Jacobi diagonal is not positive");
  const auto N = static_cast<std::size_t>(n);
  std::vector<T> r(N), u(N), w(N), p(N, T{0}), s(N, T{0});
  CgResult res;
  auto finish = [&](CgStatus status, std::string message) {
    res.status = status;
    res.message = std::move(message);
    res.relative_residual = res.rhs_norm == 0 ? 0 : res.residual / res.rhs_norm;
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
  };
  const auto M = [&](std::size_t k) { return jacobi ? r[k] * inv_diag[k] : r[k]; };
  if (options.zero_initial_guess) std::fill(x.begin(), x.end(), T{0});
  apply(std::span<const T>(x), std::span<T>(w));
  auto [bb, gamma, rr] = exact_sums<3>(g, n, [&](int64_t i, std::array<double, 3>& t) {
    const auto k = static_cast<std::size_t>(i);
    r[k] = b[k] - w[k];
    u[k] = M(k);
    t = {static_cast<double>(b[k]) * static_cast<double>(b[k]),
         static_cast<double>(r[k]) * static_cast<double>(u[k]),
         static_cast<double>(r[k]) * static_cast<double>(r[k])};
  });
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
  if (!std::isfinite(bb)) return finish(CgStatus::Breakdown, cg_detail::rhs_not_finite(""));
  if (!std::isfinite(rr))
    return finish(CgStatus::Breakdown, options.zero_initial_guess ? cg_detail::product_not_finite()
                                                                  : cg_detail::x0_or_product_not_finite());
  if (res.residual <= tol) return finish(CgStatus::Converged, "initial guess already converged");
  double alpha = 0, beta = 0;
  cg_detail::CgStopRule rule(rr, cg_detail::kUnit<T>);
  for (int64_t it = 0;; ++it) {
    // w = A·u, δ = (w, u), then the scalars of the next update.
    apply(std::span<const T>(u), std::span<T>(w));
    const auto [delta] = exact_sums<1>(g, n, [&](int64_t i, std::array<double, 1>& t) {
      t[0] = static_cast<double>(w[static_cast<std::size_t>(i)]) *
             static_cast<double>(u[static_cast<std::size_t>(i)]);
    });
    if (!(gamma > 0) || !std::isfinite(gamma))
      return finish(CgStatus::Breakdown,
                    fmt::format("(r, M r) = {:.3e} <= 0: the preconditioner is not SPD", gamma));
    const double pap = it == 0 ? delta : delta - beta * gamma / alpha;
    if (!(pap > 0) || !std::isfinite(pap))
      return finish(CgStatus::Breakdown, fmt::format("p'Ap = {:.3e} <= 0: the matrix is not SPD", pap));
    alpha = gamma / pap;
    if (it >= options.max_iterations) return finish(CgStatus::MaxIterations, "iteration cap reached");
    // p = u + βp, s = w + βs, x += αp, r −= αs, u = M r, γ' = (r, u), ρ = (r, r), |p|², |x|².
    const T a = static_cast<T>(alpha), bt = static_cast<T>(beta);
    const auto [gamma_new, rr_new, pp, xx] = exact_sums<4>(g, n, [&](int64_t i, std::array<double, 4>& t) {
      const auto k = static_cast<std::size_t>(i);
      p[k] = u[k] + bt * p[k];
      s[k] = w[k] + bt * s[k];
      x[k] += a * p[k];
      r[k] -= a * s[k];
      u[k] = M(k);
      t = {static_cast<double>(r[k]) * static_cast<double>(u[k]),
           static_cast<double>(r[k]) * static_cast<double>(r[k]),
           static_cast<double>(p[k]) * static_cast<double>(p[k]),
           static_cast<double>(x[k]) * static_cast<double>(x[k])};
    });
    rr = rr_new;
    res.iterations = it + 1;
    res.residual = std::sqrt(rr);
    if (options.history) res.history.push_back(res.residual);
    if (auto stop = rule.after(res.iterations, rr, res.residual, tol, alpha, pp, xx, options))
      return finish(stop->first, std::move(stop->second));
    beta = gamma_new / gamma;
    gamma = gamma_new;
  }
}

#define SPX_INSTANTIATE(T)                                                                        \
  template CgResult cg(const RankMatrix<T>&, std::span<const T>, std::span<T>, const CgOptions&); \
  template CgResult cg(const RankMatrix<T>&, RankOperator<T>&, std::span<const T>, std::span<T>,  \
                       const CgOptions&);
SPX_INSTANTIATE(float)
SPX_INSTANTIATE(double)
#undef SPX_INSTANTIATE

}  // namespace spx::dist::mpi
