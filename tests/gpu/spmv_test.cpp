// SpmvIsEquivalentToRef: CSR-scalar and every cuSPARSE SpMV baseline against spx::ref, on random
// matrices of awkward shapes and on every shared matrix, f32 and f64, NaN-poisoned outputs.
#include "spx/cuda/spmv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::test {
namespace {

using cuda::CusparseSpmv;
using cuda::CusparseSpmvAlg;

// Every GPU SpMV of this build, as (name, run-once) pairs over one matrix's device formats.
template <class T, class I>
struct DeviceSpmvInputs {
  cuda::DeviceCsr<T, I> csr;
  cuda::DeviceCoo<T, I> coo;
  cuda::DeviceSell<T, I> sell;
};

template <class T, class I>
DeviceSpmvInputs<T, I> upload_all(cuda::Context& ctx, const Csr<T, I>& A) {
  return {cuda::upload(ctx, A), cuda::upload(ctx, to_coo(A)), cuda::upload_sell(ctx, A)};
}

// y = alpha*A*x + beta*y by `kernel`, run `repeats` times (beta == 0 only: then every run must
// give the same result, which checks that prepared state is reusable), back on the host.
template <class T, class I>
std::vector<T> run_kernel(const std::string& kernel, const DeviceSpmvInputs<T, I>& d, const std::vector<T>& x,
                          const std::vector<T>& y0, T alpha, T beta, int repeats) {
  auto& ctx = gpu();
  auto dx = cuda::to_device(ctx, x);
  auto dy = cuda::to_device(ctx, y0);
  std::span<const T> xs = dx.span();
  std::span<T> ys = dy.span();
  if (kernel == "csr_scalar") {
    for (int r = 0; r < repeats; ++r) cuda::spmv_csr_scalar(ctx, d.csr, xs, ys, alpha, beta);
  } else {
    for (auto alg : {CusparseSpmvAlg::CsrAlg1, CusparseSpmvAlg::CsrAlg2, CusparseSpmvAlg::CooAlg1,
                     CusparseSpmvAlg::CooAlg2, CusparseSpmvAlg::SellAlg1}) {
      if (kernel != cuda::kernel_name(alg)) continue;
      auto op = alg == CusparseSpmvAlg::SellAlg1 ? CusparseSpmv<T, I>(ctx, d.sell, alg, xs, ys, alpha, beta)
                : (alg == CusparseSpmvAlg::CooAlg1 || alg == CusparseSpmvAlg::CooAlg2)
                    ? CusparseSpmv<T, I>(ctx, d.coo, alg, xs, ys, alpha, beta)
                    : CusparseSpmv<T, I>(ctx, d.csr, alg, xs, ys, alpha, beta);
      for (int r = 0; r < repeats; ++r) op.run();
    }
  }
  ctx.synchronize();
  return cuda::to_host(ctx, dy);
}

const std::vector<std::string>& spmv_kernels() {
  static const std::vector<std::string> names = {"csr_scalar",        "cusparse_csr_alg1",
                                                 "cusparse_csr_alg2", "cusparse_coo_alg1",
                                                 "cusparse_coo_alg2", "cusparse_sell_alg1"};
  return names;
}

// Checks every kernel on A for (alpha, beta) = (1, 0) with y poisoned, and (-1.5, 0.5).
template <class T, class I>
void check_all_kernels(const std::string& name, const Csr<T, I>& A, uint64_t seed) {
  auto& ctx = gpu();
  const auto d = upload_all(ctx, A);
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  for (const SpmvCase<T>& c : spmv_cases(A, x, seed)) {
    for (const auto& kernel : spmv_kernels()) {
      const auto got = run_kernel(kernel, d, x, c.y0, c.alpha, c.beta, c.beta == T{0} ? 2 : 1);
      c.expect_close(got, name + " / " + kernel + c.label());
    }
  }
}

template <class P>
class GpuSpmv : public ::testing::Test {};
using SpmvTypes = ::testing::Types<ValueIndex<float, int32_t>, ValueIndex<double, int32_t>,
                                   ValueIndex<float, int64_t>, ValueIndex<double, int64_t>>;
TYPED_TEST_SUITE(GpuSpmv, SpmvTypes);

TYPED_TEST(GpuSpmv, SpmvIsEquivalentToRefOnRandomMatrices) {
  SPX_REQUIRE_GPU();
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& m : random_matrices<T, I>(seed)) check_all_kernels(m.name, m.A, seed + 17);
}

