// SpmmIsEquivalentToRef: every cuSPARSE SpMM algorithm, in both dense layouts, against
// spx::ref::spmm, with padded leading dimensions whose padding must stay untouched.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::test {
namespace {

using cuda::CusparseSpmm;
using cuda::CusparseSpmmAlg;

constexpr CusparseSpmmAlg kAllAlgs[] = {
    CusparseSpmmAlg::CsrAlg1, CusparseSpmmAlg::CsrAlg2, CusparseSpmmAlg::CsrAlg3, CusparseSpmmAlg::CooAlg1,
    CusparseSpmmAlg::CooAlg2, CusparseSpmmAlg::CooAlg3, CusparseSpmmAlg::CooAlg4};

bool is_csr(CusparseSpmmAlg a) {
  return a == CusparseSpmmAlg::CsrAlg1 || a == CusparseSpmmAlg::CsrAlg2 || a == CusparseSpmmAlg::CsrAlg3;
}

// Leading-dimension padding for a `tight` ld: at least one element, and ld a multiple of 16
// bytes (some cuSPARSE SpMM paths fault on rows or columns that start misaligned; see
// docs/cuda-runtime.md and GpuSpmmDiag below).
template <class T>
int64_t aligned_extra(int64_t tight) {
  const int64_t per16 = 16 / static_cast<int64_t>(sizeof(T));
  return (tight + 1 + per16 - 1) / per16 * per16 - tight;
}

template <class T>
int64_t aligned_extra_for(int64_t rows, int64_t cols, Layout layout) {
  return aligned_extra<T>(layout == Layout::ColMajor ? rows : cols);
}

// Checks every algorithm that spx offers for `layout` on A with L columns. Algorithms the
// installed cuSPARSE refuses with NOT_SUPPORTED are collected in `refused` (the test then fails
// naming them: cusparse_spmm_supports() must be corrected).
template <class T, class I>
void check_spmm(const std::string& name, const Csr<T, I>& A, int64_t L, Layout layout, uint64_t seed,
                std::vector<std::string>& refused) {
  auto& ctx = gpu();
  const auto dA = cuda::upload(ctx, A);
  const auto dCoo = cuda::upload(ctx, to_coo(A));
  const auto B = random_dense<T>(A.cols, L, layout, seed, aligned_extra_for<T>(A.cols, L, layout));
  const int64_t c_extra = aligned_extra_for<T>(A.rows, L, layout);
  const auto dB = cuda::upload(ctx, B);
  const char* layout_name = layout == Layout::ColMajor ? "col-major" : "row-major";
  for (auto [alpha, beta] : {std::pair<T, T>{T{1}, T{0}}, std::pair<T, T>{T(0.75), T(-2)}}) {
    const SpmmCase<T> c = spmm_case(A, B, layout, alpha, beta, seed, c_extra);
    for (auto alg : kAllAlgs) {
      if (!cuda::cusparse_spmm_supports(alg, layout)) continue;
      const std::string what = name + " L=" + std::to_string(L) + " " + layout_name + " / " +
                               cuda::kernel_name(alg) + " alpha=" + std::to_string(alpha) +
                               " beta=" + std::to_string(beta);
      auto dC = cuda::upload(ctx, c.C0);
      Dense<T> got;
      try {
        auto op = is_csr(alg) ? CusparseSpmm<T, I>(ctx, dA, alg, dB, dC, alpha, beta)
                              : CusparseSpmm<T, I>(ctx, dCoo, alg, dB, dC, alpha, beta);
        op.run();
        got = cuda::download(ctx, dC);
      } catch (const Error& e) {
        if (std::string(e.what()).find("NOT_SUPPORTED") != std::string::npos) {
          refused.push_back(what + ": " + e.what());
          continue;
        }
        FAIL() << what << ": " << e.what();  // a device fault is sticky: later checks cannot run
      }
      c.expect_close(got, what);
    }
  }
}

template <class P>
class GpuSpmm : public ::testing::Test {};
using SpmmTypes =
    ::testing::Types<ValueIndex<float, int32_t>, ValueIndex<double, int32_t>, ValueIndex<double, int64_t>>;
TYPED_TEST_SUITE(GpuSpmm, SpmmTypes);

TYPED_TEST(GpuSpmm, SpmmIsEquivalentToRefOnRandomMatrices) {
  SPX_REQUIRE_GPU();
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  std::vector<std::string> refused;
  const auto matrices = random_matrices<T, I>(seed);
  for (const auto& m : matrices) {
    if (m.A.rows > 20000) continue;  // the large one adds nothing here but host reference time
    for (int64_t L : {1, 8, 19})
      for (Layout layout : {Layout::ColMajor, Layout::RowMajor})
        check_spmm(m.name, m.A, L, layout, seed + 5, refused);
  }
  for (const auto& r : refused) ADD_FAILURE() << "cuSPARSE refused a combination spx offers: " << r;
}

template <class T>
class GpuSpmmShared : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSpmmShared, Precisions);

