// The emulated DGEMM's host reference (src/cpu/gemm_ozaki_host.cpp, the arithmetic the GPU path
// shares): the moduli, the exact CRT reconstruction, and the elementwise bound
// |C - alpha op(A) op(B) - beta C0| <= |alpha| gamma_k |op(A)||op(B)| (+ the alpha/beta roundings)
// against a double-double reference, on random, wide-range, cancelling and special inputs, all op
// pairs, odd sizes and chunked k.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "cpu/gemm_ozaki_host.hpp"
#include "gemm_ozaki_check.hpp"
#include "spx/cpu.hpp"
#include "spx/plan/rules.hpp"

namespace spx::ozaki {
namespace {

using test::bound_ratio;
using test::make;
using test::Mat;
using test::padding_untouched;

__extension__ typedef unsigned __int128 U128;  // exact reference integers (GCC/Clang)

TEST(GemmOzakiMath, ModuliArePairwiseCoprimeAndFitInt8Residues) {
  for (int a = 0; a < kMaxModuli; ++a) {
    EXPECT_LE(kModuli[a], 256);
    for (int b = a + 1; b < kMaxModuli; ++b)
      EXPECT_EQ(std::gcd(kModuli[a], kModuli[b]), 1) << kModuli[a] << " " << kModuli[b];
  }
  // Residues of scaled integers (mantissa · 2^shift, up to 62 bits) against int64 arithmetic.
  const CrtTable t = crt_table(kMaxModuli);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uni(-1, 1);
  for (int trial = 0; trial < 20000; ++trial) {
    const double x = uni(rng) * std::ldexp(1.0, static_cast<int>(rng() % 64) - 32);
    const int e = std::ilogb(x) + static_cast<int>(rng() % 3);
    const int bits = 1 + static_cast<int>(rng() % kMaxBits);
    const int64_t exact = static_cast<int64_t>(std::nearbyint(std::ldexp(x, bits - 1 - e)));
    const ScaledInteger a = scaled_integer(x, e, bits);
    ASSERT_EQ(static_cast<int64_t>(a.mantissa) * (int64_t{1} << a.shift), exact) << x << " " << bits;
    for (int l = 0; l < kMaxModuli; ++l) {
      const int r = symmetric_residue(a, t, l);
      ASSERT_GE(r, -128);
      ASSERT_LE(r, 127);
      ASSERT_LE(2 * r, t.moduli[l]);
      ASSERT_EQ((exact - r) % t.moduli[l], 0) << exact << " mod " << t.moduli[l];
    }
  }
  EXPECT_NEAR(moduli_bits(14), 110.16, 0.01);
  EXPECT_NEAR(moduli_bits(20), 155.37, 0.01);
  // The worst int32 product of a chunk: 2^16 terms of 128 * 128.
  EXPECT_LT(static_cast<double>(kChunkK) * 128 * 128, 2147483647.0);
}

// The exact integer of a __int128 rounded once, as the compiler's conversion does it.
Wide wide_of(U128 x) {
  Wide w = wide_zero();
  for (int i = 0; i < 4; ++i) w.limb[i] = static_cast<uint32_t>(x >> (32 * i));
  return w;
}

TEST(GemmOzakiMath, CrtRecoversEveryIntegerWithinHalfTheModulusExactly) {
  std::mt19937_64 rng(7);
  for (int count : {2, 9, 14, 16}) {
    const CrtTable t = crt_table(count);
    const int bits = static_cast<int>(t.log2_modulus) - 2;  // |x| < 2^bits < M / 2
    for (int trial = 0; trial < 2000; ++trial) {
      U128 mag = (static_cast<U128>(rng()) << 64) | rng();
      if (bits < 128) mag &= (static_cast<U128>(1) << bits) - 1;
      mag >>= rng() % static_cast<unsigned>(bits);  // every magnitude class
      const bool negative = rng() & 1;
      int32_t residues[kMaxModuli];
      for (int l = 0; l < count; ++l) {
        int r = static_cast<int>(mag % static_cast<unsigned>(t.moduli[l]));
        if (negative) r = (t.moduli[l] - r) % t.moduli[l];
        // Stored as an int32 product would be: any representative.
        residues[l] = r - t.moduli[l] * static_cast<int>(rng() % 5);
      }
      const int scale = static_cast<int>(rng() % 200) - 100;
      const double want = std::ldexp(negative ? -static_cast<double>(mag) : static_cast<double>(mag), scale);
      EXPECT_EQ(crt_reconstruct(
                    t, [&](int l) { return residues[l]; }, scale),
                want)
          << count << " " << trial;
    }
  }
}

TEST(GemmOzakiMath, WideRoundIsCorrectlyRoundedAtTies) {
  // 2^53 + 1 (a tie, rounds to even 2^53) and 2^53 + 1 + 2^-k sticky bits (rounds up).
  const U128 base = (static_cast<U128>(1) << 120) | (static_cast<U128>(1) << 67);
  EXPECT_EQ(wide_round(wide_of(base), 0), std::ldexp(1.0, 120));
  EXPECT_EQ(wide_round(wide_of(base | 1), 0), std::ldexp(1.0, 120) + std::ldexp(1.0, 68));
  EXPECT_EQ(wide_round(wide_of(base | (static_cast<U128>(1) << 66)), 0),
            std::ldexp(1.0, 120) + std::ldexp(1.0, 68));
  EXPECT_EQ(wide_round(wide_of(12345), -3), 12345.0 / 8);
}

struct Check {
  double worst_ratio = 0;   // max |error| / bound
  double native_ratio = 0;  // the same for spx::ref::gemm
};

// Runs the host emulation on (A, B, C0) with the op pair; both it and spx::ref::gemm against the
// bound (gemm_ozaki_check.hpp).
Check run_and_check(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha, const Mat& A,
                    const Mat& B, double beta, const Mat& C0, OzakiChoice* choice_out = nullptr,
                    int forced_bits = 0) {
  Mat C = C0, N = C0;
  const OzakiChoice choice = gemm_host(op_a, op_b, m, n, k, alpha, A.v.data(), A.ld, B.v.data(), B.ld, beta,
                                       C.v.data(), C.ld, forced_bits);
  if (choice_out) *choice_out = choice;
  ref::gemm<double>(op_a, op_b, m, n, k, alpha, A.v.data(), A.ld, B.v.data(), B.ld, beta, N.v.data(), N.ld);
  Check r;
  r.worst_ratio = bound_ratio(op_a, op_b, m, n, k, alpha, A, B, beta, C0, C);
  r.native_ratio = bound_ratio(op_a, op_b, m, n, k, alpha, A, B, beta, C0, N);
  EXPECT_TRUE(padding_untouched(C, C0, m));
  return r;
}

TEST(GemmOzakiHost, RandomInputsMeetTheNativeBoundOnAllOpPairsAndOddSizes) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uni(-1, 1);
  const auto rnd = [&](int64_t, int64_t) { return uni(rng); };
  const int64_t shapes[][3] = {{1, 1, 2}, {7, 5, 3}, {33, 17, 40}, {16, 16, 16}, {20, 31, 129}, {9, 40, 300}};
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    for (Op op_a : {Op::N, Op::T}) {
      for (Op op_b : {Op::N, Op::T}) {
        const Mat A = op_a == Op::N ? make(m, k, 3, rnd) : make(k, m, 1, rnd);
        const Mat B = op_b == Op::N ? make(k, n, 2, rnd) : make(n, k, 0, rnd);
        const Mat C0 = make(m, n, 1, rnd);
        for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{-0.5, 1.5}}) {
          OzakiChoice choice;
          const Check c = run_and_check(op_a, op_b, m, n, k, alpha, A, B, beta, C0, &choice);
          if (k >= 3) {
            EXPECT_TRUE(choice.emulate) << m << "x" << n << "x" << k << ": " << choice.reason;
          }
          EXPECT_LE(c.worst_ratio, 1.0) << m << "x" << n << "x" << k << " bits " << choice.bits;
          if (k == 300) {
            EXPECT_LE(choice.moduli, 14) << choice.bits;
          }
        }
      }
    }
  }
}

