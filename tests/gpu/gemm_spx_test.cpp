// SpxGemmIsEquivalentToRef: spx::cuda::gemm (every GemmVersion: v1 in f32/f64, v2 and v3 in f64, Auto in f32)
// against spx::ref::gemm — all four transpose combinations on ragged shapes (1, 7, 33, 100, 257, 1000, 4097:
// none a multiple of the 128 × 128 tile, so every edge path runs), leading dimensions larger than the rows
// they store (odd ones, which turn the 128-bit loads off, and even ones, which keep them on), a pointer one
// element off 16-byte alignment, and the alpha/beta edge cases of the BLAS contract. v3 has two loaders:
// the interior fast path (whole 128 × 128 tile inside C, 16-byte chunks allowed, full bk = 16 slab) runs
// in the 128 × 256 × 64 and 256 × 384 × 160 cases (even padding keeps it on), the general one (zero-fill,
// 8-byte copies for odd layouts) everywhere else and on every k tail (k = 7, 9, 17, 33, 1000, 4097).
//
// Tolerance: each C entry is a k-term dot product accumulated in T in some order, then scaled by
// alpha and added to beta*C; gpu_test_support.hpp's device_tolerance bounds that by
// 2 (k + 3) u_T (|alpha| sum_l |a_il b_lj| + |beta c_ij|) (Higham §3.1, valid for any summation
// order, FMA included). A wrong index, a skipped or doubled slab, a stale shared buffer, a read of
// padding or an unwritten entry misses it by orders of magnitude.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/gemm.hpp"
#include "spx/plan/rules.hpp"

