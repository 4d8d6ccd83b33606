// stats() on hand-computed matrices, the structure fingerprint, and the printed table.
#include "spx/stats.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "spx/convert.hpp"
#include "spx/generate.hpp"
#include "spx/threads.hpp"
#include "test_support.hpp"

namespace {

using spx::Csr;
using spx::test::fresh_seed;
using spx::test::random_csr;

// 4 x 5:
//   row 0: (0,0) (0,3)         length 2
//   row 1: empty               length 0
//   row 2: (2,0) (2,1) (2,4)   length 3
//   row 3: (3,3)               length 1
Csr<double, int32_t> hand_matrix() {
  Csr<double, int32_t> A(4, 5);
  A.row_ptr = {0, 2, 2, 5, 6};
  A.col_idx = {0, 3, 0, 1, 4, 3};
  A.values = {1, 2, 3, 4, 5, 6};
  return A;
}

TEST(Stats, HandComputedMatrix) {
  const auto s = spx::stats(hand_matrix());
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.cols, 5);
  EXPECT_EQ(s.nnz, 6);
  EXPECT_EQ(s.min_row, 0);
  EXPECT_EQ(s.max_row, 3);
  EXPECT_DOUBLE_EQ(s.avg_row, 1.5);
  // Deviations 0.5, -1.5, 1.5, -0.5: squares sum to 5, population variance 5/4.
  EXPECT_DOUBLE_EQ(s.stddev_row, std::sqrt(1.25));
  EXPECT_EQ(s.empty_rows, 1);
  EXPECT_EQ(s.lower_bandwidth, 2);  // (2,0)
  EXPECT_EQ(s.upper_bandwidth, 3);  // (0,3)
  EXPECT_EQ(s.bandwidth, 3);
  EXPECT_DOUBLE_EQ(s.ell_padding_ratio, 2.0);  // 4 * 3 / 6
  EXPECT_EQ(s.fingerprint, spx::structure_fingerprint(hand_matrix()));
}

TEST(Stats, LowerBandwidthDominates) {
  // 3 x 3 lower bidiagonal plus (2,0): lower 2, upper 0.
  Csr<float, int64_t> A(3, 3);
  A.row_ptr = {0, 1, 3, 5};
  A.col_idx = {0, 0, 1, 0, 2};
  A.values = {1, 1, 1, 1, 1};
  const auto s = spx::stats(A);
  EXPECT_EQ(s.lower_bandwidth, 2);
  EXPECT_EQ(s.upper_bandwidth, 0);
  EXPECT_EQ(s.bandwidth, 2);
  EXPECT_EQ(s.min_row, 1);
  EXPECT_EQ(s.empty_rows, 0);
  // Lengths 1, 2, 2: mean 5/3, variance (4/9 + 1/9 + 1/9) / 3 = 2/9.
  EXPECT_NEAR(s.stddev_row, std::sqrt(2.0 / 9.0), 1e-15);
  EXPECT_DOUBLE_EQ(s.ell_padding_ratio, 6.0 / 5.0);
}

TEST(Stats, DiagonalHasNoPadding) {
  Csr<double, int64_t> A(6, 6);
  for (int64_t i = 0; i < 6; ++i) {
    A.col_idx.push_back(i);
    A.values.push_back(2.0);
    A.row_ptr[i + 1] = i + 1;
  }
  const auto s = spx::stats(A);
  EXPECT_EQ(s.bandwidth, 0);
  EXPECT_EQ(s.min_row, 1);
  EXPECT_EQ(s.max_row, 1);
  EXPECT_DOUBLE_EQ(s.stddev_row, 0.0);
  EXPECT_DOUBLE_EQ(s.ell_padding_ratio, 1.0);
}

TEST(Stats, EmptyMatrices) {
  const auto zero = spx::stats(Csr<double, int32_t>(0, 0));
  EXPECT_EQ(zero.rows, 0);
  EXPECT_EQ(zero.nnz, 0);
  EXPECT_EQ(zero.min_row, 0);
  EXPECT_EQ(zero.max_row, 0);
  EXPECT_EQ(zero.avg_row, 0.0);
  EXPECT_EQ(zero.stddev_row, 0.0);
  EXPECT_EQ(zero.ell_padding_ratio, 0.0);

  const auto all_empty = spx::stats(Csr<float, int32_t>(3, 7));
  EXPECT_EQ(all_empty.rows, 3);
  EXPECT_EQ(all_empty.cols, 7);
  EXPECT_EQ(all_empty.empty_rows, 3);
  EXPECT_EQ(all_empty.max_row, 0);
  EXPECT_EQ(all_empty.ell_padding_ratio, 0.0);
  EXPECT_EQ(all_empty.bandwidth, 0);
}

TEST(Stats, OneHugeRow) {
  Csr<double, int32_t> A(1000, 5000);
  for (int32_t r = 0; r < A.rows; ++r) {
    const int32_t len = r == 999 ? 5000 : 0;
    for (int32_t c = 0; c < len; ++c) {
      A.col_idx.push_back(c);
      A.values.push_back(1.0);
    }
    A.row_ptr[r + 1] = static_cast<int32_t>(A.col_idx.size());
  }
  const auto s = spx::stats(A);
  EXPECT_EQ(s.max_row, 5000);
  EXPECT_EQ(s.empty_rows, 999);
  EXPECT_DOUBLE_EQ(s.avg_row, 5.0);
  // Population stddev of {0 x 999, 5000}: sqrt((999 * 25 + 4995^2) / 1000).
  EXPECT_NEAR(s.stddev_row, std::sqrt((999.0 * 25.0 + 4995.0 * 4995.0) / 1000.0), 1e-9);
  EXPECT_DOUBLE_EQ(s.ell_padding_ratio, 1000.0);
  EXPECT_EQ(s.lower_bandwidth, 999);
  EXPECT_EQ(s.upper_bandwidth, 5000 - 1 - 999);
}

