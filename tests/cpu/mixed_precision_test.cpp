// Opt-in mixed precision (spx/mixed_precision.hpp, candidate csr_param_mixed): the values' float
// rounding and its errors, the bound, the planner's gate, and the bench checker's allowance.
#include "spx/mixed_precision.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bench/check.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/plan.hpp"
#include "spx/stats.hpp"

namespace spx {
namespace {

constexpr std::size_t kPlenty = std::size_t{1} << 40;

TEST(MixedPrecision, RoundsEveryValueAndRefusesWhatFloatCannotHold) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {1.0, -0.1, 1e-40, 0.0, -0.0, inf, 3.4e38, std::nan("")};
  const std::vector<float> f = round_values_to_float(v);
  ASSERT_EQ(f.size(), v.size());
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], -0.1f);
  EXPECT_LE(std::abs(static_cast<double>(f[2]) - 1e-40), std::ldexp(1.0, -150));  // subnormal: absolute
  EXPECT_TRUE(std::signbit(f[4]));
  EXPECT_TRUE(std::isinf(f[5]));
  EXPECT_TRUE(std::isnan(f[7]));
  try {
    (void)round_values_to_float(std::vector<double>{1.0, 2.0, -1e39});
    FAIL() << "a value beyond float's range was rounded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nonzero 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("float's range"), std::string::npos) << e.what();
  }
  // Each rounding within 2^-24 relative (normal range), on fresh random values.
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  std::vector<double> r(10000);
  for (double& x : r) x = u(rng);
  const std::vector<float> rf = round_values_to_float(r);
  for (std::size_t k = 0; k < r.size(); ++k)
    ASSERT_LE(std::abs(static_cast<double>(rf[k]) - r[k]), std::ldexp(std::abs(r[k]), -24)) << r[k];
}

// The product with rounded values, summed in double, stays within mixed_precision_row_bound of the
// exact double product, row by row, on a random matrix with values spanning many magnitudes.
TEST(MixedPrecision, TheBoundHoldsOnARandomProduct) {
  auto A = gen::generate<double, int32_t>("random:rows=3001,cols=2003,len=37,seed=11");
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> e(-30, 30), s(-1, 1);
  for (double& a : A.values) a = s(rng) * std::exp(e(rng));
  std::vector<double> x(static_cast<std::size_t>(A.cols));
  for (double& v : x) v = s(rng) * std::exp(e(rng));
  const std::vector<float> f = round_values_to_float(A.values);
  for (int32_t i = 0; i < A.rows; ++i) {
    long double exact = 0;
    double mixed = 0, abs_ax = 0, abs_x = 0;
    for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const double xv = x[static_cast<std::size_t>(A.col_idx[k])];
      exact += static_cast<long double>(A.values[k]) * xv;
      mixed += static_cast<double>(f[k]) * xv;
      abs_ax += std::abs(A.values[k] * xv);
      abs_x += std::abs(xv);
    }
    ASSERT_LE(std::abs(static_cast<double>(exact) - mixed),
              mixed_precision_row_bound(abs_ax, abs_x, A.row_length(i)))
        << "row " << i;
  }
}

TEST(MixedPrecision, PlannedOnlyWhenAllowedAndForDoubleMatrices) {
  const auto A = gen::generate<double, int32_t>("stencil27:n=12");
  plan::Problem p;
  p.stats = stats(A);
  p.value_bytes = 8;
  const auto find = [](const std::vector<plan::Candidate>& c) {
    for (const auto& x : c)
      if (x.kernel == "csr_param_mixed") return x;
    throw Error("no csr_param_mixed candidate");
  };
  plan::Options o;
  plan::Candidate c = find(plan::candidates(p, o, {}, kPlenty));
  EXPECT_FALSE(c.eligible);
  EXPECT_NE(c.why_not.find("mixed_precision"), std::string::npos) << c.why_not;
  o.mixed_precision = true;
  c = find(plan::candidates(p, o, {}, kPlenty));
  EXPECT_TRUE(c.eligible) << c.why_not;
  EXPECT_EQ(c.extra_bytes, static_cast<std::size_t>(4 * A.nnz()));  // the float copy of the values
  // An error naming why nothing can run names the candidate's own reason, not the options' filter.
  plan::Options just = o;
  just.mixed_precision = false;
  just.kernels = {"csr_param_mixed"};
  const std::string why = plan::why_none(plan::candidates(p, just, {}, kPlenty));
  EXPECT_NE(why.find("csr_param_mixed: rounds the values"), std::string::npos) << why;
  EXPECT_EQ(why.find("allowed kernels"), std::string::npos) << why;
  just.kernels = {"no_such_*"};
  EXPECT_NE(plan::why_none(plan::candidates(p, just, {}, kPlenty)).find("excluded by the options"),
            std::string::npos);
  p.value_bytes = 4;
  c = find(plan::candidates(p, o, {}, kPlenty));
  EXPECT_FALSE(c.eligible);
  EXPECT_NE(c.why_not.find("float already"), std::string::npos) << c.why_not;
}

// The bench's checker accepts a mixed product within the values' rounding and still fails a wrong
// row: the allowance is the bound, not a blanket tolerance.
TEST(MixedPrecision, BenchCheckerAllowsTheRoundingOnly) {
  const auto A = gen::generate<double, int32_t>("random:rows=500,cols=400,len=20,seed=5");
  std::vector<double> x(400);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> s(-1, 1);
  for (double& v : x) v = s(rng);
  const std::vector<float> f = round_values_to_float(A.values);
  std::vector<double> y(500, 0.0);
  for (int32_t i = 0; i < A.rows; ++i)
    for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      y[static_cast<std::size_t>(i)] += static_cast<double>(f[k]) * x[static_cast<std::size_t>(A.col_idx[k])];
  bench::OutputView plain{std::span<const double>(y)};
  EXPECT_FALSE(bench::check_spmv<double>(A, x, plain).passed);  // a double check sees the rounding
  bench::OutputView mixed{std::span<const double>(y)};
  EXPECT_TRUE(bench::check_spmv<double>(A, x, mixed.with_value_rounding(std::ldexp(1.0, -24))).passed);
  y[123] *= 1.0001;
  bench::OutputView wrong{std::span<const double>(y)};
  EXPECT_FALSE(bench::check_spmv<double>(A, x, wrong.with_value_rounding(std::ldexp(1.0, -24))).passed);
}

}  // namespace
}  // namespace spx