TEST(GemmOzakiHost, RowAndColumnScalesSpanning1e100AreEmulated) {
  // Every row of A and column of B at its own scale 10^(-100..100), entries within it uniform.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uni(-1, 1), expo(-100, 100);
  const int64_t m = 19, n = 23, k = 64;
  std::vector<double> row(m), col(n);
  for (auto& r : row) r = std::pow(10.0, expo(rng));
  for (auto& c : col) c = std::pow(10.0, expo(rng));
  const Mat A = make(m, k, 0, [&](int64_t i, int64_t) { return row[i] * uni(rng); });
  const Mat B = make(k, n, 0, [&](int64_t, int64_t j) { return col[j] * uni(rng); });
  const Mat C0 = make(m, n, 0, [&](int64_t, int64_t) { return 0.0; });
  OzakiChoice choice;
  const Check c = run_and_check(Op::N, Op::N, m, n, k, 1.0, A, B, 0.0, C0, &choice);
  EXPECT_TRUE(choice.emulate) << choice.reason;
  EXPECT_LE(c.worst_ratio, 1.0);
}

TEST(GemmOzakiHost, EntriesSpanning1e100WithinARowFallBackOrMeetTheBound) {
  // Entries 10^(-100..100) everywhere: rows whose largest entry meets only tiny ones of a column
  // leave elements uncertified, so native runs with the reason; either way the bound holds.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uni(-1, 1), expo(-100, 100);
  const auto wide = [&](int64_t, int64_t) { return uni(rng) * std::pow(10.0, expo(rng)); };
  const int64_t m = 13, n = 11, k = 50;
  const Mat A = make(m, k, 0, wide), B = make(k, n, 0, wide), C0 = make(m, n, 0, wide);
  OzakiChoice choice;
  const Check c = run_and_check(Op::N, Op::N, m, n, k, 2.0, A, B, 0.5, C0, &choice);
  EXPECT_FALSE(choice.emulate);
  EXPECT_NE(choice.reason.find("no lower bound"), std::string::npos) << choice.reason;
  EXPECT_LE(c.worst_ratio, 1.0);
}

