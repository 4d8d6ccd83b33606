// SpmvIsEquivalentToRef for the non-CSR kernels (spmv_formats.hpp): ELL, ELLR-T (the rule's
// configuration and every T), COO (deterministic, deterministic with 32 nonzeros per warp, fast)
// and HYB (both COO modes), f32 and f64, against spx::ref on random matrices of awkward shapes, on
// one row of 10^6 nonzeros (ELL/ELLR refuse its padding cleanly; COO and HYB run it) and on every
// shared matrix. Outputs are NaN-poisoned when beta == 0; tolerances as gpu_test_support.hpp
// explains (any summation order: |got - ref| <= 2 (n+3) u m). Deterministic COO must give the same
// bits on every run.
#include "spx/cuda/spmv_formats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/stats.hpp"

namespace spx::test {
namespace {

using I = int32_t;

// Padded formats are built when the slab has at most this many slots (400 MB in f64): enough for
// every random shape here, and it keeps Maragal_6-like matrices (126M slots) out of the test time.
constexpr int64_t kMaxTestSlots = int64_t{1} << 25;

template <class T>
bool padding_allows(const Csr<T, I>& A) {
  const int64_t ld = (int64_t{A.rows} + 31) / 32 * 32;
  int64_t longest = 0;
  for (I r = 0; r < A.rows; ++r) longest = std::max<int64_t>(longest, A.row_length(r));
  return ld * longest <= kMaxTestSlots;
}

// One matrix in every format the kernels take (ELL and ELLR only when the padding allows).
template <class T>
struct FormatInputs {
  std::optional<cuda::DeviceEll<T, I>> ell;
  std::optional<cuda::DeviceEllR<T, I>> ellr;
  cuda::DeviceCoo<T, I> coo;
  cuda::DeviceHyb<T, I> hyb;
  cuda::EllrTParams rule;
};

template <class T>
FormatInputs<T> upload_formats(cuda::Context& ctx, const Csr<T, I>& A) {
  FormatInputs<T> f;
  if (padding_allows(A)) {
    f.ell = cuda::upload(ctx, to_ell(A));
    f.ellr = cuda::upload(ctx, to_ellr(A));
  }
  f.coo = cuda::upload(ctx, to_coo(A));
  f.hyb = cuda::upload(ctx, to_hyb(A));
  f.rule = plan::ellr_t_rule(stats(A), ctx.props());
  return f;
}

struct Kernel {
  std::string name;
  bool needs_padding = false;
  bool deterministic = false;  // must give the same bits on every run
};

// Every kernel run on the shared matrices; random matrices add every ELLR-T configuration.
std::vector<Kernel> base_kernels() {
  return {{"ell", true},       {"ellr_t:rule", true}, {"coo", false, true}, {"coo:32", false, true},
          {"coo_fast", false}, {"hyb", false, true},  {"hyb_fast", false}};
}
std::vector<Kernel> all_kernels() {
  auto k = base_kernels();
  const int blocks[] = {64, 1024, 128, 256, 32, 512};
  int b = 0;
  for (int t : {1, 2, 4, 8, 16, 32})
    k.push_back({"ellr_t:" + std::to_string(t) + "x" + std::to_string(blocks[b++]), true});
  return k;
}

// y = alpha*A*x + beta*y by `kernel` on a fresh copy of y0, back on the host.
template <class T>
std::vector<T> run_kernel(const std::string& kernel, const FormatInputs<T>& f, const std::vector<T>& x,
                          const std::vector<T>& y0, T alpha, T beta) {
  auto& ctx = gpu();
  auto dx = cuda::to_device(ctx, x);
  auto dy = cuda::to_device(ctx, y0);
  std::span<const T> xs = dx.span();
  std::span<T> ys = dy.span();
  cuda::CooParams det, det32, fast;
  det32.nnz_per_warp = 32;
  fast.deterministic = false;
  if (kernel == "ell") {
    cuda::spmv_ell(ctx, *f.ell, xs, ys, alpha, beta);
  } else if (kernel == "ellr_t:rule") {
    cuda::spmv_ellr_t(ctx, *f.ellr, xs, ys, f.rule, alpha, beta);
  } else if (kernel.starts_with("ellr_t:")) {
    const auto x_at = kernel.find('x');
    const cuda::EllrTParams config{std::stoi(kernel.substr(7, x_at - 7)), std::stoi(kernel.substr(x_at + 1))};
    cuda::spmv_ellr_t(ctx, *f.ellr, xs, ys, config, alpha, beta);
  } else if (kernel == "coo") {
    cuda::spmv_coo(ctx, f.coo, xs, ys, alpha, beta, det);
  } else if (kernel == "coo:32") {
    cuda::spmv_coo(ctx, f.coo, xs, ys, alpha, beta, det32);
  } else if (kernel == "coo_fast") {
    cuda::spmv_coo(ctx, f.coo, xs, ys, alpha, beta, fast);
  } else if (kernel == "hyb") {
    cuda::spmv_hyb(ctx, f.hyb, xs, ys, alpha, beta, det);
  } else if (kernel == "hyb_fast") {
    cuda::spmv_hyb(ctx, f.hyb, xs, ys, alpha, beta, fast);
  } else {
    ADD_FAILURE() << "unknown kernel " << kernel;
  }
  ctx.synchronize();
  return cuda::to_host(ctx, dy);
}

// Every kernel on A for (alpha, beta) = (1, 0) with y poisoned, and (-1.5, 0.5); deterministic
// kernels run three times and must agree bit for bit.
template <class T>
void check_kernels(const std::string& name, const Csr<T, I>& A, const std::vector<Kernel>& kernels,
                   uint64_t seed) {
  auto& ctx = gpu();
  const FormatInputs<T> f = upload_formats(ctx, A);
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  for (const SpmvCase<T>& c : spmv_cases(A, x, seed)) {
    for (const auto& k : kernels) {
      if (k.needs_padding && !f.ell) continue;
      const std::string what = name + " / " + k.name + c.label();
      const auto got = run_kernel(k.name, f, x, c.y0, c.alpha, c.beta);
      c.expect_close(got, what);
      if (k.deterministic) {
        for (int run = 2; run <= 3; ++run) {
          EXPECT_TRUE(same_bits(run_kernel(k.name, f, x, c.y0, c.alpha, c.beta), got))
              << what << ": run " << run << " differs from run 1";
        }
      }
    }
  }
}

template <class T>
class GpuSpmvFormats : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSpmvFormats, Precisions);

TYPED_TEST(GpuSpmvFormats, SpmvIsEquivalentToRefOnRandomMatrices) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& m : random_matrices<T, I>(seed)) check_kernels(m.name, m.A, all_kernels(), seed + 17);
  check_kernels("0x7", Csr<T, I>(0, 7), all_kernels(), seed + 3);
  check_kernels("5x0", Csr<T, I>(5, 0), all_kernels(), seed + 4);
}

