// The DGEMM plan rule (src/plan/gemm_rule.cpp) on an H100's device properties: the shape classes of
// issue 25 get the tile and split the blocking model gives them (long k: many splits of a small
// tile; tall-skinny and wide: a 64-wide tile, no split; large squares: 128 × 128, no split; a grid
// below one wave: more blocks than SMs), the candidates' limits (whole slabs per split, the
// workspace cap), and the choice is the minimum of the model over the table's candidates.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "cpu/h100_props.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"

namespace spx::test {
namespace {

using cuda::GemmTile;
using plan::GemmChoice;

const cuda::DeviceProps kH100 = h100_props();

int64_t tiles(const plan::GemmChoice& c, int64_t m, int64_t n) {
  const cuda::GemmTileShape t = cuda::gemm_tile_shape(c.tile);
  const int64_t bm = t.bm, bn = t.bn;
  return ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
}

TEST(GemmRule, LongKSplitsASmallTile) {
  const plan::GemmChoice c = plan::gemm_rule(64, 64, 100000, false, kH100);
  const cuda::GemmTileShape t = cuda::gemm_tile_shape(c.tile);
  EXPECT_LE(t.bm * t.bn, 64 * 64) << "a small tile";
  EXPECT_GE(tiles(c, 64, 64) * c.split_k, 132) << "one or two output tiles must spread over every SM";
  EXPECT_GT(c.predicted_us, 0);
  // 1000 x 1000 x 1e5: 64 tiles of 128 x 128 leave half the SMs idle without a split.
  const plan::GemmChoice d = plan::gemm_rule(1000, 1000, 100000, false, kH100);
  EXPECT_GE(tiles(d, 1000, 1000) * d.split_k, 120);
}

TEST(GemmRule, LargeSquaresKeepTheLargeTile) {
  for (int64_t s : {4096, 8192, 16384}) {
    const plan::GemmChoice c = plan::gemm_rule(s, s, s, false, kH100);
    EXPECT_EQ(c.tile, GemmTile::T128x128) << s;
    EXPECT_EQ(c.split_k, 1) << s;
  }
}

TEST(GemmRule, SkinnyShapesTakeANarrowTileWithoutSplit) {
  const plan::GemmChoice tall = plan::gemm_rule(100000, 64, 64, false, kH100);
  EXPECT_NE(tall.tile, GemmTile::T128x128);
  EXPECT_EQ(tall.split_k, 1);
  const plan::GemmChoice wide = plan::gemm_rule(64, 100000, 64, false, kH100);
  EXPECT_EQ(wide.split_k, 1);
}

TEST(GemmRule, SmallGridsFillTheDevice) {
  const plan::GemmChoice c = plan::gemm_rule(1000, 1000, 1000, false, kH100);
  EXPECT_GE(tiles(c, 1000, 1000) * c.split_k, 132);
}

TEST(GemmRule, SplitsKeepWholeSlabsAndTheWorkspaceCap) {
  // k = 16: one slab of any tile, nothing to split.
  EXPECT_EQ(plan::gemm_rule(64, 64, 16, false, kH100).split_k, 1);
  EXPECT_EQ(plan::gemm_rule(1, 1, 1, false, kH100).split_k, 1);
  const plan::GemmRuleTable& t = plan::default_rule_tables().gemm;
  for (int64_t k : {1000, 5000, 100000}) {
    const plan::GemmChoice c = plan::gemm_rule(200, 200, k, true, kH100);
    const int64_t bk = cuda::gemm_tile_shape(c.tile).bk;
    EXPECT_GE((k + bk - 1) / bk / c.split_k, c.split_k > 1 ? t.min_split_slabs : 0) << k;
    EXPECT_LE(8.0 * 200 * 200 * c.split_k, static_cast<double>(t.max_workspace_bytes)) << k;
  }
  // A tiny workspace cap forbids splitting.
  plan::RuleTables tables = plan::default_rule_tables();
  tables.gemm.max_workspace_bytes = 1;
  EXPECT_EQ(plan::gemm_rule(64, 64, 100000, false, kH100, tables).split_k, 1);
}

TEST(GemmRule, ChoiceIsTheModelsMinimum) {
  const plan::RuleTables& tables = plan::default_rule_tables();
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{64, 64, 100000},
                         {1000, 1000, 1000},
                         {100000, 64, 64},
                         {16384, 16384, 64},
                         {128, 128, 10000}}) {
    const plan::GemmChoice c = plan::gemm_rule(m, n, k, false, kH100);
    EXPECT_TRUE(std::isfinite(c.predicted_us));
    for (const plan::GemmTileEntry& e : tables.gemm.tiles) {
      EXPECT_LE(c.predicted_us, plan::gemm_predicted_us(e, 1, m, n, k, false, kH100) + 1e-9);
      // The restricted rule answers for that tile, and the unrestricted one is no slower.
      const plan::GemmChoice only = plan::gemm_rule(m, n, k, false, kH100, tables, e.tile);
      EXPECT_EQ(only.tile, e.tile);
      EXPECT_LE(c.predicted_us, only.predicted_us + 1e-9);
    }
  }
}