TEST(GemmOzakiHost, CancellationIsBoundedByAbsAB) {
  // Columns of B that nearly cancel against A's rows: C is ~1e-12 of |A||B|.
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> uni(-1, 1);
  const int64_t m = 12, n = 10, k = 96;
  const Mat A = make(m, k, 0, [&](int64_t, int64_t) { return uni(rng); });
  Mat B = make(k, n, 0, [&](int64_t, int64_t) { return uni(rng); });
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t h = 0; h + 1 < k; h += 2) B.at(h + 1, j) = -B.at(h, j) * (1 + 1e-12 * uni(rng));
  }
  const Mat Ap = make(m, k, 0, [&](int64_t i, int64_t h) { return h % 2 ? A.at(i, h - 1) : A.at(i, h); });
  const Mat C0 = make(m, n, 0, [&](int64_t, int64_t) { return 0.0; });
  OzakiChoice choice;
  const Check c = run_and_check(Op::N, Op::N, m, n, k, 1.0, Ap, B, 0.0, C0, &choice);
  EXPECT_TRUE(choice.emulate) << choice.reason;
  EXPECT_LE(c.worst_ratio, 1.0);
}

TEST(GemmOzakiHost, InfAndNaNFallBackToNativeWithTheReason) {
  const int64_t m = 4, n = 3, k = 5;
  for (double special : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    Mat A = make(m, k, 0, [](int64_t i, int64_t h) { return 1.0 + static_cast<double>(i + h); });
    const Mat B = make(k, n, 0, [](int64_t h, int64_t j) { return 0.5 - static_cast<double>(h * j); });
    A.at(2, 3) = special;
    Mat C = make(m, n, 0, [](int64_t, int64_t) { return 0.0; }), N = C;
    const OzakiChoice choice =
        gemm_host(Op::N, Op::N, m, n, k, 1.0, A.v.data(), A.ld, B.v.data(), B.ld, 0.0, C.v.data(), C.ld);
    EXPECT_FALSE(choice.emulate);
    EXPECT_EQ(choice.reason, "row 2 of op(A) holds Inf or NaN");
    ref::gemm<double>(Op::N, Op::N, m, n, k, 1.0, A.v.data(), A.ld, B.v.data(), B.ld, 0.0, N.v.data(), N.ld);
    for (std::size_t x = 0; x < C.v.size(); ++x) {
      EXPECT_EQ(std::isnan(C.v[x]), std::isnan(N.v[x]));
      if (!std::isnan(N.v[x])) {
        EXPECT_EQ(C.v[x], N.v[x]);
      }
    }
  }
}

