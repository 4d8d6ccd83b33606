// CPU conjugate gradients (spx/cg.hpp): convergence with the true residual recomputed, Jacobi,
// zero right-hand side, one-step convergence, breakdown on an indefinite matrix, the iteration
// cap, stagnation, and refused inputs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "spx/cg.hpp"
#include "spx/cpu.hpp"
#include "spx/fem.hpp"
#include "spx/generate.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

template <class T>
double true_relative_residual(const Csr<T, int32_t>& A, const std::vector<T>& b, const std::vector<T>& x) {
  std::vector<double> Ad(A.values.begin(), A.values.end());
  Csr<double, int32_t> D(A.rows, A.cols);
  D.row_ptr = A.row_ptr;
  D.col_idx = A.col_idx;
  D.values = Ad;
  std::vector<double> xd(x.begin(), x.end()), y(x.size());
  ref::spmv(D, std::span<const double>(xd), std::span<double>(y));
  double num = 0, den = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    num += (b[i] - y[i]) * (b[i] - y[i]);
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

template <class T>
Csr<T, int32_t> diagonal(std::vector<double> d) {
  Csr<T, int32_t> A(static_cast<int32_t>(d.size()), static_cast<int32_t>(d.size()));
  for (std::size_t i = 0; i < d.size(); ++i) {
    A.col_idx.push_back(static_cast<int32_t>(i));
    A.values.push_back(static_cast<T>(d[i]));
    A.row_ptr[i + 1] = static_cast<int32_t>(i + 1);
  }
  return A;
}

class CgCpuDegree : public ::testing::TestWithParam<int> {};

TEST_P(CgCpuDegree, ConvergesWithAndWithoutJacobi) {
  const auto A = gen::generate<double, int32_t>(fmt::format("fem2d:n={},p={}", 24 / GetParam(), GetParam()));
  const auto b = test::random_vector<double>(static_cast<std::size_t>(A.rows), test::fresh_seed());
  for (Preconditioner pc : {Preconditioner::None, Preconditioner::Jacobi}) {
    CgOptions opt;
    opt.rtol = 1e-10;
    opt.preconditioner = pc;
    std::vector<double> x(b.size());
    test::poison(std::span<double>(x));
    const CgResult r = cg(A, std::span<const double>(b), std::span<double>(x), opt);
    EXPECT_EQ(r.status, CgStatus::Converged) << summary(r);
    EXPECT_LE(r.relative_residual, 1e-10);
    EXPECT_LT(true_relative_residual(A, b, x), 1e-9);
    EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);
    EXPECT_GT(r.iterations, 5);
    EXPECT_LT(r.iterations, A.rows);
  }
}

INSTANTIATE_TEST_SUITE_P(Q, CgCpuDegree, ::testing::Values(1, 2, 3, 4));

TEST(CgCpu, SinglePrecisionFollowsDouble) {
  const auto Ad = gen::generate<double, int32_t>("fem2d:n=12,p=2");
  const auto Af = gen::generate<float, int32_t>("fem2d:n=12,p=2");
  std::vector<double> bd(static_cast<std::size_t>(Ad.rows), 1.0), xd(bd.size());
  std::vector<float> bf(bd.size(), 1.0f), xf(bd.size());
  CgOptions opt;
  opt.rtol = 1e-5;
  const auto rd = cg(Ad, std::span<const double>(bd), std::span<double>(xd), opt);
  const auto rf = cg(Af, std::span<const float>(bf), std::span<float>(xf), opt);
  ASSERT_EQ(rf.status, CgStatus::Converged);
  EXPECT_NEAR(static_cast<double>(rf.iterations), static_cast<double>(rd.iterations), 2.0);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_NEAR(rf.history[i] / rd.history[i], 1.0, 1e-4) << i;
}

TEST(CgCpu, ZeroRightHandSide) {
  const auto A = gen::generate<double, int32_t>("fem2d:n=6,p=2");
  std::vector<double> b(static_cast<std::size_t>(A.rows), 0.0), x(b.size(), 3.0);
  CgOptions opt;
  opt.zero_initial_guess = false;
  const auto r = cg(A, std::span<const double>(b), std::span<double>(x), opt);
  EXPECT_EQ(r.status, CgStatus::Converged);
  EXPECT_EQ(r.iterations, 0);
  for (double v : x) EXPECT_EQ(v, 0.0);
}

TEST(CgCpu, OneStepOnAScaledIdentityAndJacobiOnADiagonal) {
  const auto A = diagonal<double>(std::vector<double>(50, 3.0));
  std::vector<double> b = test::random_vector<double>(50, test::fresh_seed()), x(50);
  auto r = cg(A, std::span<const double>(b), std::span<double>(x), {});
  EXPECT_EQ(r.status, CgStatus::Converged);
  EXPECT_EQ(r.iterations, 1);
  for (std::size_t i = 0; i < 50; ++i) EXPECT_NEAR(x[i], b[i] / 3, 1e-15);
  std::vector<double> d(50);
  for (std::size_t i = 0; i < 50; ++i) d[i] = 1.0 + static_cast<double>(i);
  CgOptions opt;
  opt.preconditioner = Preconditioner::Jacobi;
  r = cg(diagonal<double>(d), std::span<const double>(b), std::span<double>(x), opt);
  EXPECT_EQ(r.iterations, 1);
}