TEST(Stats, RejectsInvalidMatrix) {
  auto A = hand_matrix();
  A.col_idx[1] = 0;  // row 0: columns 0, 0
  EXPECT_THROW(spx::stats(A), spx::Error);
  EXPECT_THROW(spx::structure_fingerprint(A), spx::Error);
}

TEST(Fingerprint, SameWhateverIndexAndValueType) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  const auto A = random_csr<double, int32_t>(517, 389, 0, 11, seed, 0.2);
  const uint64_t h = spx::structure_fingerprint(A);
  EXPECT_EQ(spx::structure_fingerprint(spx::cast<double, int64_t>(A)), h);
  EXPECT_EQ(spx::structure_fingerprint(spx::cast<float, int32_t>(A)), h);
  auto scaled = A;
  for (auto& v : scaled.values) v *= 3;
  EXPECT_EQ(spx::structure_fingerprint(scaled), h);  // values do not count
}

TEST(Fingerprint, ChangesWithOneColumn) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  const auto A = random_csr<float, int64_t>(203, 151, 1, 9, seed, 0.1);
  const uint64_t h = spx::structure_fingerprint(A);
  // Move one entry of the first non-empty row by one column, keeping the row sorted: the last
  // entry right, or else (it sits in the last column) the first entry left. Rows are shorter than
  // cols, so one of the two is free.
  auto B = A;
  int64_t r = 0;
  while (B.row_length(r) == 0) ++r;
  const auto first = static_cast<std::size_t>(B.row_ptr[r]);
  const auto last = static_cast<std::size_t>(B.row_ptr[r + 1] - 1);
  if (B.col_idx[last] + 1 < B.cols) {
    ++B.col_idx[last];
  } else {
    --B.col_idx[first];
  }
  ASSERT_NO_THROW(B.validate());
  EXPECT_NE(spx::structure_fingerprint(B), h);
}

TEST(Fingerprint, ChangesWithShapeAndRowSplit) {
  auto A = hand_matrix();
  const uint64_t h = spx::structure_fingerprint(A);
  auto wider = A;
  wider.cols = 6;
  EXPECT_NE(spx::structure_fingerprint(wider), h);
  // Same column sequence, different row boundaries: row 0 gives its last entry to row 1.
  auto moved = A;
  moved.row_ptr[1] = 1;
  moved.col_idx = {0, 3, 0, 1, 4, 3};
  EXPECT_NE(spx::structure_fingerprint(moved), h);
  auto empty = Csr<double, int32_t>(0, 0);
  EXPECT_NE(spx::structure_fingerprint(empty), spx::structure_fingerprint(Csr<double, int32_t>(0, 1)));
}

// Rows are hashed in parallel blocks: the value must not depend on the threads, on either side of a
// block boundary (2^16 rows) and of the parallel threshold; int32 and int64 copies agree.
TEST(Fingerprint, SameForAnyThreadCountAndIndexType) {
  const auto A = spx::gen::generate<double, int32_t>("random:rows=200003,cols=9001,len=5,seed=4");
  const int saved = omp_get_max_threads();
  spx::omp::set_threads(1);
  const uint64_t one = spx::structure_fingerprint(A);
  spx::omp::set_threads(2);
  EXPECT_EQ(spx::structure_fingerprint(A), one);
  spx::omp::set_threads(3);
  EXPECT_EQ(spx::structure_fingerprint(A), one);
  EXPECT_EQ(spx::structure_fingerprint(spx::cast<double, int64_t>(A)), one);
  omp_set_num_threads(saved);
}

TEST(Fingerprint, PinnedValue) {
  // The fingerprint keys on-disk tuning caches: it must not change by accident across builds or
  // platforms. If the definition changes on purpose, bump the version tag in stats.cpp and this.
  EXPECT_EQ(fmt::format("{:016x}", spx::structure_fingerprint(hand_matrix())), "24a885fdd001122a");
}

TEST(Stats, ToStringIsAlignedNameValueTable) {
  const auto s = spx::stats(hand_matrix());
  const std::string text = spx::to_string(s);
  std::ostringstream os;
  os << s;
  EXPECT_EQ(os.str(), text);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 13u);
  EXPECT_EQ(text.back(), lines.back().back()) << "no trailing newline";
  // Every value starts in the same column, right after the padded "name:" field.
  const std::size_t value_column = lines[0].find_first_not_of(' ', lines[0].find(':') + 1);
  for (const auto& line : lines) {
    ASSERT_NE(line.find(':'), std::string::npos) << line;
    EXPECT_EQ(line.find_first_not_of(' ', line.find(':') + 1), value_column) << line;
  }
  EXPECT_EQ(lines[0].substr(0, 5), "rows:");
  EXPECT_NE(text.find("nnz:"), std::string::npos);
  EXPECT_NE(text.find(" 6\n"), std::string::npos);
  EXPECT_NE(text.find("avg_row:"), std::string::npos);
  EXPECT_NE(text.find(" 1.5\n"), std::string::npos);
  EXPECT_NE(text.find(fmt::format("{:016x}", s.fingerprint)), std::string::npos);
}

}  // namespace
