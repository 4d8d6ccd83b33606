// The DGEMM plan rule (src/plan/gemm_rule.cpp) on an H100's device properties: the shape classes of
// issue 25 get the tile and split the blocking model gives them (long k: many splits of a small
// tile; tall-skinny and wide: a 64-wide tile, no split; large squares: 128 × 128, no split; a grid
// below one wave: more blocks than SMs), the candidates' limits (whole slabs per split, the
// workspace cap), and the choice is the minimum of the model over the table's candidates.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "cpu/h100_props.hpp"
#include "spx/cuda/rules.hpp"
#include "spx/error.hpp"

namespace spx::test {
namespace {

using cuda::GemmChoice;
using cuda::GemmTile;

const cuda::DeviceProps kH100 = h100_props();

int64_t tiles(const GemmChoice& c, int64_t m, int64_t n) {
  const cuda::GemmTileShape t = cuda::gemm_tile_shape(c.tile);
  const int64_t bm = t.bm, bn = t.bn;
  return ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
}

TEST(GemmRule, LongKSplitsASmallTile) {
  const GemmChoice c = cuda::gemm_rule(64, 64, 100000, false, kH100);
  const cuda::GemmTileShape t = cuda::gemm_tile_shape(c.tile);
  EXPECT_LE(t.bm * t.bn, 64 * 64) << "a small tile";
  EXPECT_GE(tiles(c, 64, 64) * c.split_k, 132) << "one or two output tiles must spread over every SM";
  EXPECT_GT(c.predicted_us, 0);
  // 1000 x 1000 x 1e5: 64 tiles of 128 x 128 leave half the SMs idle without a split.
  const GemmChoice d = cuda::gemm_rule(1000, 1000, 100000, false, kH100);
  EXPECT_GE(tiles(d, 1000, 1000) * d.split_k, 120);
}

TEST(GemmRule, LargeSquaresKeepTheLargeTile) {
  for (int64_t s : {4096, 8192, 16384}) {
    const GemmChoice c = cuda::gemm_rule(s, s, s, false, kH100);
    EXPECT_EQ(c.tile, GemmTile::T128x128) << s;
    EXPECT_EQ(c.split_k, 1) << s;
  }
}

TEST(GemmRule, SkinnyShapesTakeANarrowTileWithoutSplit) {
  const GemmChoice tall = cuda::gemm_rule(100000, 64, 64, false, kH100);
  EXPECT_NE(tall.tile, GemmTile::T128x128);
  EXPECT_EQ(tall.split_k, 1);
  const GemmChoice wide = cuda::gemm_rule(64, 100000, 64, false, kH100);
  EXPECT_EQ(wide.split_k, 1);
}

TEST(GemmRule, SmallGridsFillTheDevice) {
  const GemmChoice c = cuda::gemm_rule(1000, 1000, 1000, false, kH100);
  EXPECT_GE(tiles(c, 1000, 1000) * c.split_k, 132);
}

TEST(GemmRule, SplitsKeepWholeSlabsAndTheWorkspaceCap) {
  // k = 16: one slab of any tile, nothing to split.
  EXPECT_EQ(cuda::gemm_rule(64, 64, 16, false, kH100).split_k, 1);
  EXPECT_EQ(cuda::gemm_rule(1, 1, 1, false, kH100).split_k, 1);
  const cuda::GemmRuleTable& t = cuda::default_rule_tables().gemm;
  for (int64_t k : {1000, 5000, 100000}) {
    const GemmChoice c = cuda::gemm_rule(200, 200, k, true, kH100);
    const int64_t bk = cuda::gemm_tile_shape(c.tile).bk;
    EXPECT_GE((k + bk - 1) / bk / c.split_k, c.split_k > 1 ? t.min_split_slabs : 0) << k;
    EXPECT_LE(8.0 * 200 * 200 * c.split_k, static_cast<double>(t.max_workspace_bytes)) << k;
  }
  // A tiny workspace cap forbids splitting.
  cuda::RuleTables tables = cuda::default_rule_tables();
  tables.gemm.max_workspace_bytes = 1;
  EXPECT_EQ(cuda::gemm_rule(64, 64, 100000, false, kH100, tables).split_k, 1);
}

TEST(GemmRule, ChoiceIsTheModelsMinimum) {
  const cuda::RuleTables& tables = cuda::default_rule_tables();
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{64, 64, 100000},
                         {1000, 1000, 1000},
                         {100000, 64, 64},
                         {16384, 16384, 64},
                         {128, 128, 10000}}) {
    const GemmChoice c = cuda::gemm_rule(m, n, k, false, kH100);
    EXPECT_TRUE(std::isfinite(c.predicted_us));
    for (const cuda::GemmTileEntry& e : tables.gemm.tiles) {
      EXPECT_LE(c.predicted_us, cuda::gemm_predicted_us(e, 1, m, n, k, false, kH100) + 1e-9);
      // The restricted rule answers for that tile, and the unrestricted one is no slower.
      const GemmChoice only = cuda::gemm_rule(m, n, k, false, kH100, tables, e.tile);
      EXPECT_EQ(only.tile, e.tile);
      EXPECT_LE(c.predicted_us, only.predicted_us + 1e-9);
    }
  }
}

TEST(GemmRule, EveryTableTileHasItsShape) {
  for (const cuda::GemmTileEntry& e : cuda::default_rule_tables().gemm.tiles) {
    const cuda::GemmTileShape t = cuda::gemm_tile_shape(e.tile);
    EXPECT_EQ(t.bm, e.bm) << cuda::gemm_tile_name(e.tile);
    EXPECT_EQ(t.bn, e.bn) << cuda::gemm_tile_name(e.tile);
    EXPECT_TRUE(t.bk == 16 || t.bk == 32) << cuda::gemm_tile_name(e.tile);
  }
  EXPECT_STREQ(cuda::gemm_tile_name(GemmTile::T32x64), "32x64");
  EXPECT_THROW(cuda::gemm_tile_shape(GemmTile::Auto), Error);
}

}  // namespace
}  // namespace spx::test
