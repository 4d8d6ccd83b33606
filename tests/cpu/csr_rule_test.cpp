// The CSR SpMV fixed rule, the long-row threshold and the long-row split on hand-made inputs, and a
// CPU emulation of how the kernel's grid covers the rows (host code: no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cpu/cpu_kernel_bounds.hpp"
#include "cuda/spmv/csr_param_launch.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/stats.hpp"
#include "test_support.hpp"

namespace {

using spx::MatrixStats;
using spx::cuda::CsrSpmvParams;
using spx::cuda::DeviceProps;

DeviceProps h100() {
  DeviceProps p;
  p.name = "H100 (hand-made)";
  p.sm_count = 132;
  p.max_threads_per_sm = 2048;
  p.max_blocks_per_sm = 32;
  p.max_threads_per_block = 1024;
  p.l2_bytes = 50u << 20;
  return p;
}

DeviceProps small_gpu() {
  DeviceProps p;
  p.sm_count = 2;
  p.max_threads_per_sm = 1024;
  p.max_blocks_per_sm = 16;
  p.max_threads_per_block = 512;
  return p;
}

MatrixStats stats_of(int64_t rows, double avg_row) {
  MatrixStats s;
  s.rows = rows;
  s.cols = rows;
  s.avg_row = avg_row;
  s.nnz = static_cast<int64_t>(avg_row * static_cast<double>(rows));
  return s;
}

TEST(CsrRule, ParamsAreAlwaysValid) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const DeviceProps& props : {h100(), small_gpu(), DeviceProps{}}) {
    for (int64_t rows :
         {int64_t{0}, int64_t{1}, int64_t{31}, int64_t{1000}, int64_t{2'097'152}, int64_t{0x7fffffff}}) {
      for (double avg : {0.0, 0.5, 1.0, 3.99, 4.0, 27.0, 255.9, 256.0, 1e6, -1.0, nan}) {
        const CsrSpmvParams p = spx::plan::csr_fixed_rule(stats_of(rows, avg), props);
        EXPECT_EQ(spx::cuda::invalid_reason(p), "") << rows << " rows, avg " << avg;
        EXPECT_LE(p.block_size, props.max_threads_per_block > 0 ? props.max_threads_per_block : 1024);
      }
    }
  }
}

TEST(CsrRule, CoopFollowsTheFittedTableAndIsMonotoneInAverageRowLength) {
  // The H100 refit of the paper's rule (src/tune/csr_rule.cpp): coop steps at average row
  // lengths 1, 4, 8, 64 and 128.
  struct Case {
    double avg;
    int coop;
  };
  for (const Case c : {Case{0.0, 1}, Case{0.9, 1}, Case{1.0, 2}, Case{3.0, 2}, Case{4.83, 4}, Case{7.9, 4},
                       Case{8.0, 8}, Case{14.32, 8}, Case{27.0, 8}, Case{45.2, 8}, Case{80.0, 16},
                       Case{127.0, 16}, Case{128.0, 32}, Case{5941.0, 32}}) {
    EXPECT_EQ(spx::plan::csr_fixed_rule(stats_of(100000, c.avg), h100()).coop, c.coop) << "avg " << c.avg;
  }
  int previous = 1;
  for (double avg = 0; avg < 2000; avg = avg * 1.05 + 0.01) {
    const int coop = spx::plan::csr_fixed_rule(stats_of(50000, avg), h100()).coop;
    EXPECT_GE(coop, previous) << "avg " << avg;
    previous = coop;
  }
}

TEST(CsrRule, RepeatGrowsWithRowsButKeepsEightWaves) {
  const DeviceProps props = h100();
  int previous = 1;
  for (int64_t rows = 1; rows < (int64_t{1} << 31); rows = rows * 3 / 2 + 1) {
    for (double avg : {2.0, 27.0, 300.0}) {
      const CsrSpmvParams p = spx::plan::csr_fixed_rule(stats_of(rows, avg), props);
      const int64_t blocks = spx::cuda::csr_param_main_blocks(rows, p);
      const int64_t resident_blocks = spx::plan::resident_threads(props, p.block_size) / p.block_size;
      if (p.repeat > 1) {
        EXPECT_GE(blocks, 8 * resident_blocks - 1) << rows << " rows, avg " << avg << ": " << to_string(p);
      }
      if (avg == 27.0) {
        EXPECT_GE(p.repeat, previous) << rows << " rows";
        previous = p.repeat;
      }
    }
  }
  EXPECT_EQ(previous, 16);  // the largest step is reached by 2^31 rows
}