TYPED_TEST(GpuSpmmShared, SpmmIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  std::vector<std::string> refused;
  for_each_shared_matrix<TypeParam>([&](const std::string& name, const auto& A, uint64_t seed) {
    for (Layout layout : {Layout::ColMajor, Layout::RowMajor}) check_spmm(name, A, 8, layout, seed, refused);
  });
  for (const auto& r : refused) ADD_FAILURE() << "cuSPARSE refused a combination spx offers: " << r;
}

TEST(GpuSpmmVendor, ShapeAndLayoutErrors) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(20, 30, 1, 4, 3);
  const auto dA = cuda::upload(ctx, A);
  const auto dCoo = cuda::upload(ctx, to_coo(A));
  auto B = cuda::make_device_dense<double>(30, 4, Layout::ColMajor);
  auto C = cuda::make_device_dense<double>(20, 4, Layout::ColMajor);
  auto C_row = cuda::make_device_dense<double>(20, 4, Layout::RowMajor);
  auto B_bad = cuda::make_device_dense<double>(29, 4, Layout::ColMajor);
  expect_error([&] { CusparseSpmm<double, int32_t>(ctx, dA, CusparseSpmmAlg::CsrAlg1, B_bad, C); },
               "B has 29 rows but A has 30 columns");
  expect_error([&] { CusparseSpmm<double, int32_t>(ctx, dA, CusparseSpmmAlg::CsrAlg1, B, C_row); },
               "same layout");
  auto B_row = cuda::make_device_dense<double>(30, 4, Layout::RowMajor);
  expect_error([&] { CusparseSpmm<double, int32_t>(ctx, dCoo, CusparseSpmmAlg::CooAlg2, B_row, C_row); },
               "does not take row-major");
  expect_error([&] { CusparseSpmm<double, int32_t>(ctx, dA, CusparseSpmmAlg::CooAlg1, B, C); },
               "does not run on a CSR matrix");
}

// CSR_ALG3 faults (a sticky misaligned-address error) on row-major rows that are not 16-byte
// aligned (GpuSpmmDiag); spx refuses that case before cuSPARSE sees it, and runs the aligned one.
TEST(GpuSpmmVendor, CsrAlg3RowMajorNeedsSixteenByteRows) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<float, int32_t>(5000, 5000, 1, 20, 4);
  const auto dA = cuda::upload(ctx, A);
  for (int64_t ld : {9, 10, 12}) {
    const auto B = random_dense<float>(5000, 8, Layout::RowMajor, 5, ld - 8);
    auto C = poisoned_dense<float>(5000, 8, Layout::RowMajor, ld - 8);
    const auto dB = cuda::upload(ctx, B);
    auto dC = cuda::upload(ctx, C);
    const auto make = [&] { return CusparseSpmm<float, int32_t>(ctx, dA, CusparseSpmmAlg::CsrAlg3, dB, dC); };
    if (ld % 4 != 0) {
      expect_error([&] { make(); }, "needs rows that start on 16-byte boundaries: pad ld to a multiple of 4");
      continue;
    }
    make().run();
    const auto got = cuda::download(ctx, dC);
    ref::spmm(A, B, C);
    std::vector<double> magnitude;
    std::vector<int64_t> terms;
    spmm_bounds(A, B, C, 1.0, 0.0, magnitude, terms);
    expect_device_close(std::span<const float>(logical_entries(got)),
                        std::span<const float>(logical_entries(C)), magnitude, terms,
                        "csr_alg3 row-major ld 12");
  }
}

