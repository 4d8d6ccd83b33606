// Row partitioning for distributed products: contiguous, non-empty, covering, and balanced within
// one row's cost of the ideal share; clear errors for impossible requests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cpu_kernel_bounds.hpp"
#include "spx/dist.hpp"
#include "spx/generate.hpp"
#include "test_support.hpp"

namespace {

using spx::dist::Partition;
using spx::test::expect_error;

// Contiguous non-empty blocks from 0 to n; no block's cost above ideal + the largest row's cost;
// with `two_sided`, none below ideal - that either (only impossible when one row dwarfs a share).
void expect_balanced(const Partition& p, const std::vector<double>& cost, int ranks, bool two_sided) {
  ASSERT_EQ(p.ranks(), ranks);
  ASSERT_EQ(p.begin.front(), 0);
  ASSERT_EQ(p.size(), static_cast<int64_t>(cost.size()));
  double total = 0, largest = 0;
  for (double c : cost) total += c, largest = std::max(largest, c);
  const double ideal = total / ranks;
  for (int r = 0; r < ranks; ++r) {
    ASSERT_GE(p.block_size(r), 1) << "rank " << r;
    double block = 0;
    for (int64_t i = p.begin[r]; i < p.begin[r + 1]; ++i) block += cost[static_cast<std::size_t>(i)];
    EXPECT_LE(block, ideal + largest + 1e-9 * total) << "rank " << r << " of " << ranks;
    if (two_sided) {
      EXPECT_GE(block, ideal - largest - 1e-9 * total) << "rank " << r << " of " << ranks;
    }
    for (int64_t i = p.begin[r]; i < p.begin[r + 1]; ++i) ASSERT_EQ(p.owner(i), r);
  }
}

template <class I>
std::vector<double> nnz_costs(const spx::Csr<double, I>& A) {
  std::vector<double> c;
  for (I r = 0; r < A.rows; ++r) c.push_back(static_cast<double>(A.row_length(r)));
  return c;
}

TEST(DistPartition, RandomMatricesBalancedByNonzeros) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (int32_t rows : {7, 61, 1001, 4099}) {
    const auto A = spx::test::random_csr<double, int32_t>(rows, rows + 3, 0, 40,
                                                          seed + static_cast<uint64_t>(rows), 0.2);
    for (int k = 1; k <= std::min(7, rows); ++k) {
      SCOPED_TRACE("rows " + std::to_string(rows) + ", k " + std::to_string(k));
      expect_balanced(spx::dist::partition_rows(A, k), nnz_costs(A), k, rows >= 1001);
    }
  }
}

TEST(DistPartition, OneHugeRowAndEmptyRows) {
  const auto A = spx::gen::long_rows<double, int32_t>(997, 2000, 1, 1900, 0.5, 3, 7);
  for (int k = 1; k <= 7; ++k) expect_balanced(spx::dist::partition_rows(A, k), nnz_costs(A), k, false);
  // All rows empty: every block still gets rows, as evenly as the ties allow.
  const spx::Csr<double, int32_t> empty(13, 13);
  const auto p = spx::dist::partition_rows(empty, 5);
  for (int r = 0; r < 5; ++r) EXPECT_GE(p.block_size(r), 1);
  EXPECT_EQ(p.size(), 13);
}

TEST(DistPartition, RowOverheadAndExplicitCosts) {
  // 10 empty rows then 10 rows of 10: by nonzeros alone rank 0 of 2 takes the empty rows and five
  // full ones; with a row overhead of 5 per row the cut moves to the cost midpoint.
  spx::Csr<double, int32_t> A(20, 20);
  for (int32_t r = 0; r < 20; ++r) {
    if (r >= 10)
      for (int32_t c = 0; c < 10; ++c) A.col_idx.push_back(c), A.values.push_back(1.0);
    A.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<int32_t>(A.col_idx.size());
  }
  EXPECT_EQ(spx::dist::partition_rows(A, 2).begin[1], 15);
  EXPECT_EQ(spx::dist::partition_rows(A, 2, 5.0).begin[1], 13);  // costs 5 ×10 then 15 ×10: half 100
  const std::vector<double> cost{5, 1, 1, 1, 1, 1};
  EXPECT_EQ(spx::dist::partition_by_cost(cost, 2).begin[1], 1);
}

TEST(DistPartition, Errors) {
  const std::vector<double> cost(5, 1.0);
  expect_error([&] { spx::dist::partition_by_cost(cost, 0); }, "0 ranks; need at least 1");
  expect_error([&] { spx::dist::partition_by_cost(cost, -2); }, "need at least 1");
  expect_error([&] { spx::dist::partition_by_cost(cost, 6); }, "6 ranks for 5 rows");
  expect_error([&] { spx::dist::partition_by_cost({}, 1); }, "1 ranks for 0 rows");
  std::vector<double> bad = cost;
  bad[3] = -1;
  expect_error([&] { spx::dist::partition_by_cost(bad, 2); }, "row 3 has cost -1");
  bad[3] = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { spx::dist::partition_by_cost(bad, 2); }, "row 3 has cost");
  const spx::Csr<float, int32_t> A(4, 4);
  expect_error([&] { spx::dist::partition_rows(A, 2, -1.0); }, "row overhead -1");
  expect_error([&] { spx::dist::partition_even(3, 0); }, "need at least 1");
  const Partition p = spx::dist::partition_even(3, 2);
  expect_error([&] { (void)p.owner(3); }, "index 3 out of range 0..2");
}

TEST(DistPartition, EvenSplitAllowsEmptyBlocks) {
  const Partition p = spx::dist::partition_even(10, 4);
  EXPECT_EQ(p.begin, (std::vector<int64_t>{0, 3, 6, 8, 10}));
  const Partition q = spx::dist::partition_even(2, 5);
  EXPECT_EQ(q.begin, (std::vector<int64_t>{0, 1, 2, 2, 2, 2}));
  EXPECT_EQ(q.owner(0), 0);
  EXPECT_EQ(q.owner(1), 1);
}

}  // namespace