namespace spx::test {
namespace {

using cuda::GemmVersion;

std::string op_name(Op op) { return op == Op::N ? "N" : "T"; }

struct Case {
  Op op_a, op_b;
  int64_t m, n, k;
  int64_t pad;       // extra leading-dimension rows
  int64_t a_offset;  // elements A starts past its allocation's (aligned) start
};

// Runs one GEMM on the device and compares every entry of C, padding rows included.
template <class T>
void check_case(const Case& c, T alpha, T beta, GemmVersion version, uint64_t seed) {
  auto& ctx = gpu();
  const int64_t a_rows = c.op_a == Op::N ? c.m : c.k, a_cols = c.op_a == Op::N ? c.k : c.m;
  const int64_t b_rows = c.op_b == Op::N ? c.k : c.n, b_cols = c.op_b == Op::N ? c.n : c.k;
  const int64_t lda = a_rows + c.pad, ldb = b_rows + c.pad, ldc = c.m + c.pad;
  const auto A = random_vector<T>(static_cast<std::size_t>(lda * a_cols + c.a_offset), seed);
  const auto B = random_vector<T>(static_cast<std::size_t>(ldb * b_cols), seed + 1);
  auto C0 = random_vector<T>(static_cast<std::size_t>(ldc * c.n), seed + 2);
  if (beta == T{0}) poison(std::span<T>(C0));  // beta == 0 must not read C
  auto want = C0;
  ref::gemm(c.op_a, c.op_b, c.m, c.n, c.k, alpha, A.data() + c.a_offset, lda, B.data(), ldb, beta,
            want.data(), ldc);
  const auto mag = gemm_magnitude(c.op_a, c.op_b, c.m, c.n, c.k, alpha, A.data() + c.a_offset, lda, B.data(),
                                  ldb, beta, C0.data(), ldc);

  auto dA = cuda::to_device(ctx, A);
  auto dB = cuda::to_device(ctx, B);
  auto dC = cuda::to_device(ctx, C0);
  cuda::gemm(ctx, c.op_a, c.op_b, c.m, c.n, c.k, alpha, dA.data() + c.a_offset, lda, dB.data(), ldb, beta,
             dC.data(), ldc, cuda::GemmParams{version});
  const auto got = cuda::to_host(ctx, dC);

  const auto got_logical = column_major_entries(got, c.m, c.n, ldc);
  const auto want_logical = column_major_entries(want, c.m, c.n, ldc);
  const std::string what = std::string(cuda::kernel_name(version)) + " " + op_name(c.op_a) + op_name(c.op_b) +
                           " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                           " k=" + std::to_string(c.k) + " pad=" + std::to_string(c.pad) +
                           " a_offset=" + std::to_string(c.a_offset) + " alpha=" + std::to_string(alpha) +
                           " beta=" + std::to_string(beta);
  expect_device_close(std::span<const T>(got_logical), std::span<const T>(want_logical), mag,
                      std::vector<int64_t>(mag.size(), c.k), what);
  // C's padding rows are not part of C: they keep their old values (NaN when poisoned).
  for (int64_t j = 0; j < c.n; ++j)
    for (int64_t i = c.m; i < ldc; ++i) {
      const T old = C0[i + j * ldc], now = got[i + j * ldc];
      EXPECT_TRUE(now == old || (std::isnan(now) && std::isnan(old))) << what << ": wrote C's padding";
    }
}

// Every version that runs for T: the FP64 tensor-core versions have no float form. Auto (the
// default) is v3 or cuBLAS for double, cuBLAS's SGEMM for float: it runs through its own name once more.
template <class T>
std::vector<GemmVersion> versions() {
  if constexpr (std::is_same_v<T, double>)
    return {GemmVersion::CudaCoreV1, GemmVersion::TensorCoreV2, GemmVersion::TensorCoreV3};
  return {GemmVersion::CudaCoreV1, GemmVersion::Auto};
}

template <class T>
class SpxGemm : public ::testing::Test {};
TYPED_TEST_SUITE(SpxGemm, Precisions);

TYPED_TEST(SpxGemm, SpxGemmIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  // (m, n, k, pad, a_offset): odd pads and offset A disable the 128-bit loads; pad 0 (or 2) on
  // sizes that are multiples of 4 keeps them on for the interior tiles.
  const std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t> shapes[] = {
      {1, 1, 1, 0, 0},       {7, 33, 100, 1, 0},   {33, 257, 7, 3, 1},   {257, 100, 33, 3, 0},
      {100, 7, 1000, 0, 0},  {1000, 33, 17, 0, 1}, {128, 256, 64, 0, 0}, {129, 1000, 9, 1, 0},
      {256, 384, 160, 2, 0}, {4097, 33, 40, 1, 0}, {40, 4097, 17, 2, 0}, {33, 7, 4097, 0, 0}};
  for (GemmVersion version : versions<T>())
    for (Op op_a : {Op::N, Op::T})
      for (Op op_b : {Op::N, Op::T})
        for (const auto& [m, n, k, pad, off] : shapes) {
          const Case c{op_a, op_b, m, n, k, pad, off};
          check_case<T>(c, T{1}, T{0}, version, seed);
          check_case<T>(c, T(-0.5), T(1.5), version, seed + 3);
        }
}

// Version 3's launch paths beyond the shapes above (which already run its split-k: 33 x 7 x 4097
// and 1000 x 33 x 17 have fewer tiles than the H100 has SMs, and grouped rasterization: 4097 rows
// are 33 tile rows, 4 bands of 8 and one of 1):
// - the 8-byte interior loader: whole tiles with an odd ld (300 x 260 x 270, pad 1: lda = 301 for
//   op N) or A one element off 16 bytes (384 x 256 x 200, 520 x 300 x 333), ragged edges beside them;
// - split-k with three splits over full and partial slabs (200 x 300 x 1000: 6 tiles, 63 slabs);
// - GemmParams{} (Auto) for double, which is v3.
TEST(SpxGemmV3, InteriorEightByteLoaderSplitKAndAuto) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t> shapes[] = {
      {300, 260, 270, 1, 0}, {384, 256, 200, 0, 1}, {520, 300, 333, 3, 1}, {200, 300, 1000, 0, 0}};
  for (GemmVersion version : {GemmVersion::TensorCoreV3, GemmVersion::Auto})
    for (Op op_a : {Op::N, Op::T})
      for (Op op_b : {Op::N, Op::T})
        for (const auto& [m, n, k, pad, off] : shapes) {
          const Case c{op_a, op_b, m, n, k, pad, off};
          check_case<double>(c, 1.0, 0.0, version, seed);
          check_case<double>(c, -0.5, 1.5, version, seed + 3);
        }
}

// Auto in f64 runs version 3 or cuBLAS, by the plan (gemm_plan): both sides of the pick keep the BLAS
// contract — the shapes below are planned one each way on the device's figures (asserted, so a refit
// that moves them shows here), in every transpose, beta == 0 from a poisoned C and beta != 0.
TEST(SpxGemmAuto, BothSidesOfThePlanKeepTheContract) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto& props = gpu().props();
  // Both with even leading dimensions and aligned data (padding 2 keeps every ld even whatever the
  // transposes); a small product with an odd ld goes to cuBLAS (unaligned_small_margin), so spx's
  // odd-ld paths run through GemmVersion::TensorCoreV3 in the tests above.
  const Case to_cublas{Op::N, Op::N, 1000, 128, 1000, 2, 0}, to_spx{Op::N, Op::N, 32, 32, 60000, 2, 0};
  ASSERT_TRUE(
      plan::gemm_plan(1000, 128, 1000, false, props, cuda::GemmParams{}, plan::default_rule_tables(), true)
          .cublas);
  ASSERT_FALSE(
      plan::gemm_plan(32, 32, 60000, false, props, cuda::GemmParams{}, plan::default_rule_tables(), true)
          .cublas);
  for (Case c : {to_cublas, to_spx})
    for (Op op_a : {Op::N, Op::T})
      for (Op op_b : {Op::N, Op::T}) {
        c.op_a = op_a;
        c.op_b = op_b;
        check_case<double>(c, 1.0, 0.0, GemmVersion::Auto, seed);
        check_case<double>(c, -0.5, 1.5, GemmVersion::Auto, seed + 3);
      }
}

