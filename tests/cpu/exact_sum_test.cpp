// The exact sum the MPI CG reduces with (common/exact_sum.hpp): independent of order and of how
// the terms are split, exact under cancellation, Inf and NaN as a double sum gives them.
#include "common/exact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using spx::detail::ExactSum;

namespace {

double sum_of(const std::vector<double>& v) {
  ExactSum s;
  for (const double x : v) s.add(x);
  return s.value();
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(ExactSum, IsExactUnderCancellation) {
  EXPECT_EQ(sum_of({1e300, 1.0, -1e300}), 1.0);
  EXPECT_EQ(sum_of({0x1p-1074, 1e308, -1e308}), 0x1p-1074);  // the smallest subnormal survives
  EXPECT_EQ(sum_of({1e308, 1e308, -1e308}), 1e308);          // no overflow in between
  EXPECT_EQ(sum_of({-3.0, 1.0}), -2.0);
  EXPECT_EQ(sum_of({0.1, 0.2, -0.3}), 0.1 + 0.2 - 0.3 == 0 ? 0.0 : sum_of({0.2, -0.3, 0.1}));
  EXPECT_EQ(sum_of({}), 0.0);
}

TEST(ExactSum, GivesTheSameBitsInAnyOrderAndAnySplit) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> exp(-60, 60);
  std::vector<double> v(20000);
  for (double& x : v) x = std::ldexp(mant(rng), exp(rng));
  const double want = sum_of(v);
  std::shuffle(v.begin(), v.end(), rng);
  EXPECT_TRUE(same_bits(sum_of(v), want));
  // Split into four "ranks", each summed alone, then combined in two different orders.
  ExactSum parts[4];
  for (std::size_t i = 0; i < v.size(); ++i) parts[i % 4].add(v[i]);
  ExactSum a = parts[0], b = parts[3];
  a.add(parts[1]), a.add(parts[2]), a.add(parts[3]);
  b.add(parts[2]), b.add(parts[0]), b.add(parts[1]);
  EXPECT_TRUE(same_bits(a.value(), want));
  EXPECT_TRUE(same_bits(b.value(), want));
  // Correctly rounded here (within an ulp in general): the long double sum of these terms is exact
  // to far below a double's ulp.
  long double ref = 0;
  for (const double x : v) ref += x;
  EXPECT_NEAR(want, static_cast<double>(ref), std::abs(want) * 1e-15);
}

TEST(ExactSum, CountsInfAndNanApart) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(sum_of({1.0, inf, 2.0}), inf);
  EXPECT_EQ(sum_of({1.0, -inf}), -inf);
  EXPECT_TRUE(std::isnan(sum_of({inf, -inf})));
  EXPECT_TRUE(std::isnan(sum_of({1.0, std::numeric_limits<double>::quiet_NaN()})));
}

TEST(ExactSum, SurvivesManyMoreTermsThanOneNormalization) {
  // Past kDepositsPerNormalize terms the carries are propagated; the sum stays exact.
  ExactSum exact, full;
  const int64_t n = ExactSum::kDepositsPerNormalize + 5;
  for (int64_t i = 0; i < n; ++i) {
    exact.add(0x1.8p+40);              // n·1.5·2^40 is a double
    full.add(-0x1.fffffffffffffp+40);  // every mantissa bit set: the most carried into each limb
  }
  EXPECT_EQ(exact.value(), static_cast<double>(n) * 0x1.8p+40);
  EXPECT_NEAR(full.value(), -static_cast<double>(n) * 0x1.fffffffffffffp+40,
              static_cast<double>(n) * 0x1p-11);
}

}  // namespace
