// The SpMM rules (src/plan/spmm_rules.cpp) on hand-made matrix statistics and an H100's
// device properties: the format rule (slab size, short uniform rows), the ELLR-T SpMM rule
// (T, BS, L_c) and the CSR SpMM rule. Host-only, so they run in every build.
#include <gtest/gtest.h>

#include <cstdint>

#include "cpu/h100_props.hpp"
#include "plan/rules_detail.hpp"
#include "spx/plan/rules.hpp"

namespace spx::test {
namespace {

using cuda::DeviceProps;
using namespace plan::detail;
using cuda::kSpmmMaxBlock;
using cuda::kSpmmNoLongRows;

const plan::SpmmRuleTable& spmm_table() { return plan::default_rule_tables().spmm; }

DeviceProps h100() { return h100_props(); }

MatrixStats make(int64_t rows, double avg, double stddev, int64_t max_row) {
  MatrixStats s;
  s.rows = rows;
  s.cols = rows;
  s.nnz = static_cast<int64_t>(static_cast<double>(rows) * avg);
  s.avg_row = avg;
  s.stddev_row = stddev;
  s.max_row = max_row;
  s.min_row = 0;
  s.ell_padding_ratio = s.nnz > 0 ? static_cast<double>(rows * max_row) / static_cast<double>(s.nnz) : 0;
  return s;
}

const MatrixStats kStencil27 = make(2'097'152, 26.6, 1.4, 27);          // stencil27_128
const MatrixStats kFem30 = make(1'000'000, 29.9, 3.0, 40);              // fem_rows30
const MatrixStats kPowerLaw = make(4'000'000, 7.9, 60.0, 150'000);      // powerlaw_4m
const MatrixStats kLongRows = make(10'000'000, 3.2, 316.0, 1'000'000);  // longrows_10m
const MatrixStats kG3Circuit = make(1'585'478, 4.8, 0.7, 6);

// With the device: small matrices (rows at most a quarter of the resident threads) go to CSR,
// whose groups widen there; so do larger ones at L = 5..8; at L <= 4 they keep ELLR-T.
TEST(SpmmFormatRule, SmallMatricesAndShortRowsGoToCsrOnTheDevice) {
  const MatrixStats andrews = make(60'000, 12.7, 3.4, 36);
  EXPECT_FALSE(spmm_prefers_csr(andrews, 8));
  EXPECT_TRUE(spmm_prefers_csr(andrews, 8, h100()));
  EXPECT_TRUE(spmm_prefers_csr(andrews, 1, h100()));
  for (const MatrixStats& s :
       {kStencil27, kFem30, make(16'777'216, 7.0, 0.2, 7), make(100'000, 12.7, 3.4, 36)}) {
    EXPECT_TRUE(spmm_prefers_csr(s, 8, h100()));
    EXPECT_TRUE(spmm_prefers_csr(s, 5, h100()));
    EXPECT_FALSE(spmm_prefers_csr(s, 4, h100()));  // not measured: ELLR-T as before
    EXPECT_FALSE(spmm_prefers_csr(s, 8));          // the statistics-only rule is unchanged
  }
  const MatrixStats fem80 = make(1'000'000, 79.2, 4.7, 81);
  EXPECT_TRUE(spmm_prefers_csr(fem80, 8, h100()));
  EXPECT_TRUE(spmm_prefers_csr(make(262'144, 128.0, 0.0, 128), 8, h100()));  // blockdense_32
  EXPECT_FALSE(spmm_prefers_csr(fem80, 4, h100()));
  EXPECT_TRUE(spmm_prefers_csr(kG3Circuit, 8, h100()));  // short rows, as before
  EXPECT_FALSE(spmm_prefers_csr(MatrixStats{}, 8, h100()));
}

TEST(SpmmFormatRule, RegularRowsGoToEllrPowerLawRowsToCsr) {
  EXPECT_FALSE(spmm_prefers_csr(kStencil27));
  EXPECT_FALSE(spmm_prefers_csr(kFem30));
  EXPECT_TRUE(spmm_prefers_csr(kG3Circuit));  // short uniform rows: CSR's lanes own columns
  EXPECT_TRUE(spmm_prefers_csr(kPowerLaw));
  EXPECT_TRUE(spmm_prefers_csr(kLongRows));
  EXPECT_FALSE(spmm_prefers_csr(MatrixStats{}));  // empty: either works, ELLR is trivial
}

TEST(SpmmFormatRule, MoreThanEightColumnsGoToCsr) {
  EXPECT_FALSE(spmm_prefers_csr(kStencil27, 8));
  EXPECT_TRUE(spmm_prefers_csr(kStencil27, 9));
  EXPECT_TRUE(spmm_prefers_csr(kFem30, 32));
  EXPECT_TRUE(spmm_prefers_csr(kPowerLaw, 1));
}

TEST(SpmmFormatRule, ThresholdsAreTheSlabSizeAndShortUniformRows) {
  // Padding just under and over 64 slots per nonzero; the spread itself does not matter.
  EXPECT_FALSE(spmm_prefers_csr(make(100'000, 10.0, 5.0, 639)));
  EXPECT_TRUE(spmm_prefers_csr(make(100'000, 10.0, 5.0, 641)));
  // A slab over 2^28 slots (3 GB in f64) goes to CSR even with little padding.
  EXPECT_TRUE(spmm_prefers_csr(make(10'000'000, 30.0, 2.0, 40)));
  EXPECT_FALSE(spmm_prefers_csr(make(5'000'000, 30.0, 2.0, 40)));
  // Short uniform rows: CSR below an average of 6.5 with at most 3x padding, ELLR above either.
  EXPECT_TRUE(spmm_prefers_csr(make(100'000, 6.0, 1.0, 12)));
  EXPECT_FALSE(spmm_prefers_csr(make(100'000, 7.0, 1.0, 12)));
  // Rows spread by more than 0.6 of the average: CSR (PGPgiantcompo, de2010); uniform ones ELLR.
  EXPECT_TRUE(spmm_prefers_csr(make(10'680, 4.6, 8.1, 205)));
  EXPECT_TRUE(spmm_prefers_csr(make(24'115, 4.8, 3.0, 45)));
  EXPECT_FALSE(spmm_prefers_csr(make(2'003, 41.9, 22.6, 95)));  // bcsstk13, cv 0.54
}

TEST(SpmmEllrRule, ColumnsPerPassCoverLUpToThirtyTwo) {
  for (auto [L, lc] : {std::pair<int64_t, int>{1, 1}, {2, 2}, {3, 4}, {8, 8}, {19, 32}, {32, 32}, {100, 32}})
    EXPECT_EQ(spmm_ellr_choice(kStencil27, L, h100()).cols_per_pass, lc) << "L=" << L;
}

TEST(SpmmEllrRule, ThreadsPerRowGrowWithTheRowLength) {
  EXPECT_EQ(spmm_ellr_choice(kG3Circuit, 8, h100()).threads_per_row, 1);
  EXPECT_EQ(spmm_ellr_choice(kStencil27, 8, h100()).threads_per_row, 2);
  EXPECT_EQ(spmm_ellr_choice(kFem30, 8, h100()).threads_per_row, 2);
  EXPECT_EQ(spmm_ellr_choice(make(1'000'000, 80.0, 5.0, 100), 8, h100()).threads_per_row, 2);
  EXPECT_EQ(spmm_ellr_choice(make(1'000'000, 200.0, 5.0, 220), 8, h100()).threads_per_row, 8);
  EXPECT_EQ(spmm_ellr_choice(make(100'000, 1000.0, 5.0, 1100), 8, h100()).threads_per_row, 32);
  // A small matrix is split further so the device fills: 20000 rows of 60.
  EXPECT_GT(spmm_ellr_choice(make(20'000, 60.0, 5.0, 70), 8, h100()).threads_per_row, 2);
}

TEST(SpmmEllrRule, BlockSizeIsAtMost256) {
  for (const auto& s : {kStencil27, kFem30, kG3Circuit, make(500, 3.0, 1.0, 5)}) {
    const int bs = spmm_ellr_choice(s, 32, h100()).block_size;
    EXPECT_LE(bs, kSpmmMaxBlock);
    EXPECT_EQ(bs % 32, 0);
  }
}

TEST(SpmmCsrRule, IrregularMatricesGetOneColumnPerLane) {
  EXPECT_EQ(spmm_csr_choice(kPowerLaw, 8, h100()).threads_per_row, 8);
  EXPECT_EQ(spmm_csr_choice(kPowerLaw, 32, h100()).threads_per_row, 32);
  const auto c100 = spmm_csr_choice(kPowerLaw, 100, h100());
  EXPECT_EQ(c100.cols_per_pass, 64);
  EXPECT_EQ(c100.threads_per_row, 32);
}

TEST(SpmmCsrRule, RegularMatricesGetFourColumnsPerLane) {
  const auto c8 = spmm_csr_choice(make(16'777'216, 7.0, 0.2, 7), 8, h100());  // stencil7_256
  EXPECT_EQ(c8.cols_per_pass, 8);
  EXPECT_EQ(c8.threads_per_row, 2);
  EXPECT_EQ(c8.cols_per_lane, 0);  // = L_c / G = 4
  const auto c32 = spmm_csr_choice(kFem30, 32, h100(), 4);
  EXPECT_EQ(c32.cols_per_pass, 32);
  EXPECT_EQ(c32.threads_per_row, 8);
  const auto c100 = spmm_csr_choice(kFem30, 100, h100());
  EXPECT_EQ(c100.cols_per_pass, 64);
  EXPECT_EQ(c100.threads_per_row, 16);
  // L = 1: one column; long rows split the nonzeros over more lanes.
  EXPECT_EQ(spmm_csr_choice(kFem30, 1, h100()).threads_per_row, 1);
  EXPECT_GT(spmm_csr_choice(make(100'000, 500.0, 50.0, 700), 1, h100()).threads_per_row, 4);
}

// Small matrices in row-split mode at L_c = 32: a warp per row with the nonzeros split 4 ways when
// even that fills at most half the device and rows average 8 or more; otherwise 16 lanes of 2
// columns when 16 lanes per row still fit; large matrices keep 8 lanes of 4 columns.
TEST(SpmmCsrRule, SmallMatricesSplitRowsAtThirtyTwoColumns) {
  const auto bcsstk13 = spmm_csr_choice(make(2'003, 41.9, 22.8, 95), 32, h100());
  EXPECT_EQ(bcsstk13.tile_items, 0);
  EXPECT_EQ(bcsstk13.threads_per_row, 32);
  EXPECT_EQ(bcsstk13.cols_per_lane, 4);
  const auto delaunay = spmm_csr_choice(make(4'096, 6.0, 1.4, 14), 32, h100());
  EXPECT_EQ(delaunay.threads_per_row, 16);
  EXPECT_EQ(delaunay.cols_per_lane, 0);
  const auto ex5 = spmm_csr_choice(make(6'545, 45.2, 1.7, 48), 32, h100());  // 32 lanes: 209k threads
  EXPECT_EQ(ex5.threads_per_row, 16);
  EXPECT_EQ(ex5.cols_per_lane, 0);
  EXPECT_EQ(spmm_csr_choice(make(65'536, 6.0, 1.4, 17), 32, h100()).threads_per_row, 8);
  // Other widths keep the rule before (measured at 32 only).
  EXPECT_EQ(spmm_csr_choice(make(2'003, 41.9, 22.8, 95), 64, h100()).cols_per_lane, 0);
}

// Large matrices with regular rows at L_c = 32: one 16-byte load of B per lane (2 doubles or 4
// floats), L_c / V lanes, blocks of 128, whatever the row length and in either mode; irregular
// ones and other widths keep the rules before.
TEST(SpmmCsrRule, LargeRegularMatricesLoadSixteenBytesPerLaneAtThirtyTwoColumns) {
  const MatrixStats fem80 = make(1'000'000, 79.2, 4.7, 81);
  const MatrixStats dense4096 = make(4'096, 4096.0, 0.0, 4096);  // 16.8M nonzeros: large
  for (const MatrixStats& s : {kStencil27, kFem30, fem80, dense4096}) {
    const auto f64 = spmm_csr_choice(s, 32, h100(), 8);
    EXPECT_EQ(f64.cols_per_lane, 2);
    EXPECT_EQ(f64.threads_per_row, 16);
    EXPECT_EQ(f64.block_size, 128);
    const auto f32 = spmm_csr_choice(s, 32, h100(), 4);
    EXPECT_EQ(f32.cols_per_lane, 4);
    EXPECT_EQ(f32.threads_per_row, 8);
    EXPECT_EQ(f32.tile_items, f64.tile_items);  // the mode does not depend on the precision
  }
  EXPECT_EQ(spmm_csr_choice(fem80, 32, h100(), 8).tile_items, 0);      // rows of 81: row-split
  EXPECT_GT(spmm_csr_choice(dense4096, 32, h100(), 8).tile_items, 0);  // rows of 4096: tiles
  EXPECT_EQ(spmm_csr_choice(kPowerLaw, 32, h100(), 8).cols_per_lane, 0);
  EXPECT_EQ(spmm_csr_choice(kPowerLaw, 32, h100(), 8).threads_per_row, 32);
  EXPECT_EQ(spmm_csr_choice(fem80, 64, h100(), 8).cols_per_lane, 0);
  EXPECT_EQ(spmm_csr_choice(fem80, 8, h100(), 8).cols_per_lane, 4);  // the L_c = 8 step
}

// Large matrices with regular rows of 16 or more nonzeros at L_c = 8: the row split over two lanes
// of four columns each (four in f32 for rows of 32 or more); not for shorter rows, other widths,
// irregular or small matrices.
TEST(SpmmCsrRule, LargeRegularMatricesSplitRowsAtEightColumns) {
  const MatrixStats banded = make(4'000'000, 20.2, 4.0, 32);
  for (const MatrixStats& s : {kStencil27, kFem30, banded}) {
    for (int bytes : {4, 8}) {
      const auto c = spmm_csr_choice(s, 8, h100(), bytes);
      EXPECT_EQ(c.cols_per_pass, 8);
      EXPECT_EQ(c.threads_per_row, 4);
      EXPECT_EQ(c.cols_per_lane, 4);
      EXPECT_EQ(c.tile_items, 0);
    }
    EXPECT_EQ(spmm_csr_choice(s, 4, h100()).cols_per_lane, 0);   // L_c = 4: unchanged
    EXPECT_EQ(spmm_csr_choice(s, 16, h100()).cols_per_lane, 0);  // L_c = 16: unchanged
  }
  EXPECT_EQ(spmm_csr_choice(make(16'777'216, 7.0, 0.2, 7), 8, h100()).threads_per_row, 2);
  for (const MatrixStats& s : {make(1'000'000, 79.2, 4.7, 81), make(262'144, 128.0, 0.0, 128)}) {
    const auto f64 = spmm_csr_choice(s, 8, h100(), 8);
    EXPECT_EQ(f64.threads_per_row, 4);
    EXPECT_EQ(f64.cols_per_lane, 4);
    const auto f32 = spmm_csr_choice(s, 8, h100(), 4);
    EXPECT_EQ(f32.threads_per_row, 8);
    EXPECT_EQ(f32.cols_per_lane, 4);
  }
  EXPECT_EQ(spmm_csr_choice(make(20'000, 20.0, 4.0, 32), 8, h100()).cols_per_lane, 0);  // small
  EXPECT_EQ(spmm_csr_choice(kPowerLaw, 8, h100()).cols_per_lane, 0);
}

// memplus-like: 17,758 rows of 7.1 on average, one of 574; B is 4.5 MB at L = 32 (in the L2).
const MatrixStats kMemplus = make(17'758, 7.1, 20.0, 574);

TEST(SpmmCsrRule, SmallMatricesWidenTheGroupAtEightColumns) {
  EXPECT_EQ(spmm_csr_choice(kMemplus, 8, h100()).threads_per_row, 32);
  // At 32 columns the group stays at four columns per lane: B fits in the L2, so not one per lane
  // although the rows are irregular.
  EXPECT_EQ(spmm_csr_choice(kMemplus, 32, h100()).threads_per_row, 8);
  // Large matrices keep the base rule.
  EXPECT_EQ(spmm_csr_choice(kG3Circuit, 8, h100()).threads_per_row, 2);
}

// Regular rows widen only while the widened grid fits the resident threads, and the census graphs
// (rows of 5, at most 45-74: irregular by padding alone) count as regular; a small matrix's rows of
// up to five long-row chunks stay with their group (g-probe-5d0c6ed.txt).
TEST(SpmmCsrRule, SmallMatricesWidenWhileTheGridFitsAndKeepShortLongRows) {
  const auto ct2010 = spmm_csr_choice(make(67'578, 5.0, 2.9, 53), 8, h100());
  EXPECT_EQ(ct2010.threads_per_row, 4);
  EXPECT_EQ(ct2010.long_row_nnz, kSpmmNoLongRows);
  const auto nh2010 = spmm_csr_choice(make(48'837, 4.8, 3.3, 74), 8, h100());
  EXPECT_EQ(nh2010.threads_per_row, 4);
  EXPECT_EQ(nh2010.long_row_nnz, kSpmmNoLongRows);  // 74 nonzeros: no second pass
  EXPECT_EQ(spmm_csr_choice(make(65'536, 6.0, 1.4, 17), 8, h100()).threads_per_row, 4);   // delaunay_n16
  EXPECT_EQ(spmm_csr_choice(make(6'545, 45.2, 1.7, 48), 8, h100()).threads_per_row, 32);  // EX5: 209k threads
  EXPECT_EQ(spmm_csr_choice(make(2'003, 41.9, 22.8, 95), 8, h100()).threads_per_row, 32);  // bcsstk13
  // Rows past kWideningLongRow keep the irregular widening and, far past the threshold, the pass.
  const auto pgp = spmm_csr_choice(make(10'680, 4.6, 7.0, 205), 8, h100());
  EXPECT_EQ(pgp.threads_per_row, 32);
  EXPECT_EQ(pgp.long_row_nnz, kSpmmNoLongRows);
  EXPECT_NE(spmm_csr_choice(kMemplus, 8, h100()).long_row_nnz, kSpmmNoLongRows);
  // Large matrices keep the long-row threshold as it was.
  EXPECT_NE(spmm_csr_choice(kPowerLaw, 8, h100()).long_row_nnz, kSpmmNoLongRows);
}

// Maragal_6-like: a small matrix with rows spread by 8 averages.
const MatrixStats kMaragal = make(21'255, 25.3, 203.0, 5941);

TEST(SpmmCsrRule, BalancedTilesForLongRowsInLargeMatricesOrModeratelySpreadSmallOnesAboveEightColumns) {
  EXPECT_GT(spmm_csr_choice(kPowerLaw, 8, h100()).tile_items, 0);
  EXPECT_GT(spmm_csr_choice(kLongRows, 32, h100()).tile_items, 0);
  EXPECT_EQ(spmm_csr_choice(kMemplus, 8, h100()).tile_items, 0);   // padding 81x, spread 2.8: row-split
  EXPECT_GT(spmm_csr_choice(kMemplus, 32, h100()).tile_items, 0);  // ...and tiles above 8 columns
  EXPECT_EQ(spmm_csr_choice(kMaragal, 8, h100()).tile_items, 0);   // spread 8: row-split
  EXPECT_EQ(spmm_csr_choice(kMaragal, 32, h100()).tile_items, 0);
  EXPECT_EQ(spmm_csr_choice(make(24'115, 4.8, 3.0, 45), 8, h100()).tile_items, 0);  // de2010: 9x
  EXPECT_EQ(spmm_csr_choice(kG3Circuit, 8, h100()).tile_items, 0);
  EXPECT_EQ(spmm_csr_choice(kStencil27, 32, h100()).tile_items, 0);
  const int k = spmm_tile_items(kPowerLaw, h100());
  EXPECT_GE(k, spmm_table().min_tile_items);
  EXPECT_LE(k, spmm_table().max_tile_items);
  EXPECT_EQ(k & (k - 1), 0);
}

TEST(SpmmCsrRule, LongRowThresholdIsBounded) {
  for (const auto& s : {kPowerLaw, kLongRows, make(1000, 3.0, 1.0, 5)}) {
    const auto c = spmm_csr_choice(s, 8, h100());
    EXPECT_GE(c.long_row_nnz, spmm_table().min_long_row_nnz);
    if (s.max_row > spmm_table().max_long_row_nnz) {
      EXPECT_LE(c.long_row_nnz, spmm_table().max_long_row_nnz);
    }
    // No row above the threshold: the long-row path is switched off.
    if (c.long_row_nnz != kSpmmNoLongRows) {
      EXPECT_LT(c.long_row_nnz, s.max_row);
    }
    EXPECT_LE(c.cols_per_pass / c.threads_per_row, 8);
  }
}

}  // namespace
}  // namespace spx::test