TEST(CgCpu, BreakdownOnAnIndefiniteMatrix) {
  const auto A = diagonal<double>({1.0, -3.0, 2.0});
  std::vector<double> b{1, 1, 0}, x(3);
  const auto r = cg(A, std::span<const double>(b), std::span<double>(x), {});
  EXPECT_EQ(r.status, CgStatus::Breakdown);
  EXPECT_NE(r.message.find("not SPD"), std::string::npos) << r.message;
  for (double v : x) EXPECT_TRUE(std::isfinite(v));
  // Jacobi refuses a non-positive diagonal before iterating.
  CgOptions opt;
  opt.preconditioner = Preconditioner::Jacobi;
  EXPECT_THROW(cg(A, std::span<const double>(b), std::span<double>(x), opt), Error);
}

// A NaN or Inf in b, x0 or A stops CG at iteration 0 with a message naming it (it used to read
// "initial residual is not finite (|r|/|b| = 0.000e+00)").
TEST(CgCpu, NonFiniteInputsAreNamed) {
  const auto A = diagonal<double>({2.0, 3.0, 4.0});
  std::vector<double> b{1, std::nan(""), 1}, x(3);
  auto r = cg(A, std::span<const double>(b), std::span<double>(x), {});
  EXPECT_EQ(r.status, CgStatus::Breakdown);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(r.message, "the right-hand side b holds NaN or Inf (b[1] = nan)");
  EXPECT_TRUE(std::isnan(r.relative_residual));
  EXPECT_EQ(summary(r), "breakdown at iteration 0: the right-hand side b holds NaN or Inf (b[1] = nan)");

  b = {1, 1, 1};
  x = {0, 0, INFINITY};
  CgOptions guess;
  guess.zero_initial_guess = false;
  r = cg(A, std::span<const double>(b), std::span<double>(x), guess);
  EXPECT_EQ(r.status, CgStatus::Breakdown);
  EXPECT_EQ(r.message, "the initial guess x0 holds NaN or Inf (x0[2] = inf)");

  auto bad = A;
  bad.values[0] = std::nan("");
  x = {0, 0, 0};
  r = cg(bad, std::span<const double>(b), std::span<double>(x), {});
  EXPECT_EQ(r.status, CgStatus::Breakdown);
  EXPECT_NE(r.message.find("the matrix holds NaN or Inf"), std::string::npos) << r.message;
}

TEST(CgCpu, IterationCapAndStagnation) {
  const auto A = gen::generate<double, int32_t>("fem2d:n=16,p=2");
  std::vector<double> b(static_cast<std::size_t>(A.rows), 1.0), x(b.size());
  CgOptions opt;
  opt.max_iterations = 3;
  auto r = cg(A, std::span<const double>(b), std::span<double>(x), opt);
  EXPECT_EQ(r.status, CgStatus::MaxIterations);
  EXPECT_EQ(r.iterations, 3);
  // A residual that no longer shrinks: f32 cannot reach 1e-30, the window is 1 iteration.
  const auto Af = gen::generate<float, int32_t>("fem2d:n=16,p=2");
  std::vector<float> bf(b.size(), 1.0f), xf(b.size());
  opt.max_iterations = 100000;
  opt.rtol = 1e-30;
  opt.stagnation_window = 1;
  r = cg(Af, std::span<const float>(bf), std::span<float>(xf), opt);
  EXPECT_EQ(r.status, CgStatus::Stagnation) << summary(r);
  for (float v : xf) EXPECT_TRUE(std::isfinite(v));
  // Without the window: the step rule (x no longer changes) stops it, long before the cap.
  opt.stagnation_window = 0;
  r = cg(Af, std::span<const float>(bf), std::span<float>(xf), opt);
  EXPECT_EQ(r.status, CgStatus::Stagnation) << summary(r);
  EXPECT_NE(r.message.find("no longer changes"), std::string::npos) << r.message;
  EXPECT_LT(r.iterations, 5000);
  for (float v : xf) EXPECT_TRUE(std::isfinite(v));
}

TEST(CgCpu, RefusesBadShapes) {
  Csr<double, int32_t> A(3, 4);
  std::vector<double> b(3), x(3);
  EXPECT_THROW(cg(A, std::span<const double>(b), std::span<double>(x), {}), Error);
  const auto S = diagonal<double>({1, 2, 3});
  std::vector<double> short_b(2);
  EXPECT_THROW(cg(S, std::span<const double>(short_b), std::span<double>(x), {}), Error);
}

}  // namespace
}  // namespace spx