TEST(GemmRule, EveryTableTileHasItsShape) {
  for (const plan::GemmTileEntry& e : plan::default_rule_tables().gemm.tiles) {
    const cuda::GemmTileShape t = cuda::gemm_tile_shape(e.tile);
    EXPECT_EQ(t.bm, e.bm) << cuda::gemm_tile_name(e.tile);
    EXPECT_EQ(t.bn, e.bn) << cuda::gemm_tile_name(e.tile);
    EXPECT_TRUE(t.bk == 16 || t.bk == 32) << cuda::gemm_tile_name(e.tile);
    EXPECT_EQ(cuda::gemm_tile_row(e.tile)->blocks_per_sm, e.blocks_per_sm) << cuda::gemm_tile_name(e.tile);
  }
  // Every tile of the one tile table (gemm.hpp) is a candidate of the rule, in the table's order.
  const auto& entries = plan::default_rule_tables().gemm.tiles;
  ASSERT_EQ(entries.size(), cuda::kGemmTiles.size());
  for (std::size_t i = 0; i < entries.size(); ++i) EXPECT_EQ(entries[i].tile, cuda::kGemmTiles[i]);
  EXPECT_STREQ(cuda::gemm_tile_name(GemmTile::T32x64), "32x64");
  EXPECT_THROW(cuda::gemm_tile_shape(GemmTile::Auto), Error);
}

// tests/data/gemm_model_golden.json holds the model's times for a spread of (tile, split, shape) on
// this H100 with the committed table; bench/gemm_fit.py's port of the model is tested against the
// same file (tests/python/test_gemm_fit_model.py), so the fit and the rule cannot drift apart. A
// change of the model or the table regenerates the file (its "what" says from what).
// The m x n x k of bench/gemm-shapes/{grid,validation}.txt (op pairs do not change the rule).
std::vector<std::array<int64_t, 3>> gemm_shape_sets() {
  std::vector<std::array<int64_t, 3>> out;
  const std::string root = std::string(SPX_TEST_DATA) + "/../../bench/gemm-shapes/";
  for (const char* set : {"grid.txt", "validation.txt"}) {
    std::ifstream in(root + set);
    EXPECT_TRUE(in) << root + set;
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line.substr(0, line.find('#')));
      std::string w;
      long long m = 0, n = 0, k = 0;
      while (words >> w)
        if (std::sscanf(w.c_str(), "%lldx%lldx%lld", &m, &n, &k) == 3) out.push_back({m, n, k});
    }
  }
  return out;
}

