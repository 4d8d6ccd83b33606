// The ELLR-T configuration rule (src/plan/ellr_rule.cpp) on hand-made matrix statistics and device
// properties: the host-only rule runs in every build, with or without CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cpu/h100_props.hpp"
#include "plan/rules_detail.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"

namespace spx::test {
namespace {

using cuda::DeviceProps;
using cuda::EllrTParams;
using plan::detail::ellr_t_choice;

int threads_for_average_row(double avg) {
  return plan::detail::step_for_average_row(plan::default_rule_tables().ellr.threads_by_avg_row, avg);
}

DeviceProps h100() { return h100_props(); }

MatrixStats stats_of(int64_t rows, int64_t nnz, int64_t max_row) {
  MatrixStats s;
  s.rows = rows;
  s.cols = rows;
  s.nnz = nnz;
  s.max_row = max_row;
  s.avg_row = rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
  return s;
}

void expect_choice(const MatrixStats& s, const DeviceProps& d, int threads, int block,
                   const std::string& what) {
  const EllrTParams c = ellr_t_choice(s, d);
  EXPECT_EQ(c.threads_per_row, threads) << what;
  EXPECT_EQ(c.block_size, block) << what;
}

TEST(EllrTRule, ThreadsGrowWithTheAverageRowLength) {
  int previous = 1;
  for (double avg : {0.0, 1.0, 4.9, 7.99, 8.0, 15.0, 16.0, 31.0, 32.0, 63.0, 64.0, 127.0, 128.0, 1e6}) {
    const int t = threads_for_average_row(avg);
    EXPECT_GE(t, previous) << "avg " << avg;
    EXPECT_TRUE(t == 1 || t == 2 || t == 4 || t == 8 || t == 16 || t == 32) << "avg " << avg;
    previous = t;
  }
  EXPECT_EQ(threads_for_average_row(4.83), 1);
  EXPECT_EQ(threads_for_average_row(14.32), 2);
  EXPECT_EQ(threads_for_average_row(26.58), 4);
  EXPECT_EQ(threads_for_average_row(45.18), 8);
  EXPECT_EQ(threads_for_average_row(100.0), 16);
  EXPECT_EQ(threads_for_average_row(500.0), 32);
}

TEST(EllrTRule, LargeRegularMatricesKeepTheLengthChoice) {
  const DeviceProps d = h100();
  // G3_circuit: 1.59M rows of 2..6 → one thread per row, blocks of 256.
  expect_choice(stats_of(1585478, 7660826, 6), d, 1, 256, "G3_circuit");
  // 27-point stencil on 128^3: 2.1M rows of 27 → 4 threads per row.
  expect_choice(stats_of(2097152, 55742968, 27), d, 4, 256, "stencil27 128^3");
}

TEST(EllrTRule, SmallMatricesRaiseThreadsToFillTheDevice) {
  const DeviceProps d = h100();
  // cage11: 39082 rows × 2 threads = 78k < 270k resident; raised to 8 (8 × 2 <= 14.3 stops at 8).
  expect_choice(stats_of(39082, 559722, 31), d, 8, 256, "cage11");
  // EX5: 6545 rows of 45 → 8 by length; 16 and 32 still give each thread a slot of an average row.
  expect_choice(stats_of(6545, 295680, 48), d, 32, 256, "EX5");
  // LFAT5: 14 rows of 3.3 → 2 threads (4 > 3.3); 28 threads form one block of the smallest size
  // that still allows full occupancy (2048 / 32 = 64).
  expect_choice(stats_of(14, 46, 5), d, 2, 64, "LFAT5");
  // A row count that fills the device already: the length choice stays (2 for rows of 10).
  expect_choice(stats_of(300000, 3000000, 12), d, 2, 256, "300k rows of 10");
}

TEST(EllrTRule, LongRowsRaiseThreadsUpTo32) {
  const DeviceProps d = h100();
  // Maragal_6: rows of 25 and one of 5941: 16 by length and size, 32 for the long row.
  expect_choice(stats_of(21255, 537694, 5941), d, 32, 256, "Maragal_6");
  // 10^6 rows of 5 and one of 10^5: the stream takes ~20 µs = ~200 serial slots, so 32.
  expect_choice(stats_of(1000000, 5000000, 100000), d, 32, 256, "one row of 10^5");
  // A moderately long row within the budget stays at the length choice.
  expect_choice(stats_of(1000000, 5000000, 150), d, 1, 256, "max row 150");
}

TEST(EllrTRule, SerialBudgetFollowsTheStreamTime) {
  const DeviceProps d = h100();
  EXPECT_EQ(plan::detail::serial_slot_budget(stats_of(10, 40, 4), d),
            plan::default_rule_tables().launch.min_serial_slots);
  // 55.7M nonzeros × 12 bytes at 0.9 × 3352 GB/s ≈ 222 µs ≈ 2217 slots of 100 ns.
  const int64_t budget = plan::detail::serial_slot_budget(stats_of(2097152, 55742968, 27), d);
  EXPECT_GT(budget, 2100);
  EXPECT_LT(budget, 2300);
  // Without bandwidth figures the measured H100 copy bandwidth stands in.
  DeviceProps bare = d;
  bare.mem_clock_khz = 0;
  EXPECT_GT(plan::detail::serial_slot_budget(stats_of(2097152, 55742968, 27), bare), 2100);
}

TEST(EllrTRule, BlockSizeSpreadsSmallGridsAndKeepsOccupancy) {
  const DeviceProps d = h100();
  EXPECT_EQ(plan::detail::smallest_full_occupancy_block(d), 64);
  EXPECT_EQ(plan::detail::spread_block(1 << 24, d), 256);
  EXPECT_EQ(plan::detail::spread_block(2 * 132 * 256, d), 256);
  EXPECT_EQ(plan::detail::spread_block(2 * 132 * 256 - 1, d), 128);
  EXPECT_EQ(plan::detail::spread_block(2 * 132 * 128, d), 128);
  EXPECT_EQ(plan::detail::spread_block(1000, d), 64);
  EXPECT_EQ(plan::detail::spread_block(0, d), 64);
  // Fermi (the paper's GPUs): 1536 threads and 8 blocks per SM → blocks under 192 lose occupancy.
  DeviceProps fermi = d;
  fermi.sm_count = 14;
  fermi.max_threads_per_sm = 1536;
  fermi.max_blocks_per_sm = 8;
  EXPECT_EQ(plan::detail::smallest_full_occupancy_block(fermi), 192);
  EXPECT_EQ(plan::detail::spread_block(1000, fermi), 192);
  EXPECT_EQ(plan::detail::spread_block(2 * 14 * 128, fermi), 192);
  EXPECT_EQ(plan::detail::spread_block(1 << 20, fermi), 256);
}

TEST(EllrTRule, EmptyMatricesAndBlankPropsGiveValidConfigurations) {
  const EllrTParams empty = ellr_t_choice(stats_of(0, 0, 0), h100());
  EXPECT_EQ(empty.threads_per_row, 1);
  EXPECT_EQ(empty.block_size, 64);
  const EllrTParams blank = ellr_t_choice(stats_of(2097152, 55742968, 27), DeviceProps{});
  EXPECT_EQ(blank.threads_per_row, 4);
  EXPECT_EQ(blank.block_size, 256);
  // Every choice is a valid kernel configuration.
  for (int64_t rows : {int64_t{1}, int64_t{100}, int64_t{40000}, int64_t{3000000}})
    for (int64_t max_row : {int64_t{1}, int64_t{30}, int64_t{5000}, int64_t{1000000}}) {
      const auto c = ellr_t_choice(stats_of(rows, rows * std::min<int64_t>(max_row, 20), max_row), h100());
      EXPECT_TRUE(c.threads_per_row >= 1 && c.threads_per_row <= 32 &&
                  (c.threads_per_row & (c.threads_per_row - 1)) == 0);
      EXPECT_TRUE(c.block_size >= 32 && c.block_size <= 1024 && c.block_size % 32 == 0);
    }
}

TEST(EllrTRule, PublicRuleAndChecks) {
  const auto s = stats_of(39082, 559722, 31);
  const cuda::EllrTParams c = plan::ellr_t_rule(s, h100());
  EXPECT_EQ(c.threads_per_row, ellr_t_choice(s, h100()).threads_per_row);
  EXPECT_EQ(c.block_size, ellr_t_choice(s, h100()).block_size);
  EXPECT_EQ(plan::spread_block_size(1000, h100()), 64);
  EXPECT_NO_THROW(cuda::validate(c));
  EXPECT_THROW(cuda::validate(cuda::EllrTParams{3, 256}), Error);
  EXPECT_THROW(cuda::validate(cuda::EllrTParams{64, 256}), Error);
  EXPECT_THROW(cuda::validate(cuda::EllrTParams{4, 100}), Error);
  EXPECT_THROW(cuda::validate(cuda::EllrTParams{4, 2048}), Error);
  EXPECT_NO_THROW(cuda::validate(cuda::CooParams{}));
  EXPECT_THROW(cuda::validate(cuda::CooParams{true, 48, 256}), Error);
  EXPECT_THROW(cuda::validate(cuda::CooParams{true, 256, 1024}), Error);
  EXPECT_THROW(cuda::validate(cuda::CooParams{false, 0, 256}), Error);
}

// SELL-C16's lanes per row: one where rows fill the GPU (132 SMs x 2048 threads = 270336 resident);
// doubled while rows x lanes stay below that and each lane keeps 16 slots of the padded row; at most 8.
TEST(SellRule, LanesSplitFewLongRowsOnly) {
  const DeviceProps d = h100();
  EXPECT_EQ(plan::sell_c16_lanes(1'000'000, 27'000'000, d), 1);  // a large stencil: unchanged
  EXPECT_EQ(plan::sell_c16_lanes(82'944, 82'944 * 150, d), 4);   // 6-unknown FEM, 24^3 nodes
  EXPECT_EQ(plan::sell_c16_lanes(82'944, 82'944 * 20, d), 2);    // rows too short for 4 lanes
  EXPECT_EQ(plan::sell_c16_lanes(1000, 1000 * 10, d), 1);        // too short to split
  EXPECT_EQ(plan::sell_c16_lanes(1000, 1000 * 4000, d), 8);      // capped
  EXPECT_EQ(plan::sell_c16_lanes(0, 0, d), 1);
}

}  // namespace
}  // namespace spx::test
