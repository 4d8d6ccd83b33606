// The performance model's non-negative least squares (src/plan/nnls.cpp).
#include "plan/nnls.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "spx/error.hpp"

namespace spx::test {
namespace {

TEST(Nnls, RecoversNonNegativeCoefficientsExactly) {
  // b = A * {2, 0.5, 3} with columns of very different magnitudes (µs against bytes).
  std::mt19937 g(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int rows = 40, cols = 3;
  std::vector<double> A(rows * cols), b(rows);
  const double want[] = {2.0, 0.5, 3.0};
  for (int i = 0; i < rows; ++i) {
    A[i * cols + 0] = 1.0;
    A[i * cols + 1] = 1e6 * u(g);
    A[i * cols + 2] = 1e-3 * u(g);
    b[i] = want[0] * A[i * cols] + want[1] * A[i * cols + 1] + want[2] * A[i * cols + 2];
  }
  const auto c = model::nnls(A, b, rows, cols);
  for (int j = 0; j < cols; ++j) EXPECT_NEAR(c[j], want[j], 1e-6 * want[j]) << j;
}

TEST(Nnls, ClampsWhatWouldBeNegative) {
  // b = 1 + 2 t - 0.1 s: the unconstrained fit gives s a negative weight; NNLS sets it to 0 and
  // refits the others, so every coefficient is >= 0 and the residual is no larger than any other
  // non-negative choice tried.
  std::vector<double> A, b;
  for (int i = 0; i < 30; ++i) {
    const double t = i, s = (i * 7) % 11;
    A.insert(A.end(), {1.0, t, s});
    b.push_back(1.0 + 2.0 * t - 0.1 * s);
  }
  const auto c = model::nnls(A, b, 30, 3);
  for (double v : c) EXPECT_GE(v, 0.0);
  EXPECT_EQ(c[2], 0.0);
  auto residual = [&](const std::vector<double>& x) {
    double r = 0;
    for (int i = 0; i < 30; ++i) {
      const double e = A[i * 3] * x[0] + A[i * 3 + 1] * x[1] + A[i * 3 + 2] * x[2] - b[i];
      r += e * e;
    }
    return r;
  };
  const double best = residual(c);
  for (double d0 : {-0.01, 0.01})
    for (double d1 : {-0.001, 0.001}) EXPECT_LE(best, residual({c[0] + d0, c[1] + d1, 0.0}) + 1e-9);
}

TEST(Nnls, ZeroColumnsAndBadSizes) {
  const auto c = model::nnls({1.0, 0.0, 2.0, 0.0}, {3.0, 6.0}, 2, 2);
  EXPECT_NEAR(c[0], 3.0, 1e-12);
  EXPECT_EQ(c[1], 0.0);
  EXPECT_THROW(model::nnls({1.0, 2.0}, {1.0}, 2, 2), Error);
}

}  // namespace
}  // namespace spx::test