// SPX_WRITE_GEMM_GOLDEN=1 writes the file from the current model and table instead of checking it.
void write_gemm_golden(const std::string& path) {
  const plan::GemmRuleTable& t = plan::default_rule_tables().gemm;
  nlohmann::ordered_json j;
  j["what"] =
      "gemm_predicted_us on tests/cpu/h100_props.hpp's H100 with the committed GemmRuleTable; the C++ rule "
      "(gemm_rule_test) and bench/gemm_fit.py's port (tests/python/test_gemm_fit_model.py) both reproduce "
      "these";
  j["l2_gbs"] = t.l2_gbs;
  for (const plan::GemmTileEntry& e : t.tiles)
    j["tiles"][cuda::gemm_tile_name(e.tile)] = {e.bm,
                                                e.bn,
                                                e.blocks_per_sm,
                                                e.tensor_fraction,
                                                e.alone_fraction,
                                                e.store_overlap,
                                                e.store_efficiency};
  const int64_t shapes[][3] = {{256, 256, 256},    {1000, 128, 1000},  {64, 64, 100000},
                               {100000, 32, 1000}, {4096, 4096, 4096}, {60000, 96, 2000},
                               {16, 16, 500000},   {1, 777, 301},      {16384, 16384, 16}};
  j["cases"] = nlohmann::ordered_json::array();
  for (const auto& s : shapes)
    for (const plan::GemmTileEntry& e : t.tiles)
      for (int split : {1, 2, 7, 131})
        for (bool reads_c : {false, true}) {
          if (reads_c && split != 1 && split != 7) continue;
          j["cases"].push_back({{"tile", cuda::gemm_tile_name(e.tile)},
                                {"split_k", split},
                                {"m", s[0]},
                                {"n", s[1]},
                                {"k", s[2]},
                                {"reads_c", reads_c},
                                {"us", plan::gemm_predicted_us(e, split, s[0], s[1], s[2], reads_c, kH100)}});
        }
  // The rule's pick on every shape of bench/gemm-shapes (the fit and validation sets).
  j["picks"] = nlohmann::ordered_json::array();
  for (const auto& [m, n, k] : gemm_shape_sets()) {
    const plan::GemmChoice c = plan::gemm_rule(m, n, k, false, kH100);
    j["picks"].push_back(
        {{"m", m}, {"n", n}, {"k", k}, {"tile", cuda::gemm_tile_name(c.tile)}, {"split_k", c.split_k}});
  }
  std::ofstream(path) << j.dump(2) << "\n";
}

TEST(GemmRule, ModelMatchesItsGoldenTimes) {
  const std::string path = std::string(SPX_TEST_DATA) + "/gemm_model_golden.json";
  if (const char* w = std::getenv("SPX_WRITE_GEMM_GOLDEN"); w != nullptr && std::string(w) == "1")
    write_gemm_golden(path);
  std::ifstream in(path);
  ASSERT_TRUE(in) << SPX_TEST_DATA << "/gemm_model_golden.json";
  const nlohmann::json golden = nlohmann::json::parse(in);
  const plan::GemmRuleTable& t = plan::default_rule_tables().gemm;
  EXPECT_DOUBLE_EQ(golden["l2_gbs"].get<double>(), t.l2_gbs)
      << "the table changed: regenerate the golden file";
  for (const plan::GemmTileEntry& e : t.tiles) {
    const auto& g = golden["tiles"].at(cuda::gemm_tile_name(e.tile));
    EXPECT_EQ(g[2].get<int>(), e.blocks_per_sm);
    EXPECT_DOUBLE_EQ(g[3].get<double>(), e.tensor_fraction) << cuda::gemm_tile_name(e.tile);
    EXPECT_DOUBLE_EQ(g[4].get<double>(), e.alone_fraction) << cuda::gemm_tile_name(e.tile);
    EXPECT_DOUBLE_EQ(g[5].get<double>(), e.store_overlap) << cuda::gemm_tile_name(e.tile);
    EXPECT_DOUBLE_EQ(g[6].get<double>(), e.store_efficiency) << cuda::gemm_tile_name(e.tile);
  }
  ASSERT_GT(golden["cases"].size(), 100u);
  for (const auto& c : golden["cases"]) {
    const plan::GemmTileEntry* entry = nullptr;
    for (const plan::GemmTileEntry& e : t.tiles)
      if (c["tile"].get<std::string>() == cuda::gemm_tile_name(e.tile)) entry = &e;
    ASSERT_NE(entry, nullptr) << c.dump();
    const double us =
        plan::gemm_predicted_us(*entry, c["split_k"].get<int>(), c["m"].get<int64_t>(), c["n"].get<int64_t>(),
                                c["k"].get<int64_t>(), c["reads_c"].get<bool>(), kH100);
    EXPECT_NEAR(us, c["us"].get<double>(), 1e-9 * c["us"].get<double>()) << c.dump();
  }
  const auto shapes = gemm_shape_sets();
  ASSERT_EQ(golden["picks"].size(), shapes.size()) << "the shape sets changed: regenerate the golden file";
  for (const auto& p : golden["picks"]) {
    const plan::GemmChoice c =
        plan::gemm_rule(p["m"].get<int64_t>(), p["n"].get<int64_t>(), p["k"].get<int64_t>(), false, kH100);
    EXPECT_EQ(p["tile"].get<std::string>(), cuda::gemm_tile_name(c.tile)) << p.dump();
    EXPECT_EQ(p["split_k"].get<int>(), c.split_k) << p.dump();
  }
}

