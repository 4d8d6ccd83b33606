// SpxGemmOzaki: the emulated DGEMM on the GPU (GemmEmulation::Always through spx::cuda::gemm)
// against the double-double reference and the native bound (gemm_ozaki_check.hpp), and against the
// host reference's choices (src/cpu/gemm_ozaki_host.cpp): all op pairs, odd sizes and leading
// dimensions, alpha/beta (beta = 0 with NaN in C), k past one exact INT8 chunk, row and column
// scales spanning 1e±100, cancellation, and the fallbacks to native with their reasons (Inf/NaN,
// an exponent spread within a row), an all-zero operand. C's padding rows stay untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "cpu/gemm_ozaki_host.hpp"
#include "gemm_ozaki_check.hpp"
#include "gpu_test_support.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/gemm.hpp"
#include "spx/cuda/gemm_emulation.hpp"

namespace spx::test {
namespace {

using cuda::GemmEmulation;

cuda::GemmParams emulation(GemmEmulation e) {
  cuda::GemmParams p;
  p.emulation = e;
  return p;
}

// C = alpha op(A) op(B) + beta C0 on the device with `params`; the result and the call's report.
Mat run_device(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha, const Mat& A, const Mat& B,
               double beta, const Mat& C0, const cuda::GemmParams& params,
               cuda::GemmEmulationReport* report) {
  auto& ctx = gpu();
  auto dA = cuda::to_device(ctx, A.v);
  auto dB = cuda::to_device(ctx, B.v);
  auto dC = cuda::to_device(ctx, C0.v);
  cuda::gemm(ctx, op_a, op_b, m, n, k, alpha, dA.data(), A.ld, dB.data(), B.ld, beta, dC.data(), C0.ld,
             params);
  if (report) *report = cuda::gemm_emulation_last();
  Mat C = C0;
  C.v = cuda::to_host(ctx, dC);
  return C;
}

struct Shape {
  int64_t m, n, k;
};

// Emulated on the device (or not, exactly where the host reference also declines, for the same
// reason), checked against the bound and the host reference's width.
void check_emulated(Op op_a, Op op_b, const Shape& s, double alpha, double beta, const Mat& A, const Mat& B,
                    const Mat& C0, const std::string& what) {
  cuda::GemmEmulationReport report;
  const Mat C =
      run_device(op_a, op_b, s.m, s.n, s.k, alpha, A, B, beta, C0, emulation(GemmEmulation::Always), &report);
  Mat H = C0;
  const ozaki::OzakiChoice host = ozaki::gemm_host(op_a, op_b, s.m, s.n, s.k, alpha, A.v.data(), A.ld,
                                                   B.v.data(), B.ld, beta, H.v.data(), H.ld);
  EXPECT_EQ(report.emulated, host.emulate) << what << ": " << report.reason << " / host: " << host.reason;
  if (host.emulate) {
    // The same width up to the rounding of differently ordered sums.
    EXPECT_LE(std::abs(host.bits - report.bits), 1) << what;
  } else {
    EXPECT_EQ(report.reason, host.reason) << what;
  }
  EXPECT_LE(bound_ratio(op_a, op_b, s.m, s.n, s.k, alpha, A, B, beta, C0, C), 1.0) << what;
  EXPECT_TRUE(padding_untouched(C, C0, s.m)) << what;
}

// The same, where the inputs are ones the emulation must take.
void check_must_emulate(Op op_a, Op op_b, const Shape& s, double alpha, double beta, const Mat& A,
                        const Mat& B, const Mat& C0, const std::string& what) {
  check_emulated(op_a, op_b, s, alpha, beta, A, B, C0, what);
  EXPECT_TRUE(cuda::gemm_emulation_last().emulated) << what << ": " << cuda::gemm_emulation_last().reason;
}

TEST(SpxGemmOzaki, RandomInputsMeetTheNativeBoundOnAllOpPairsAndOddSizes) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uni(-1, 1);
  const auto rnd = [&](int64_t, int64_t) { return uni(rng); };
  for (const Shape s : {Shape{1, 1, 2}, Shape{7, 5, 3}, Shape{33, 17, 40}, Shape{129, 65, 257},
                        Shape{100, 3, 1000}, Shape{192, 160, 384}}) {
    for (Op op_a : {Op::N, Op::T}) {
      for (Op op_b : {Op::N, Op::T}) {
        const Mat A = op_a == Op::N ? make(s.m, s.k, 3, rnd) : make(s.k, s.m, 1, rnd);
        const Mat B = op_b == Op::N ? make(s.k, s.n, 2, rnd) : make(s.n, s.k, 0, rnd);
        const Mat C0 = make(s.m, s.n, 1, rnd);
        const Mat Cnan =
            make(s.m, s.n, 1, [](int64_t, int64_t) { return std::numeric_limits<double>::quiet_NaN(); });
        const std::string what = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                                 (op_a == Op::N ? " N" : " T") + (op_b == Op::N ? "N" : "T");
        check_emulated(op_a, op_b, s, 1.0, 0.0, A, B, Cnan, what + " beta 0");
        check_emulated(op_a, op_b, s, -0.5, 1.5, A, B, C0, what + " alpha -0.5 beta 1.5");
        if (s.k >= 40) {
          EXPECT_TRUE(cuda::gemm_emulation_last().emulated)
              << what << ": " << cuda::gemm_emulation_last().reason;
        }
      }
    }
  }
}

TEST(SpxGemmOzaki, KPastOneExactChunkFoldsTheResidues) {
  SPX_REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<double> uni(-1, 1);
  const auto rnd = [&](int64_t, int64_t) { return uni(rng); };
  const Shape s{9, 6, ozaki::kChunkK + 4099};
  const Mat A = make(s.m, s.k, 0, rnd), B = make(s.n, s.k, 0, rnd), C0 = make(s.m, s.n, 0, rnd);
  check_must_emulate(Op::N, Op::T, s, 1.0, -1.0, A, B, C0, "k past a chunk");
}

TEST(SpxGemmOzaki, RowAndColumnScalesSpanning1e100AndCancellation) {
  SPX_REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<double> uni(-1, 1), expo(-100, 100);
  const Shape s{40, 37, 96};
  std::vector<double> row(s.m), col(s.n);
  for (auto& r : row) r = std::pow(10.0, expo(rng));
  for (auto& c : col) c = std::pow(10.0, expo(rng));
  const Mat A = make(s.m, s.k, 0, [&](int64_t i, int64_t) { return row[i] * uni(rng); });
  Mat B = make(s.k, s.n, 0, [&](int64_t, int64_t j) { return col[j] * uni(rng); });
  const Mat C0 = make(s.m, s.n, 0, [](int64_t, int64_t) { return 0.0; });
  check_must_emulate(Op::N, Op::N, s, 1.0, 0.0, A, B, C0, "scales 1e+-100");
  // Deterministic: fixed-order statistics, an order-free minimum, exact integer products.
  const Mat first =
      run_device(Op::N, Op::N, s.m, s.n, s.k, 1.0, A, B, 0.0, C0, emulation(GemmEmulation::Always), nullptr);
  const Mat second =
      run_device(Op::N, Op::N, s.m, s.n, s.k, 1.0, A, B, 0.0, C0, emulation(GemmEmulation::Always), nullptr);
  EXPECT_EQ(first.v, second.v);
  // Pairs of columns that nearly cancel against equal pairs of A's entries.
  const Mat Ap = make(s.m, s.k, 0, [&](int64_t i, int64_t h) { return A.at(i, h - h % 2); });
  for (int64_t j = 0; j < s.n; ++j)
    for (int64_t h = 0; h + 1 < s.k; h += 2) B.at(h + 1, j) = -B.at(h, j) * (1 + 1e-12 * uni(rng));
  check_must_emulate(Op::N, Op::N, s, 1.0, 0.0, Ap, B, C0, "cancellation");
}

TEST(SpxGemmOzaki, AnAllZeroOperandIsExactAndScalesC) {
  SPX_REQUIRE_GPU();
  const Shape s{6, 5, 9};
  const Mat A = make(s.m, s.k, 1, [](int64_t, int64_t) { return 0.0; });
  const Mat B = make(s.k, s.n, 0, [](int64_t h, int64_t j) { return static_cast<double>(h + j) - 3.5; });
  const Mat C0 = make(s.m, s.n, 2, [](int64_t i, int64_t j) { return static_cast<double>(i * j) + 0.25; });
  check_must_emulate(Op::N, Op::N, s, 3.0, 2.0, A, B, C0, "A = 0");
  EXPECT_EQ(cuda::gemm_emulation_last().bits, 1);
}

TEST(SpxGemmOzaki, InfNaNAndWideSpreadFallBackToNativeWithTheReason) {
  SPX_REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<double> uni(-1, 1), expo(-100, 100);
  const Shape s{13, 11, 50};
  const Mat C0 = make(s.m, s.n, 0, [&](int64_t, int64_t) { return uni(rng); });
  for (double special : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    const Mat A = make(s.m, s.k, 0, [&](int64_t, int64_t) { return uni(rng); });
    Mat B = make(s.k, s.n, 0, [&](int64_t, int64_t) { return uni(rng); });
    B.at(4, 7) = special;
    cuda::GemmEmulationReport report;
    const Mat C = run_device(Op::N, Op::N, s.m, s.n, s.k, 1.0, A, B, 0.5, C0,
                             emulation(GemmEmulation::Always), &report);
    EXPECT_FALSE(report.emulated);
    EXPECT_EQ(report.reason, "column 7 of op(B) holds Inf or NaN");
    const Mat N =
        run_device(Op::N, Op::N, s.m, s.n, s.k, 1.0, A, B, 0.5, C0, emulation(GemmEmulation::Never), nullptr);
    for (std::size_t x = 0; x < C.v.size(); ++x)
      EXPECT_TRUE(C.v[x] == N.v[x] || (std::isnan(C.v[x]) && std::isnan(N.v[x]))) << x;
  }
  // Entries 10^(-100..100) within every row and column: elements the bound cannot certify.
  const auto wide = [&](int64_t, int64_t) { return uni(rng) * std::pow(10.0, expo(rng)); };
  const Mat A = make(s.m, s.k, 0, wide), B = make(s.k, s.n, 0, wide);
  cuda::GemmEmulationReport report;
  const Mat C =
      run_device(Op::N, Op::N, s.m, s.n, s.k, 2.0, A, B, 0.5, C0, emulation(GemmEmulation::Always), &report);
  EXPECT_FALSE(report.emulated);
  EXPECT_NE(report.reason.find("no lower bound"), std::string::npos) << report.reason;
  EXPECT_LE(bound_ratio(Op::N, Op::N, s.m, s.n, s.k, 2.0, A, B, 0.5, C0, C), 1.0);
}

TEST(SpxGemmOzaki, NeverAndSmallAutoShapesRunNativeAndAlwaysIsAutosKnob) {
  SPX_REQUIRE_GPU();
  const Shape s{64, 64, 64};
  const Mat A = make(s.m, s.k, 0, [](int64_t i, int64_t h) { return 1.0 / static_cast<double>(1 + i + h); });
  const Mat B = make(s.k, s.n, 0, [](int64_t h, int64_t j) { return 1.0 - static_cast<double>(h - j) / 64; });
  const Mat C0 = make(s.m, s.n, 0, [](int64_t, int64_t) { return 0.0; });
  cuda::GemmEmulationReport report;
  run_device(Op::N, Op::N, s.m, s.n, s.k, 1.0, A, B, 0.0, C0, cuda::GemmParams{}, &report);
  EXPECT_FALSE(report.emulated);
  EXPECT_NE(report.reason.find("native"), std::string::npos) << report.reason;
  run_device(Op::N, Op::N, s.m, s.n, s.k, 1.0, A, B, 0.0, C0, emulation(GemmEmulation::Never), &report);
  EXPECT_FALSE(report.emulated);
  EXPECT_NE(report.reason.find("forbidden"), std::string::npos) << report.reason;
  cuda::GemmParams v3 = emulation(GemmEmulation::Always);
  v3.version = cuda::GemmVersion::TensorCoreV3;
  EXPECT_THROW(run_device(Op::N, Op::N, s.m, s.n, s.k, 1.0, A, B, 0.0, C0, v3, nullptr), Error);
}

}  // namespace
}  // namespace spx::test