TEST(CsrRule, TinyAndHugeMatrices) {
  // Every shared matrix but G3_circuit is far below one wave of row batches: repeat 1.
  EXPECT_EQ(spx::plan::csr_fixed_rule(stats_of(14, 3.3), h100()), (CsrSpmvParams{256, 2, 1}));
  EXPECT_EQ(spx::plan::csr_fixed_rule(stats_of(39082, 14.3), h100()), (CsrSpmvParams{256, 8, 1}));
  // stencil27 128^3: 2.1M rows of ~26.6, coop 8: 62 rows per resident group, below the fitted
  // threshold of 128 -> repeat 1. stencil7 256^3: 16.8M rows of 7, coop 4 leaves 248 rows per
  // group: large and short-row, so coop is halved to 2 (124 rows per group) -> repeat 1.
  EXPECT_EQ(spx::plan::csr_fixed_rule(stats_of(2'097'152, 26.6), h100()), (CsrSpmvParams{256, 8, 1}));
  EXPECT_EQ(spx::plan::csr_fixed_rule(stats_of(16'777'216, 7.0), h100()), (CsrSpmvParams{256, 2, 1}));
  EXPECT_EQ(spx::plan::csr_fixed_rule(stats_of(0x7fffffff, 1.0), h100()).repeat, 16);
  EXPECT_EQ(spx::plan::csr_fixed_rule(MatrixStats{}, DeviceProps{}), (CsrSpmvParams{256, 1, 1}));
}

TEST(CsrRule, TableIsDataAndBadTablesAreErrors) {
  spx::plan::CsrRuleTable t = spx::plan::default_csr_rule_table();
  t.block_size = 128;
  t.coop_steps = {{10.0, 1}, {std::numeric_limits<double>::infinity(), 16}};
  EXPECT_EQ(spx::plan::csr_fixed_rule(stats_of(1000, 9.0), h100(), t), (CsrSpmvParams{128, 1, 1}));
  EXPECT_EQ(spx::plan::csr_fixed_rule(stats_of(1000, 11.0), h100(), t), (CsrSpmvParams{128, 16, 1}));
  t.coop_steps = {{std::numeric_limits<double>::infinity(), 3}};
  spx::test::expect_error([&] { spx::plan::csr_fixed_rule(stats_of(10, 1.0), h100(), t); }, "coop 3");
  t.coop_steps.clear();
  spx::test::expect_error([&] { spx::plan::csr_fixed_rule(stats_of(10, 1.0), h100(), t); }, "coop step");
}

TEST(CsrRule, InvalidParamsSayWhy) {
  EXPECT_EQ(spx::cuda::invalid_reason(CsrSpmvParams{256, 4, 1}), "");
  EXPECT_EQ(spx::cuda::invalid_reason(CsrSpmvParams{64, 32, 1024}), "");
  EXPECT_NE(spx::cuda::invalid_reason(CsrSpmvParams{256, 3, 1}).find("coop 3 is not a power of two"),
            std::string::npos);
  EXPECT_NE(spx::cuda::invalid_reason(CsrSpmvParams{256, 64, 1}).find("coop 64"), std::string::npos);
  EXPECT_NE(spx::cuda::invalid_reason(CsrSpmvParams{256, 0, 1}).find("coop 0"), std::string::npos);
  EXPECT_NE(spx::cuda::invalid_reason(CsrSpmvParams{32, 4, 1}).find("block_size 32"), std::string::npos);
  EXPECT_NE(spx::cuda::invalid_reason(CsrSpmvParams{100, 4, 1}).find("block_size 100"), std::string::npos);
  EXPECT_NE(spx::cuda::invalid_reason(CsrSpmvParams{2048, 4, 1}).find("block_size 2048"), std::string::npos);
  EXPECT_NE(spx::cuda::invalid_reason(CsrSpmvParams{256, 4, 0}).find("repeat 0"), std::string::npos);
  spx::test::expect_error(
      [] {
        spx::cuda::validate(CsrSpmvParams{256, 5, 1}, "spmv_csr");
      },
      "spmv_csr: coop 5");
  EXPECT_EQ(spx::cuda::to_string(CsrSpmvParams{512, 8, 2}), "block_size=512 coop=8 repeat=2");
}

