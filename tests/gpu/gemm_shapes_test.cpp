// SpxGemmShapes: version 3's tile shapes (GemmTile: 128 × 128, 128 × 64, 64 × 64) and split-k
// (GemmParams::split_k and the plan rule's choice under Auto) against spx::ref::gemm, on fresh
// random inputs: odd sizes (1, 7, 33, 65, 127, primes) that cut every tile's edges, M, N or K = 1,
// all four transpose pairs, (alpha, beta) = (1, 0) on a NaN-poisoned C (beta == 0 must never read C,
// neither in the kernel's epilogue nor in the split-k reduction) and (-0.5, 1.5), split factors that
// divide k's slabs unevenly or exceed them; then each shape class at Auto (long k, tall-skinny,
// wide, small square, short k), determinism of split-k, and the knobs' validation.
// Tolerance as gemm_spx_test.cpp: 2 (k + 3) u (|alpha| sum |a b| + |beta c|) per entry.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/gemm.hpp"

namespace spx::test {
namespace {

using cuda::GemmParams;
using cuda::GemmTile;
using cuda::GemmVersion;

struct Shape {
  int64_t m, n, k;
};

// One product on the device from a C poisoned with NaN (beta == 0) or random C (beta != 0), every
// entry of C compared with the reference; C's padding rows (ld = m + pad) must keep their values.
// Returns the device result (for the determinism check).
std::vector<double> check(Op op_a, Op op_b, Shape s, int64_t pad, double alpha, double beta,
                          const GemmParams& params, uint64_t seed) {
  auto& ctx = gpu();
  const int64_t a_rows = op_a == Op::N ? s.m : s.k, a_cols = op_a == Op::N ? s.k : s.m;
  const int64_t b_rows = op_b == Op::N ? s.k : s.n, b_cols = op_b == Op::N ? s.n : s.k;
  const int64_t lda = a_rows + pad, ldb = b_rows + pad, ldc = s.m + pad;
  const auto A = random_vector<double>(static_cast<std::size_t>(lda * a_cols), seed);
  const auto B = random_vector<double>(static_cast<std::size_t>(ldb * b_cols), seed + 1);
  auto C0 = random_vector<double>(static_cast<std::size_t>(ldc * s.n), seed + 2);
  if (beta == 0.0) poison(std::span<double>(C0));
  auto want = C0;
  ref::gemm(op_a, op_b, s.m, s.n, s.k, alpha, A.data(), lda, B.data(), ldb, beta, want.data(), ldc);
  const auto mag =
      gemm_magnitude(op_a, op_b, s.m, s.n, s.k, alpha, A.data(), lda, B.data(), ldb, beta, C0.data(), ldc);
  auto dA = cuda::to_device(ctx, A);
  auto dB = cuda::to_device(ctx, B);
  auto dC = cuda::to_device(ctx, C0);
  cuda::gemm(ctx, op_a, op_b, s.m, s.n, s.k, alpha, dA.data(), lda, dB.data(), ldb, beta, dC.data(), ldc,
             params);
  const auto got = cuda::to_host(ctx, dC);
  const std::string what = std::string("tile ") + cuda::gemm_tile_name(params.tile) +
                           " split_k=" + std::to_string(params.split_k) + " " + (op_a == Op::N ? "N" : "T") +
                           (op_b == Op::N ? "N" : "T") + " m=" + std::to_string(s.m) +
                           " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
                           " pad=" + std::to_string(pad) + " alpha=" + std::to_string(alpha) +
                           " beta=" + std::to_string(beta);
  const auto got_logical = column_major_entries(got, s.m, s.n, ldc);
  const auto want_logical = column_major_entries(want, s.m, s.n, ldc);
  expect_device_close(std::span<const double>(got_logical), std::span<const double>(want_logical), mag,
                      std::vector<int64_t>(mag.size(), s.k), what);
  for (int64_t j = 0; j < s.n; ++j)
    for (int64_t i = s.m; i < ldc; ++i) {
      const double old = C0[i + j * ldc], now = got[i + j * ldc];
      EXPECT_TRUE(now == old || (std::isnan(now) && std::isnan(old))) << what << ": wrote C's padding";
    }
  return got;
}

// Every tile, with no split, an uneven split and more splits than k has slabs; all transposes.
TEST(SpxGemmShapes, EveryTileAndSplitOnOddShapes) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  // Edge tiles over full slabs take the zero-filling edge loader: 16-byte copies over an even extent
  // (130 x 70 x 600, pad 0), 8-byte copies (odd ld), a 16-byte pair straddling an odd extent
  // (131 x 66 x 320, pad 1: ld even, 131 rows), a tile mostly past the edge (200 x 2 x 64).
  const std::tuple<Shape, int64_t> shapes[] = {
      {{1, 1, 1}, 0},      {{7, 33, 65}, 1},     {{33, 127, 7}, 2},    {{65, 1, 127}, 0},
      {{1, 65, 33}, 1},    {{127, 131, 257}, 0}, {{131, 63, 1000}, 0}, {{257, 67, 211}, 2},
      {{130, 70, 600}, 0}, {{131, 66, 320}, 1},  {{66, 131, 320}, 1},  {{200, 2, 64}, 0}};
  const std::tuple<GemmTile, int> knobs[] = {
      {GemmTile::T128x128, 1}, {GemmTile::T128x64, 3},  {GemmTile::T64x64, 1},    {GemmTile::T64x64, 7},
      {GemmTile::T128x64, 1},  {GemmTile::T128x128, 5}, {GemmTile::T64x64, 4096}, {GemmTile::T64x32, 1},
      {GemmTile::T64x32, 2},   {GemmTile::T32x64, 5},   {GemmTile::T32x32, 1},    {GemmTile::T32x32, 4096}};
  for (const auto& [tile, split] : knobs)
    for (Op op_a : {Op::N, Op::T})
      for (Op op_b : {Op::N, Op::T})
        for (const auto& [s, pad] : shapes) {
          const GemmParams p{GemmVersion::TensorCoreV3, tile, split};
          check(op_a, op_b, s, pad, 1.0, 0.0, p, seed);
          check(op_a, op_b, s, pad, -0.5, 1.5, p, seed + 3);
        }
}

// The shape classes at Auto (the rule picks tile and split), scaled to keep the CPU reference fast:
// long k (one output tile: many splits), tall-skinny and wide-short, a small square, short k over a
// larger C, M = 1, N = 1, K = 1; NN and TN (a block-Krylov V^T W).
TEST(SpxGemmShapes, AutoOnEveryShapeClass) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const Shape shapes[] = {{64, 64, 30011}, {32, 32, 20000},  {127, 65, 9001}, {20011, 64, 64},
                          {64, 20011, 33}, {1000, 1000, 16}, {333, 333, 333}, {1, 777, 301},
                          {777, 1, 301},   {513, 257, 1}};
  for (const Shape& s : shapes)
    for (Op op_a : {Op::N, Op::T}) {
      check(op_a, Op::N, s, 0, 1.0, 0.0, GemmParams{}, seed);
      check(op_a, Op::N, s, 1, -0.5, 1.5, GemmParams{}, seed + 3);
    }
}