// gemm_plan: the knobs over the rule, as gemm() launches them.
TEST(GemmRule, PlanAppliesTheKnobsOverTheRule) {
  using cuda::GemmParams;
  using cuda::GemmVersion;
  for (auto [m, n, k] :
       {std::tuple<int64_t, int64_t, int64_t>{1000, 128, 1000}, {64, 64, 100000}, {4096, 4096, 16}}) {
    const plan::GemmChoice rule = plan::gemm_rule(m, n, k, false, kH100);
    const plan::GemmChoice plan = plan::gemm_plan(m, n, k, false, kH100, GemmParams{});
    EXPECT_EQ(plan.tile, rule.tile);
    EXPECT_EQ(plan.split_k, rule.split_k);
    EXPECT_DOUBLE_EQ(plan.spx_predicted_us, rule.predicted_us);
    EXPECT_DOUBLE_EQ(plan.predicted_us, plan.cublas ? plan.cublas_predicted_us : rule.predicted_us);
    // A tile alone: the rule's split for that tile.
    const plan::GemmChoice tile =
        plan::gemm_plan(m, n, k, false, kH100, GemmParams{GemmVersion::Auto, GemmTile::T32x64, 0});
    const plan::GemmChoice only =
        plan::gemm_rule(m, n, k, false, kH100, plan::default_rule_tables(), GemmTile::T32x64);
    EXPECT_EQ(tile.tile, GemmTile::T32x64);
    EXPECT_EQ(tile.split_k, only.split_k);
  }
  // A split alone keeps the rule's tile; past what k's slabs allow it shrinks to whole slabs: k = 100
  // is 4 slabs of 32 (32 x 32) or 7 of 16 (64 x 64).
  const plan::GemmChoice a =
      plan::gemm_plan(64, 64, 100, false, kH100, GemmParams{GemmVersion::Auto, GemmTile::T32x32, 10});
  EXPECT_EQ(a.split_k, 4);
  EXPECT_GT(a.predicted_us, 0);
  const plan::GemmChoice b =
      plan::gemm_plan(64, 64, 100, false, kH100, GemmParams{GemmVersion::Auto, GemmTile::T64x64, 10});
  EXPECT_EQ(b.split_k, 7);
  const plan::GemmChoice c =
      plan::gemm_plan(64, 64, 100, false, kH100, GemmParams{GemmVersion::Auto, GemmTile::T64x64, 3});
  EXPECT_EQ(c.split_k, 3);  // 7 slabs: 3, 3 and 1
}