// One row of 10^6 nonzeros among 5000 short rows: the padded slab would be 5024 × 10^6 slots, so
// ELL and ELLR refuse it with an spx::Error naming the padding ratio; COO and HYB (whose Bell–Garland
// width keeps the long row in the COO tail) compute it.
TYPED_TEST(GpuSpmvFormats, OneRowOfAMillionNonzeros) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto A =
      with_long_row(random_csr<T, I>(5000, 1000000, 1, 8, seed, 0.05), I{1234}, I{1000000}, seed + 1);
  expect_error([&] { (void)to_ell(A); }, "padding ratio");
  expect_error([&] { (void)to_ellr(A); }, "padding ratio");
  EXPECT_GT(to_hyb(A).ell.width, 0);  // 5000 rows >= 4096: HYB has an ELL part and a COO tail
  check_kernels("5000 rows, one of 10^6", A, base_kernels(), seed + 2);
}

template <class T>
class GpuSpmvFormatsShared : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSpmvFormatsShared, Precisions);

TYPED_TEST(GpuSpmvFormatsShared, SpmvIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  for_each_shared_matrix<TypeParam>([](const std::string& name, const auto& A, uint64_t seed) {
    check_kernels(name, A, base_kernels(), seed);
  });
}

TEST(GpuSpmvFormatsChecks, AlphaZeroReadsNeitherAnorX) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, I>(300, 200, 0, 9, 5, 0.1);
  const FormatInputs<double> f = upload_formats(ctx, A);
  const std::vector<double> x(200, std::numeric_limits<double>::quiet_NaN());
  const auto y0 = random_vector<double>(300, 6);
  for (const auto& k : all_kernels()) {
    const auto got = run_kernel(k.name, f, x, y0, 0.0, 2.0);
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], 2.0 * y0[i]) << k.name << " row " << i;
  }
}

TEST(GpuSpmvFormatsChecks, SizeMismatchAndBadConfigurationsAreErrors) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<float, I>(10, 12, 1, 3, 9);
  const FormatInputs<float> f = upload_formats(ctx, A);
  cuda::DeviceBuffer<float> x11(11), x12(12), y10(10), y9(9);
  const std::span<const float> bad_x(x11.span()), good_x(x12.span());
  expect_error([&] { cuda::spmv_ell(ctx, *f.ell, bad_x, y10.span()); }, "spmv_ell: x has 11 entries");
  expect_error([&] { cuda::spmv_ellr_t(ctx, *f.ellr, good_x, y9.span(), f.rule); }, "spmv_ellr_t: y has 9");
  expect_error([&] { cuda::spmv_coo(ctx, f.coo, bad_x, y10.span()); }, "spmv_coo: x has 11 entries");
  expect_error([&] { cuda::spmv_hyb(ctx, f.hyb, good_x, y9.span()); }, "spmv_hyb: y has 9");
  expect_error([&] { cuda::spmv_ellr_t(ctx, *f.ellr, good_x, y10.span(), {3, 256}); }, "threads_per_row 3");
  cuda::CooParams odd;
  odd.nnz_per_warp = 100;
  expect_error([&] { cuda::spmv_coo(ctx, f.coo, good_x, y10.span(), 1.0f, 0.0f, odd); }, "nnz_per_warp 100");
}

TEST(GpuSpmvFormatsChecks, LongerVectorsKeepTheirTail) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, I>(100, 80, 0, 5, 7, 0.2);
  const FormatInputs<double> f = upload_formats(ctx, A);
  const auto x = random_vector<double>(90, 8);
  std::vector<double> y0(110, 42.0);
  for (const auto& k : all_kernels()) {
    const auto got = run_kernel(k.name, f, x, y0, 1.0, 0.0);
    for (std::size_t i = 100; i < 110; ++i)
      EXPECT_EQ(got[i], 42.0) << k.name << ": entry " << i << " is past rows(A)";
  }
}

}  // namespace
}  // namespace spx::test