TEST(CsrLongRows, ThresholdFollowsCoopAndTheFairShare) {
  const DeviceProps props = h100();
  const int64_t resident = 132 * 2048;
  for (int coop : {1, 2, 4, 8, 16, 32}) {
    const CsrSpmvParams p{256, coop, 1};
    // Small matrices: the 64-iteration floor.
    EXPECT_EQ(spx::plan::csr_long_row_threshold(537'694, p, props), 64 * coop);
    EXPECT_EQ(spx::plan::csr_long_row_threshold(0, p, props), 64 * coop);
    // Large ones: a group's fair share of all nonzeros.
    EXPECT_EQ(spx::plan::csr_long_row_threshold(resident * 200, p, props), 200 * coop);
  }
  int64_t previous = 0;
  for (int64_t nnz = 1; nnz < (int64_t{1} << 40); nnz *= 3) {
    const int64_t t = spx::plan::csr_long_row_threshold(nnz, {256, 4, 1}, props);
    EXPECT_GE(t, previous);
    previous = t;
  }
  // No props: H100 figures.
  EXPECT_EQ(spx::plan::csr_long_row_threshold(resident * 100, {256, 1, 1}, DeviceProps{}), 100);
}

TEST(CsrLongRows, SplitCutsRowsLongerThanTheThresholdIntoChunks) {
  // Row lengths 0, 5, 600, 3, 1025, 512, 513.
  const std::vector<int32_t> row_ptr = {0, 0, 5, 605, 608, 1633, 2145, 2658};
  const auto split = spx::cuda::split_long_rows(row_ptr, 512);
  EXPECT_EQ(split.threshold, 512);
  EXPECT_EQ(split.rows, (std::vector<int32_t>{2, 4, 6}));
  EXPECT_EQ(split.chunk_begin, (std::vector<int32_t>{0, 2, 5, 7}));
  EXPECT_EQ(split.chunk_owner, (std::vector<int32_t>{0, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(split.nnz, 600 + 1025 + 513);
  EXPECT_EQ(split.chunks(), 7);

  const auto all = spx::cuda::split_long_rows(row_ptr, 0);
  EXPECT_EQ(all.rows, (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));  // every nonempty row
  EXPECT_EQ(all.nnz, 2658);
  const auto none = spx::cuda::split_long_rows(row_ptr, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(none.rows.empty());
  EXPECT_EQ(none.chunk_begin, (std::vector<int32_t>{0}));
  EXPECT_TRUE(spx::cuda::split_long_rows(std::vector<int32_t>{}, 5).rows.empty());
  spx::test::expect_error([&] { spx::cuda::split_long_rows(row_ptr, -1); }, "negative");
}

// Emulates the kernel's index math on the CPU: the main blocks' (block, batch, group) mapping and
// the long-row warps' (owner, chunk) mapping must write every row exactly once and read every
// nonzero of a long row exactly once.
void expect_rows_covered_once(const std::vector<int32_t>& row_ptr, const CsrSpmvParams& p,
                              int64_t threshold) {
  const int64_t rows = static_cast<int64_t>(row_ptr.size()) - 1;
  const auto split = spx::cuda::split_long_rows(row_ptr, threshold);
  std::vector<int> writes(static_cast<std::size_t>(rows), 0);
  std::vector<int64_t> long_entries(static_cast<std::size_t>(rows), 0);
  const int groups = p.block_size / p.coop;
  const int64_t blocks = spx::cuda::csr_param_main_blocks(rows, p);
  for (int64_t block = 0; block < blocks; ++block) {
    for (int r = 0; r < p.repeat; ++r) {
      for (int g = 0; g < groups; ++g) {
        const int64_t row = (block * p.repeat + r) * groups + g;
        if (row >= rows) continue;
        if (row_ptr[row + 1] - row_ptr[row] <= threshold) ++writes[static_cast<std::size_t>(row)];
      }
    }
  }
  for (int64_t w = 0; w < split.chunks(); ++w) {
    const int32_t k = split.chunk_owner[static_cast<std::size_t>(w)];
    const int32_t first = split.chunk_begin[static_cast<std::size_t>(k)];
    const int32_t row = split.rows[static_cast<std::size_t>(k)];
    const int64_t begin = row_ptr[row] + (w - first) * spx::cuda::kCsrLongRowChunk;
    const int64_t len = std::min<int64_t>(spx::cuda::kCsrLongRowChunk, row_ptr[row + 1] - begin);
    ASSERT_GT(len, 0) << "chunk " << w << " of row " << row << " is empty";
    long_entries[static_cast<std::size_t>(row)] += len;
    if (w - first == split.chunk_begin[static_cast<std::size_t>(k) + 1] - first - 1)
      ++writes[static_cast<std::size_t>(row)];  // the last chunk to arrive writes y (one of them)
  }
  for (int64_t r = 0; r < rows; ++r) {
    ASSERT_EQ(writes[static_cast<std::size_t>(r)], 1) << "row " << r << " with " << to_string(p);
    const int64_t len = row_ptr[r + 1] - row_ptr[r];
    ASSERT_EQ(long_entries[static_cast<std::size_t>(r)], len > threshold ? len : 0) << "row " << r;
  }
}

TEST(CsrLongRows, KernelIndexMathCoversEveryRowOnce) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  auto A = spx::test::random_csr<float, int32_t>(3001, 4000, 0, 40, seed, 0.1);
  // A few long rows: 1500, 2048 and 513 entries.
  std::vector<int32_t> row_ptr = A.row_ptr;
  for (std::size_t r = 1; r < row_ptr.size(); ++r) {
    const int32_t extra = r == 7 ? 1500 : r == 1000 ? 2048 : r == 3001 ? 513 : 0;
    for (std::size_t s = r; s < row_ptr.size(); ++s) row_ptr[s] += extra;
  }
  for (const CsrSpmvParams& p :
       {CsrSpmvParams{64, 1, 1}, CsrSpmvParams{256, 4, 3}, CsrSpmvParams{1024, 32, 16},
        CsrSpmvParams{96, 2, 5}, CsrSpmvParams{512, 16, 2}, CsrSpmvParams{128, 8, 7}}) {
    for (int64_t threshold : {int64_t{0}, int64_t{20}, int64_t{512}, std::numeric_limits<int64_t>::max()})
      expect_rows_covered_once(row_ptr, p, threshold);
  }
}

TEST(CsrLongRows, RowLengthStatsMatchStats) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto A = spx::test::random_csr<double, int32_t>(777, 500, 0, 30, seed, 0.2);
  const MatrixStats want = spx::stats(A);
  const MatrixStats got = spx::cuda::csr_row_length_stats(A.rows, A.cols, A.row_ptr);
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.nnz, want.nnz);
  EXPECT_EQ(got.min_row, want.min_row);
  EXPECT_EQ(got.max_row, want.max_row);
  EXPECT_EQ(got.empty_rows, want.empty_rows);
  EXPECT_DOUBLE_EQ(got.avg_row, want.avg_row);
  EXPECT_NEAR(got.stddev_row, want.stddev_row, 1e-9 * (1 + want.stddev_row));
  EXPECT_EQ(spx::cuda::csr_row_length_stats(0, 5, std::vector<int32_t>{0}).nnz, 0);
  spx::test::expect_error(
      [] {
        spx::cuda::csr_row_length_stats(3, 5, std::vector<int32_t>{0, 1});
      },
      "row_ptr has 2 entries");
}

}  // namespace

// The 64-bit overloads (WideDeviceCsr's host row pointer): the same answers on offsets shifted past
// 2^31, and a row of more than 2^31 - 1 nonzeros measured and cut without overflow.
TEST(CsrLongRows, SixtyFourBitOffsetsPast2To31) {
  const std::vector<int32_t> row_ptr = {0, 0, 5, 605, 608, 1633, 2145, 2658};
  constexpr int64_t kBase = (int64_t{1} << 31) + 7;
  std::vector<int64_t> shifted(row_ptr.begin(), row_ptr.end());
  for (int64_t& o : shifted) o += kBase;
  for (int64_t threshold : {int64_t{0}, int64_t{512}, std::numeric_limits<int64_t>::max()}) {
    const auto want = spx::cuda::split_long_rows(row_ptr, threshold);
    const auto got = spx::cuda::split_long_rows(shifted, threshold);
    EXPECT_EQ(got.rows, want.rows) << threshold;
    EXPECT_EQ(got.chunk_begin, want.chunk_begin) << threshold;
    EXPECT_EQ(got.chunk_owner, want.chunk_owner) << threshold;
    EXPECT_EQ(got.nnz, want.nnz) << threshold;
  }
  const MatrixStats want = spx::cuda::csr_row_length_stats(7, 9, row_ptr);
  const MatrixStats got = spx::cuda::csr_row_length_stats(7, 9, shifted);
  EXPECT_EQ(got.nnz, want.nnz);
  EXPECT_EQ(got.min_row, want.min_row);
  EXPECT_EQ(got.max_row, want.max_row);
  EXPECT_EQ(got.empty_rows, want.empty_rows);
  EXPECT_DOUBLE_EQ(got.avg_row, want.avg_row);
  EXPECT_DOUBLE_EQ(got.stddev_row, want.stddev_row);

  // Row 1 holds 3e9 nonzeros (past int32), row 2 is empty, row 3 has 600.
  constexpr int64_t kHuge = 3'000'000'000;
  const std::vector<int64_t> huge = {0, 10, 10 + kHuge, 10 + kHuge, 610 + kHuge};
  const auto split = spx::cuda::split_long_rows(huge, 512);
  const int64_t huge_chunks = (kHuge + spx::cuda::kCsrLongRowChunk - 1) / spx::cuda::kCsrLongRowChunk;
  EXPECT_EQ(split.rows, (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(split.nnz, kHuge + 600);
  EXPECT_EQ(split.chunks(), huge_chunks + 2);
  EXPECT_EQ(split.chunk_begin, (std::vector<int32_t>{0, static_cast<int32_t>(huge_chunks),
                                                     static_cast<int32_t>(huge_chunks + 2)}));
  const MatrixStats s = spx::cuda::csr_row_length_stats(4, 100, huge);
  EXPECT_EQ(s.nnz, kHuge + 610);
  EXPECT_EQ(s.max_row, kHuge);
  EXPECT_EQ(s.min_row, 0);
  EXPECT_EQ(s.empty_rows, 1);
}