// Auto's other candidate, cuBLAS: the vendor model's time (the values of bench/gemm_vendor_fit.py's
// port for the committed vendor tiles), the pick by the two times and the margin, and never for an
// explicit version or knob.
TEST(GemmRule, AutoHandsTheProductToCublasWhereTheVendorModelIsFaster) {
  using cuda::GemmParams;
  using cuda::GemmVersion;
  const std::tuple<int64_t, int64_t, int64_t, double> vendor_times[] = {
      {1000, 128, 1000, 15.369344855381906}, {32, 32, 100000, 26.125068940647406},
      {4096, 4096, 16, 54.48070807835656},   {60000, 96, 2000, 657.17121593022},
      {256, 256, 256, 9.780976913490171},    {16384, 16384, 16384, 165412.2740777581}};
  for (const auto& [m, n, k, us] : vendor_times) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    EXPECT_NEAR(plan::gemm_vendor_us(m, n, k, false, kH100), us, 1e-9 * us);
    const plan::GemmChoice plan = plan::gemm_plan(m, n, k, false, kH100, GemmParams{});
    EXPECT_DOUBLE_EQ(plan.cublas_predicted_us, us);
    EXPECT_EQ(plan.cublas, us < plan.spx_predicted_us);
    // An explicit version or knob runs spx's kernels and asks no vendor model.
    for (const GemmParams p :
         {GemmParams{GemmVersion::TensorCoreV3}, GemmParams{GemmVersion::Auto, GemmTile::T64x64},
          GemmParams{GemmVersion::Auto, GemmTile::Auto, 1}}) {
      const plan::GemmChoice own = plan::gemm_plan(m, n, k, false, kH100, p);
      EXPECT_FALSE(own.cublas);
      EXPECT_EQ(own.cublas_predicted_us, 0.0);
    }
  }
  // Where each side wins by the models (H100): cuBLAS on mid-size and short-k shapes, spx on the
  // smallest squares and long k with a tiny output (split-k over 32 x 32 tiles).
  EXPECT_TRUE(plan::gemm_plan(1000, 128, 1000, false, kH100, GemmParams{}).cublas);
  EXPECT_TRUE(plan::gemm_plan(4096, 4096, 16, false, kH100, GemmParams{}).cublas);
  EXPECT_FALSE(plan::gemm_plan(32, 32, 100000, false, kH100, GemmParams{}).cublas);
  EXPECT_FALSE(plan::gemm_plan(256, 256, 256, false, kH100, GemmParams{}).cublas);
  // The margin is data: a large one keeps spx; no vendor tiles, spx only.
  plan::RuleTables t = plan::default_rule_tables();
  t.gemm.vendor_margin = -0.9;
  EXPECT_FALSE(plan::gemm_plan(1000, 128, 1000, false, kH100, GemmParams{}, t).cublas);
  t.gemm.vendor_margin = 0.0;
  t.gemm.vendor_tiles.clear();
  const plan::GemmChoice none = plan::gemm_plan(1000, 128, 1000, false, kH100, GemmParams{}, t);
  EXPECT_FALSE(none.cublas);
  EXPECT_EQ(none.cublas_predicted_us, 0.0);
  EXPECT_TRUE(std::isinf(plan::gemm_vendor_us(1000, 128, 1000, false, kH100, t)));
}