// Diagnostic, run by hand with one combination per process (a device fault is sticky):
//   SPX_DIAG="cusparse_spmm_csr_alg2 R 2 f32 8 Andrews.mtx.gz" spx_tests_gpu \
//     --gtest_also_run_disabled_tests --gtest_filter=GpuSpmmDiag.*
// (algorithm, layout C/R, extra leading-dimension elements, precision, L, shared matrix). Prints
// one "DIAG ... ok|wrong|error" line: the measurements behind the alignment rule above.
template <class T>
void diag_one(const std::string& alg_name, Layout layout, int64_t extra, int64_t L,
              const std::string& matrix) {
  auto& ctx = gpu();
  const auto A = shared_as<T>(read_matrix_market<double, int32_t>((shared_matrices_dir() / matrix).string()));
  const auto dA = cuda::upload(ctx, A);
  const auto dCoo = cuda::upload(ctx, to_coo(A));
  const auto B = random_dense<T>(A.cols, L, layout, 1, extra);
  const auto dB = cuda::upload(ctx, B);
  auto C = poisoned_dense<T>(A.rows, L, layout, extra);
  auto dC = cuda::upload(ctx, C);
  std::string result = "ok";
  try {
    for (auto alg : kAllAlgs) {
      if (alg_name != cuda::kernel_name(alg)) continue;
      auto op = is_csr(alg) ? CusparseSpmm<T, int32_t>(ctx, dA, alg, dB, dC)
                            : CusparseSpmm<T, int32_t>(ctx, dCoo, alg, dB, dC);
      op.run();
      const auto got = cuda::download(ctx, dC);
      ref::spmm(A, B, C);
      std::vector<double> magnitude;
      std::vector<int64_t> terms;
      spmm_bounds(A, B, C, 1.0, 0.0, magnitude, terms);
      const auto g = logical_entries(got), w = logical_entries(C);
      for (std::size_t i = 0; i < g.size(); ++i)
        if (!(std::abs(static_cast<double>(g[i]) - w[i]) <= device_tolerance<T>(magnitude[i], terms[i]))) {
          result = "wrong at " + std::to_string(i);
          break;
        }
    }
  } catch (const Error& e) {
    result = std::string("error: ") + e.what();
  }
  std::printf("DIAG %s %c ld+%lld %s L=%lld %s: %s\n", alg_name.c_str(),
              layout == Layout::ColMajor ? 'C' : 'R', static_cast<long long>(extra),
              sizeof(T) == 4 ? "f32" : "f64", static_cast<long long>(L), matrix.c_str(), result.c_str());
}

TEST(GpuSpmmDiag, DISABLED_OneCombination) {
  SPX_REQUIRE_GPU();
  const char* spec = std::getenv("SPX_DIAG");
  if (spec == nullptr || shared_matrices_dir().empty())
    GTEST_SKIP() << "set SPX_DIAG and SPX_SHARED_MATRICES";
  std::istringstream in(spec);
  std::string alg, layout, precision, matrix;
  int64_t extra = 0, L = 0;
  in >> alg >> layout >> extra >> precision >> L >> matrix;
  const Layout lay = layout == "R" ? Layout::RowMajor : Layout::ColMajor;
  if (precision == "f32")
    diag_one<float>(alg, lay, extra, L, matrix);
  else
    diag_one<double>(alg, lay, extra, L, matrix);
}

}  // namespace
}  // namespace spx::test