// Split-k adds the partials in a fixed order: two runs give the same bits.
TEST(SpxGemmShapes, SplitKIsDeterministic) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const GemmParams p{GemmVersion::TensorCoreV3, GemmTile::T64x64, 37};
  const auto first = check(Op::N, Op::N, {70, 66, 5000}, 0, 1.0, 0.0, p, seed);
  const auto second = check(Op::N, Op::N, {70, 66, 5000}, 0, 1.0, 0.0, p, seed);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) ASSERT_EQ(first[i], second[i]) << "entry " << i;
  // A 32-deep-slab tile: its splits cut k in whole 32-deep slabs.
  const GemmParams q{GemmVersion::TensorCoreV3, GemmTile::T32x32, 29};
  const auto third = check(Op::T, Op::N, {40, 33, 4001}, 0, 1.0, 0.0, q, seed);
  const auto fourth = check(Op::T, Op::N, {40, 33, 4001}, 0, 1.0, 0.0, q, seed);
  for (std::size_t i = 0; i < third.size(); ++i) ASSERT_EQ(third[i], fourth[i]) << "entry " << i;
}

TEST(SpxGemmShapes, KnobsAreValidated) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto call = [&](const GemmParams& p) {
    cuda::gemm<double>(ctx, Op::N, Op::N, 4, 3, 5, 1.0, nullptr, 4, nullptr, 5, 0.0, nullptr, 4, p);
  };
  expect_error([&] { call(GemmParams{GemmVersion::Auto, GemmTile::Auto, -1}); }, "split_k = -1 is outside");
  expect_error(
      [&] {
        call(GemmParams{GemmVersion::Auto, GemmTile::Auto, cuda::kMaxGemmSplitK + 1});
      },
      "is outside");
  expect_error([&] { call(GemmParams{GemmVersion::CudaCoreV1, GemmTile::T64x64, 0}); }, "version 3's knobs");
  expect_error([&] { call(GemmParams{GemmVersion::TensorCoreV2, GemmTile::Auto, 2}); }, "version 3's knobs");
  expect_error(
      [&] {
        cuda::gemm<float>(ctx, Op::N, Op::N, 4, 3, 5, 1.f, nullptr, 4, nullptr, 5, 0.f, nullptr, 4,
                          GemmParams{GemmVersion::Auto, GemmTile::T128x64, 0});
      },
      "version 3's knobs");
  EXPECT_STREQ(cuda::gemm_tile_name(GemmTile::T128x64), "128x64");
}

}  // namespace
}  // namespace spx::test