// Odd leading dimensions: cuBLAS's unaligned kernels are slower (vendor_unaligned_*), spx's v3 keeps
// its pace on large squares, so 4095^3 goes to spx where 4096^3 goes to cuBLAS. The times are
// bench/gemm_vendor_fit.py's for the same inputs.
TEST(GemmRule, OddLeadingDimensionsSlowTheVendorModel) {
  using cuda::GemmParams;
  EXPECT_NEAR(plan::gemm_vendor_us(4095, 4095, 4095, false, kH100, plan::default_rule_tables(), false),
              2984.319023325117, 1e-6);
  EXPECT_NEAR(plan::gemm_vendor_us(4095, 4095, 4095, false, kH100), 2670.838525994721, 1e-6);
  EXPECT_NEAR(plan::gemm_vendor_us(16383, 16383, 63, false, kH100, plan::default_rule_tables(), false),
              1328.9904061434509, 1e-6);
  const auto plan = [](int64_t n, bool aligned) {
    return plan::gemm_plan(n, n, n, false, kH100, GemmParams{}, plan::default_rule_tables(), aligned);
  };
  EXPECT_TRUE(plan(4096, true).cublas);
  EXPECT_FALSE(plan(4095, false).cublas);
  EXPECT_EQ(plan(4095, false).tile, plan(4095, true).tile);  // the spx pick itself does not move
  // Short k stays with cuBLAS even unaligned (spx's stores suffer more).
  EXPECT_TRUE(
      plan::gemm_plan(16383, 16383, 63, false, kH100, GemmParams{}, plan::default_rule_tables(), false)
          .cublas);
}

// spx's small tiles on unaligned operands: under unaligned_small_us of predicted time spx must be
// predicted (1 + unaligned_small_margin) x faster: 255^3 (odd) goes to cuBLAS, 256^3 (even) stays.
TEST(GemmRule, SmallUnalignedProductsNeedAClearSpxWin) {
  using cuda::GemmParams;
  const auto& t = plan::default_rule_tables();
  const plan::GemmChoice odd = plan::gemm_plan(255, 255, 255, false, kH100, GemmParams{}, t, false);
  const plan::GemmChoice even = plan::gemm_plan(256, 256, 256, false, kH100, GemmParams{}, t, true);
  EXPECT_LT(odd.spx_predicted_us, t.gemm.unaligned_small_us);
  EXPECT_LT(odd.spx_predicted_us, odd.cublas_predicted_us);  // spx is predicted faster, but not by 1.5x
  EXPECT_TRUE(odd.cublas);
  EXPECT_DOUBLE_EQ(odd.margin, t.gemm.vendor_margin + t.gemm.unaligned_small_margin);
  EXPECT_FALSE(even.cublas);
  EXPECT_DOUBLE_EQ(even.margin, t.gemm.vendor_margin);
  // Large products keep the plain margin unaligned too.
  EXPECT_DOUBLE_EQ(plan::gemm_plan(4095, 4095, 4095, false, kH100, GemmParams{}, t, false).margin,
                   t.gemm.vendor_margin);
}

TEST(GemmRule, OperandsAlignedNeedsEvenLeadingDimensionsAnd16ByteData) {
  alignas(16) static double buf[8];
  const double* a = buf;
  EXPECT_TRUE(plan::gemm_operands_aligned(a, 4, a, 2, a, 100));
  EXPECT_TRUE(plan::gemm_operands_aligned(nullptr, 4, nullptr, 2, nullptr, 100));
  EXPECT_FALSE(plan::gemm_operands_aligned(a, 5, a, 2, a, 100));
  EXPECT_FALSE(plan::gemm_operands_aligned(a, 4, a, 3, a, 100));
  EXPECT_FALSE(plan::gemm_operands_aligned(a, 4, a, 2, a, 101));
  EXPECT_FALSE(plan::gemm_operands_aligned(a + 1, 4, a, 2, a, 100));  // 8 bytes off
  EXPECT_FALSE(plan::gemm_operands_aligned(a, 4, a, 2, a + 1, 100));
}

TEST(GemmRule, TileNamesRoundTrip) {
  EXPECT_EQ(cuda::gemm_tile_from_name("auto"), GemmTile::Auto);
  for (GemmTile t : cuda::kGemmTiles) EXPECT_EQ(cuda::gemm_tile_from_name(cuda::gemm_tile_name(t)), t);
  try {
    cuda::gemm_tile_from_name("16x16");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown GEMM tile '16x16' (one of: auto, 128x128"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace spx::test
