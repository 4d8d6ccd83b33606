// The CSR-C16 SpMV (spx/cuda/spmv_csr_c16.hpp), f32 and f64, against spx::ref on the CsrC16 cases
// (banded, wide rows that take the escape path, all escape, span 65535 and 65536, one huge narrow
// and one huge wide row, odd sizes, empty rows), the random shapes every SpMV is checked on, and
// the shared matrices: the rule's params and a sweep of coop / block / repeat, the escape
// threshold of the rule, a small one (more rows on the escape path) and none. y is NaN-poisoned when
// beta == 0; tolerances as gpu_test_support.hpp explains. Every result must be the same bits on a
// second run (the escape chunks are added in a fixed order).
#include "spx/csr_c16.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "csr_c16_cases.hpp"
#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/spmv_csr_c16.hpp"
#include "spx/stats.hpp"

namespace spx::test {
namespace {

template <class T>
class CsrC16Gpu : public ::testing::Test {};
TYPED_TEST_SUITE(CsrC16Gpu, Precisions);

template <class T>
std::vector<T> run(const cuda::DeviceCsrC16<T>& A, const std::vector<T>& x, const std::vector<T>& y0,
                   const cuda::CsrSpmvParams& params, T alpha, T beta) {
  auto& ctx = gpu();
  auto dx = cuda::to_device(ctx, x, "x");
  auto dy = cuda::to_device(ctx, y0, "y");
  cuda::spmv_csr_c16(ctx, A, std::span<const T>(dx.span()), dy.span(), params, alpha, beta);
  ctx.synchronize();
  return cuda::to_host(ctx, std::span<const T>(dy.span()));
}

// A through CSR-C16 with three escape thresholds, each under the rule's params and a sweep, against
// spx::ref on A.
template <class T>
void check(const std::string& name, const Csr<T, int32_t>& A, uint64_t seed) {
  auto& ctx = gpu();
  const MatrixStats s = stats(A);
  const cuda::CsrSpmvParams rule = plan::csr_fixed_rule(s, ctx.props());
  const std::vector<cuda::CsrSpmvParams> sweep = {rule, {128, 1, 1}, {256, 4, 2}, {64, 8, 1}, {1024, 32, 1}};
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  // The rule's threshold, a small one (many rows on the escape warps), none (only wide rows escape:
  // a group of coop lanes walks even the 65536-nonzero narrow row).
  for (int64_t threshold :
       {plan::csr_c16_escape_threshold(s, ctx.props()), int64_t{64}, std::numeric_limits<int64_t>::max()}) {
    const CsrC16<T> host = to_csr_c16(A, threshold);
    const auto dA = cuda::upload_csr_c16(ctx, host);
    for (const SpmvCase<T>& c : spmv_cases(A, x, seed)) {
      for (const cuda::CsrSpmvParams& p : sweep) {
        const std::string what = name + " escape>" + std::to_string(threshold) + " (" +
                                 std::to_string(host.escape_rows.size()) + " escape rows) " + to_string(p) +
                                 c.label();
        const auto got = run(dA, x, c.y0, p, c.alpha, c.beta);
        c.expect_close(got, what);
        EXPECT_TRUE(same_bits(run(dA, x, c.y0, p, c.alpha, c.beta), got)) << what << ": run 2 differs";
      }
    }
  }
}

TYPED_TEST(CsrC16Gpu, SpmvMatchesRefOnC16Cases) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " " << precision_name<T>());
  for (const auto& c : c16_cases<T>(seed)) check(c.name, c.A, seed);
}

TYPED_TEST(CsrC16Gpu, SpmvMatchesRefOnRandomShapes) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " " << precision_name<T>());
  for (const auto& m : random_matrices<T, int32_t>(seed)) check(m.name, m.A, seed);
}

TYPED_TEST(CsrC16Gpu, SpmvMatchesRefOnSharedMatrices) {
  SPX_REQUIRE_GPU();
  for_each_shared_matrix<TypeParam>(
      [](const std::string& name, const Csr<TypeParam, int32_t>& A, uint64_t seed) { check(name, A, seed); });
}

// alpha == 0 reads neither A nor x (NaN in x must not show); beta == 0 never reads y.
TYPED_TEST(CsrC16Gpu, AlphaZeroScalesAndBetaZeroIgnoresY) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = c16_banded<T>(301, 90001, 200, 6, fresh_seed(), 0.1, 5);
  const auto dA = cuda::upload_csr_c16(ctx, to_csr_c16(A));
  const cuda::CsrSpmvParams p = plan::csr_fixed_rule(stats(A), ctx.props());
  std::vector<T> x(static_cast<std::size_t>(A.cols), std::numeric_limits<T>::quiet_NaN());
  std::vector<T> y0(static_cast<std::size_t>(A.rows), T(2));
  for (T v : run(dA, x, y0, p, T(0), T(3))) EXPECT_EQ(v, T(6));
  std::vector<T> ones(static_cast<std::size_t>(A.cols), T(1)), nan_y(y0.size());
  poison(std::span<T>(nan_y));
  std::vector<T> want(y0.size());
  ref::spmv(A, std::span<const T>(ones), std::span<T>(want));
  const auto got = run(dA, ones, nan_y, p, T(1), T(0));
  for (std::size_t r = 0; r < got.size(); ++r) EXPECT_NEAR(got[r], want[r], 1e-3) << "row " << r;
}

TEST(CsrC16GpuErrors, BadOperandsAreOneLineErrors) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = c16_banded<double>(50, 70001, 10, 3, 11, 0.0, 5);
  const auto dA = cuda::upload_csr_c16(ctx, to_csr_c16(A));
  cuda::DeviceBuffer<double> x(70000, "x"), y(50, "y");
  try {
    cuda::spmv_csr_c16(ctx, dA, std::span<const double>(x.span()), y.span(), cuda::CsrSpmvParams{});
    ADD_FAILURE() << "a short x was accepted";
  } catch (const Error& e) {
    expect_words(e.what(), {"spmv_csr_c16", "x", "70000"});
  }
  cuda::DeviceBuffer<double> x_ok(70001, "x");
  EXPECT_THROW(cuda::spmv_csr_c16(ctx, dA, std::span<const double>(x_ok.span()), y.span(),
                                  cuda::CsrSpmvParams{256, 3, 1}),
               Error);
}

}  // namespace
}  // namespace spx::test