TYPED_TEST(GpuSpmv, EmptyShapesLeaveOrScaleY) {
  SPX_REQUIRE_GPU();
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  // 0 × 7: nothing to write. 5 × 0: y = beta*y (no products).
  check_all_kernels("0x7", Csr<T, I>(0, 7), 3);
  check_all_kernels("5x0", Csr<T, I>(5, 0), 4);
}

template <class T>
class GpuSpmvShared : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSpmvShared, Precisions);

TYPED_TEST(GpuSpmvShared, SpmvIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  for_each_shared_matrix<TypeParam>(
      [](const std::string& name, const auto& A, uint64_t seed) { check_all_kernels(name, A, seed); });
}

TEST(GpuSpmvScalar, AlphaZeroReadsNeitherAnorX) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(300, 200, 0, 9, 5);
  auto dA = cuda::upload(ctx, A);
  std::vector<double> x(200, std::numeric_limits<double>::quiet_NaN());
  const auto y0 = random_vector<double>(300, 6);
  auto dx = cuda::to_device(ctx, x);
  auto dy = cuda::to_device(ctx, y0);
  cuda::spmv_csr_scalar(ctx, dA, std::span<const double>(dx.span()), dy.span(), 0.0, 2.0);
  const auto got = cuda::to_host(ctx, dy);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], 2.0 * y0[i]) << "row " << i;
}

TEST(GpuSpmvScalar, LongerVectorsKeepTheirTail) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<float, int32_t>(100, 80, 1, 5, 7);
  auto dA = cuda::upload(ctx, A);
  const auto x = random_vector<float>(90, 8);
  std::vector<float> y0(110, 42.0f);
  auto dx = cuda::to_device(ctx, x);
  auto dy = cuda::to_device(ctx, y0);
  cuda::spmv_csr_scalar(ctx, dA, std::span<const float>(dx.span()), dy.span());
  const auto got = cuda::to_host(ctx, dy);
  for (std::size_t i = 100; i < 110; ++i) EXPECT_EQ(got[i], 42.0f) << "entry " << i << " is past rows(A)";
}

TEST(GpuSpmvScalar, SizeMismatchAndOverlapAreErrors) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(10, 12, 1, 3, 9);
  auto dA = cuda::upload(ctx, A);
  cuda::DeviceBuffer<double> x(11), y(10), both(30);
  expect_error([&] { cuda::spmv_csr_scalar(ctx, dA, std::span<const double>(x.span()), y.span()); },
               "x has 11 entries, matrix has 12 columns");
  cuda::DeviceBuffer<double> x12(12), y9(9);
  expect_error([&] { cuda::spmv_csr_scalar(ctx, dA, std::span<const double>(x12.span()), y9.span()); },
               "y has 9 entries, matrix has 10 rows");
  std::span<double> all = both.span();
  expect_error(
      [&] {
        cuda::spmv_csr_scalar(ctx, dA, std::span<const double>(all.subspan(0, 12)), all.subspan(5, 10));
      },
      "overlap");
}

TEST(GpuSpmvVendor, AlgorithmMustFitTheFormat) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<float, int32_t>(10, 10, 1, 3, 10);
  auto dA = cuda::upload(ctx, A);
  cuda::DeviceBuffer<float> x(10), y(10);
  expect_error(
      [&] {
        CusparseSpmv<float, int32_t>(ctx, dA, CusparseSpmvAlg::CooAlg1, std::span<const float>(x.span()),
                                     y.span());
      },
      "cusparse_coo_alg1 does not run on a CSR matrix");
}

TEST(GpuSpmvVendor, SetVectorsRepointsTheProduct) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(500, 400, 0, 12, 11);
  auto dA = cuda::upload(ctx, A);
  const auto x1 = random_vector<double>(400, 12), x2 = random_vector<double>(400, 13);
  auto dx1 = cuda::to_device(ctx, x1), dx2 = cuda::to_device(ctx, x2);
  cuda::DeviceBuffer<double> dy1(500), dy2(500);
  CusparseSpmv<double, int32_t> op(ctx, dA, CusparseSpmvAlg::CsrAlg2, std::span<const double>(dx1.span()),
                                   dy1.span());
  op.set_vectors(std::span<const double>(dx2.span()), dy2.span());
  op.run();
  std::vector<double> want(500);
  ref::spmv(A, std::span<const double>(x2), std::span<double>(want));
  std::vector<double> magnitude;
  std::vector<int64_t> terms;
  spmv_bounds(A, std::span<const double>(x2), std::span<const double>(want), 1.0, 0.0, magnitude, terms);
  const auto got = cuda::to_host(ctx, dy2);
  expect_device_close(std::span<const double>(got), std::span<const double>(want), magnitude, terms,
                      "set_vectors");
}

}  // namespace
}  // namespace spx::test