TEST(SpxGemmV3, AutoIsTheDefaultAndResolvesPerType) {
  EXPECT_EQ(cuda::GemmParams{}.version, GemmVersion::Auto);
  EXPECT_EQ(cuda::resolve_gemm_version<double>(GemmVersion::Auto), GemmVersion::TensorCoreV3);
  EXPECT_EQ(cuda::resolve_gemm_version<float>(GemmVersion::Auto), GemmVersion::CudaCoreV1);
  EXPECT_EQ(cuda::resolve_gemm_version<float>(GemmVersion::TensorCoreV2), GemmVersion::TensorCoreV2);
  EXPECT_STREQ(cuda::kernel_name(GemmVersion::Auto), "spx_gemm");
}

TYPED_TEST(SpxGemm, ZeroAlphaOrKOnlyScalesC) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (GemmVersion version : versions<T>()) {
    check_case<T>(Case{Op::N, Op::T, 37, 41, 0, 2, 0}, T(2), T(0.5), version, seed);  // k == 0
    check_case<T>(Case{Op::T, Op::N, 37, 41, 0, 2, 0}, T(2), T{0}, version, seed);    // k == 0, beta == 0
    check_case<T>(Case{Op::N, Op::N, 37, 41, 5, 2, 0}, T{0}, T(-2), version, seed);   // alpha == 0
    // alpha == 0 reads neither A nor B: null pointers are fine.
    auto& ctx = gpu();
    auto C0 = random_vector<T>(37 * 41, seed);
    poison(std::span<T>(C0));
    auto dC = cuda::to_device(ctx, C0);
    cuda::gemm<T>(ctx, Op::N, Op::N, 37, 41, 5, T{0}, nullptr, 37, nullptr, 5, T{0}, dC.data(), 37,
                  cuda::GemmParams{version});
    for (T x : cuda::to_host(ctx, dC)) ASSERT_EQ(x, T{0}) << "alpha == 0, beta == 0 must write zeros";
  }
}

TEST(SpxGemmErrors, LeadingDimensionsAreChecked) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  expect_error(
      [&] { cuda::gemm<double>(ctx, Op::N, Op::N, 4, 3, 5, 1.0, nullptr, 3, nullptr, 5, 0.0, nullptr, 4); },
      "lda = 3 is less than the 4 rows");
  expect_error(
      [&] { cuda::gemm<double>(ctx, Op::N, Op::T, 4, 3, 5, 1.0, nullptr, 4, nullptr, 2, 0.0, nullptr, 4); },
      "ldb = 2 is less than the 3 rows");
  expect_error(
      [&] { cuda::gemm<float>(ctx, Op::T, Op::N, 4, 3, 5, 1.f, nullptr, 5, nullptr, 5, 0.f, nullptr, 3); },
      "ldc = 3 is less than the 4 rows");
  expect_error(
      [&] { cuda::gemm<float>(ctx, Op::N, Op::N, -1, 3, 5, 1.f, nullptr, 1, nullptr, 5, 0.f, nullptr, 1); },
      "must be non-negative");
  expect_error(
      [&] {
        cuda::gemm<float>(ctx, Op::N, Op::N, 4, 3, 5, 1.f, nullptr, 4, nullptr, 5, 0.f, nullptr, 4,
                          cuda::GemmParams{GemmVersion::TensorCoreV2});
      },
      "FP64 tensor cores only");
  expect_error(
      [&] {
        cuda::gemm<float>(ctx, Op::N, Op::N, 4, 3, 5, 1.f, nullptr, 4, nullptr, 5, 0.f, nullptr, 4,
                          cuda::GemmParams{GemmVersion::TensorCoreV3});
      },
      "FP64 tensor cores only");
}

}  // namespace
}  // namespace spx::test