TEST(GemmOzakiHost, ZeroRowsAndBetaZeroNeverReadC) {
  const int64_t m = 5, n = 4, k = 8;
  const Mat A =
      make(m, k, 0, [](int64_t i, int64_t h) { return i == 2 ? 0.0 : 1.0 / static_cast<double>(1 + i + h); });
  const Mat B = make(k, n, 0, [](int64_t h, int64_t j) {
    return j == 1 ? 0.0 : 1.0 - static_cast<double>(h) * 0.25 + static_cast<double>(j);
  });
  const Mat C0 = make(m, n, 0, [](int64_t, int64_t) { return std::numeric_limits<double>::quiet_NaN(); });
  OzakiChoice choice;
  const Check c = run_and_check(Op::N, Op::N, m, n, k, 1.0, A, B, 0.0, C0, &choice);
  EXPECT_TRUE(choice.emulate) << choice.reason;
  EXPECT_LE(c.worst_ratio, 1.0);
}

TEST(GemmOzakiHost, AnAllZeroOperandIsExactAndScalesC) {
  // No element constrains the width (the least room is infinite): one bit, exact zeros, beta C.
  const int64_t m = 6, n = 5, k = 9;
  const Mat A = make(m, k, 1, [](int64_t, int64_t) { return 0.0; });
  const Mat B = make(k, n, 0, [](int64_t h, int64_t j) { return static_cast<double>(h + j) - 3.5; });
  const Mat C0 = make(m, n, 2, [](int64_t i, int64_t j) { return static_cast<double>(i * j) + 0.25; });
  OzakiChoice choice;
  const Check c = run_and_check(Op::N, Op::N, m, n, k, 3.0, A, B, 2.0, C0, &choice);
  EXPECT_TRUE(choice.emulate) << choice.reason;
  EXPECT_EQ(choice.bits, 1);
  EXPECT_EQ(c.worst_ratio, 0.0);
  EXPECT_EQ(bits_for_room(std::numeric_limits<double>::infinity()), 1);
}

TEST(GemmOzakiHost, ChunkedKFoldsResiduesExactly) {
  // k past one exact INT8 chunk (kChunkK): the chunks' residues are summed mod m.
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> uni(-1, 1);
  const int64_t m = 2, n = 3, k = kChunkK + 4099;
  const auto rnd = [&](int64_t, int64_t) { return uni(rng); };
  const Mat A = make(m, k, 0, rnd), B = make(n, k, 0, rnd), C0 = make(m, n, 0, rnd);
  OzakiChoice choice;
  const Check c = run_and_check(Op::N, Op::T, m, n, k, 1.0, A, B, -1.0, C0, &choice);
  EXPECT_TRUE(choice.emulate) << choice.reason;
  EXPECT_LE(c.worst_ratio, 1.0);
}

TEST(GemmOzakiHost, TooNarrowIntegersBreakTheBoundTheTestsCheck) {
  // The check is sharp enough to see a width below the one the room asks for.
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> uni(-1, 1);
  const auto rnd = [&](int64_t, int64_t) { return uni(rng); };
  const int64_t m = 16, n = 16, k = 64;
  const Mat A = make(m, k, 0, rnd), B = make(k, n, 0, rnd), C0 = make(m, n, 0, rnd);
  OzakiChoice choice;
  run_and_check(Op::N, Op::N, m, n, k, 1.0, A, B, 0.0, C0, &choice);
  ASSERT_TRUE(choice.emulate);
  const Check narrow = run_and_check(Op::N, Op::N, m, n, k, 1.0, A, B, 0.0, C0, nullptr, choice.bits - 8);
  EXPECT_GT(narrow.worst_ratio, 1.0);
}

TEST(GemmOzakiHost, ChoosesModuliFromTheRoom) {
  EXPECT_EQ(bits_for_room(std::ldexp(1.0, -40)), 40);
  EXPECT_EQ(bits_for_room(std::ldexp(1.0, -40) * 0.99), 41);
  EXPECT_EQ(moduli_for(40, 4096), 12);  // 2 * 40 + 1 + 12 = 93 bits
  const OzakiChoice wide = choose_emulation(4096, std::ldexp(1.0, -70), 0);
  EXPECT_FALSE(wide.emulate);
  EXPECT_NE(wide.reason.find("more than 62 bits"), std::string::npos) << wide.reason;
  const OzakiChoice many = choose_emulation(int64_t{1} << 40, std::ldexp(1.0, -62), 0);
  EXPECT_FALSE(many.emulate);
  EXPECT_NE(many.reason.find("moduli"), std::string::npos) << many.reason;
}

}  // namespace
}  // namespace spx::ozaki

