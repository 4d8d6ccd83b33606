// csr_param_mixed through the front door (opt-in mixed precision): every row within the bound of
// spx/mixed_precision.hpp on random matrices with values over many magnitudes, one huge row (the
// long-row path), a stencil; alpha/beta; y poisoned first. Refused for f32 matrices and for values
// beyond float's range, and never planned without the option.
#include "spx/mixed_precision.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"

namespace spx {
namespace {

using test::gpu;
using test::poison;

plan::Options mixed_only() {
  plan::Options o;
  o.mixed_precision = true;
  o.kernels = {"csr_param_mixed"};
  o.tuning_cache = "-";
  return o;
}

void expect_within_bound(const Csr<double, int32_t>& A, const std::vector<double>& x,
                         const std::vector<double>& y0, double alpha, double beta,
                         const std::vector<double>& got, const std::string& what) {
  for (int32_t i = 0; i < A.rows; ++i) {
    long double exact = 0;
    double abs_ax = 0, abs_x = 0;
    for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const double xv = x[static_cast<std::size_t>(A.col_idx[k])];
      exact += static_cast<long double>(A.values[k]) * xv;
      abs_ax += std::abs(A.values[k] * xv);
      abs_x += std::abs(xv);
    }
    const double y0i = y0[static_cast<std::size_t>(i)];
    const double want = alpha * static_cast<double>(exact) + beta * y0i;
    // alpha scales the row's error; the final multiply-add adds a few double roundings.
    const double bound = std::abs(alpha) * mixed_precision_row_bound(abs_ax, abs_x, A.row_length(i)) +
                         4 * std::ldexp(1.0, -53) * (std::abs(alpha) * abs_ax + std::abs(beta * y0i));
    ASSERT_LE(std::abs(got[static_cast<std::size_t>(i)] - want), bound) << what << ", row " << i;
  }
}

TEST(MixedPrecisionGpu, FrontDoorStaysWithinTheBound) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> e(-20, 20), s(-1, 1);
  for (const std::string spec : {"random:rows=4097,cols=3001,len=29,seed=3", "stencil27:n=17",
                                 "powerlaw:n=20000,avg=8,exp=1.6,seed=4"}) {
    auto A = gen::generate<double, int32_t>(spec);
    for (double& a : A.values) a = s(rng) * std::exp(e(rng));
    std::vector<double> x(static_cast<std::size_t>(A.cols)), y0(static_cast<std::size_t>(A.rows));
    for (double& v : x) v = s(rng) * std::exp(e(rng) / 4);
    for (double& v : y0) v = s(rng);
    cuda::SparseMatrix<double> M(ctx, A);
    const plan::Report& r = M.plan_spmv(mixed_only());
    ASSERT_EQ(r.winner().kernel, "csr_param_mixed") << r.explain();
    const auto dx = cuda::to_device(ctx, x, "x");
    for (const auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{-2.5, 0.5}}) {
      std::vector<double> start = y0;
      if (beta == 0.0) poison(std::span<double>(start));
      auto dy = cuda::to_device(ctx, start, "y");
      cuda::spmv(ctx, M, std::span<const double>(dx.span()), dy.span(), alpha, beta);
      expect_within_bound(A, x, y0, alpha, beta, cuda::to_host(ctx, dy),
                          spec + " seed " + std::to_string(seed) + " alpha " + std::to_string(alpha));
    }
  }
}

TEST(MixedPrecisionGpu, RefusedWithoutTheOptionForFloatAndOutOfRange) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = gen::generate<double, int32_t>("stencil27:n=10");
  {
    cuda::SparseMatrix<double> M(ctx, A);
    plan::Options o;
    o.tuning_cache = "-";
    o.mode = plan::Mode::Measure;
    o.measure_top = 64;  // every candidate timed: the mixed one must not be among them
    EXPECT_NE(M.plan_spmv(o).winner().kernel, "csr_param_mixed");
  }
  {
    cuda::SparseMatrix<float> M(ctx, gen::generate<float, int32_t>("stencil27:n=10"));
    EXPECT_THROW(M.plan_spmv(mixed_only()), Error);
  }
  auto big = A;
  big.values[7] = 1e300;
  cuda::SparseMatrix<double> M(ctx, big);
  try {
    M.plan_spmv(mixed_only());
    FAIL() << "a value beyond float's range was planned in mixed precision";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("float's range"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace spx