namespace spx::plan {
namespace {

using cuda::DeviceProps;
using cuda::GemmEmulation;
using cuda::GemmParams;
using cuda::GemmVersion;

TEST(GemmEmulationPlan, PredictsAWinOnLargeSquaresOnlyAndObeysTheKnob) {
  const DeviceProps h100;  // no figures: the H100 SXM's
  const GemmParams auto_params;
  DeviceProps h200;  // the figures the cost model was fitted on
  h200.sm_count = 132;
  h200.cc_major = 9;
  h200.mem_clock_khz = 3'201'000;
  h200.mem_bus_bits = 6144;
  // Measured on an H200: emulated 16384^3 145 ms against cuBLAS's 157 (1.08x), 8192^3 21.0 against
  // 19.5 (0.93x). Native predicted 165 and 21.2 ms: Auto emulates the first, not the second.
  const GemmEmulationChoice big =
      gemm_emulation_plan(16384, 16384, 16384, false, h200, auto_params, 165000.0);
  EXPECT_TRUE(big.emulate) << big.why;
  EXPECT_TRUE(big.considered);
  EXPECT_EQ(big.moduli, 13);
  EXPECT_EQ(big.bits, 41);
  EXPECT_NEAR(big.emulated_us, big.int8_us + big.convert_us, 1e-9);
  EXPECT_NEAR(big.emulated_us, 145000.0, 0.1 * 145000.0);
  EXPECT_NE(big.why.find(": emulation"), std::string::npos) << big.why;
  const GemmEmulationChoice mid = gemm_emulation_plan(8192, 8192, 8192, false, h200, auto_params, 21200.0);
  EXPECT_FALSE(mid.emulate) << mid.why;
  EXPECT_NEAR(mid.emulated_us, 21000.0, 0.1 * 21000.0);
  EXPECT_FALSE(gemm_emulation_plan(4096, 4096, 4096, false, h200, auto_params, 2660.0).emulate);
  // More moduli (what a call's statistics may ask for) cost more; past native's time, native.
  const GemmEmulationChoice more =
      gemm_emulation_plan(16384, 16384, 16384, false, h200, auto_params, 165000.0, 20);
  EXPECT_GT(more.emulated_us, big.emulated_us);
  EXPECT_FALSE(more.emulate) << more.why;
  // The figures are data: a margin of 2x keeps 16384^3 native.
  RuleTables cautious = default_rule_tables();
  cautious.gemm_emulation.margin = 1.0;
  EXPECT_FALSE(
      gemm_emulation_plan(16384, 16384, 16384, false, h200, auto_params, 165000.0, 0, cautious).emulate);
  // Short k: the int32 products' bytes outweigh the INT8 speed.
  EXPECT_FALSE(gemm_emulation_plan(8192, 8192, 256, false, h100, auto_params, 760.0).emulate);
  EXPECT_NEAR(gemm_emulation_plan(8192, 8192, 256, false, h200, auto_params, 760.0).emulated_us, 8700.0,
              870.0);
  // The knobs: Never, Always, an explicit version; no figures for pre-Hopper devices.
  GemmParams never, always, v3;
  never.emulation = GemmEmulation::Never;
  always.emulation = GemmEmulation::Always;
  v3.version = GemmVersion::TensorCoreV3;
  EXPECT_FALSE(gemm_emulation_plan(8192, 8192, 8192, false, h100, never, 21000.0).emulate);
  EXPECT_TRUE(gemm_emulation_plan(64, 64, 64, false, h100, always, 10.0).emulate);
  EXPECT_FALSE(gemm_emulation_plan(8192, 8192, 8192, false, h100, v3, 21000.0).emulate);
  DeviceProps ampere;
  ampere.sm_count = 108;
  ampere.cc_major = 8;
  const GemmEmulationChoice a100 = gemm_emulation_plan(8192, 8192, 8192, false, ampere, auto_params, 1e9);
  EXPECT_FALSE(a100.emulate);
  EXPECT_FALSE(a100.considered);
  EXPECT_NE(a100.why.find("sm_80"), std::string::npos) << a100.why;
}

}  // namespace
}  // namespace spx::plan
