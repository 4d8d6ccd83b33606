// The front door's host intake (validation, spx::stats, column_span_stats, cast) takes its
// parallel paths past 2^16 rows: their results must be the serial definitions' bit for bit, and a
// bad matrix must be refused naming the same first bad index, whatever the threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spx/column_spans.hpp"
#include "spx/convert.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/stats.hpp"
#include "spx/threads.hpp"
#include "test_support.hpp"

namespace {

using spx::Csr;

constexpr int kThreadCounts[] = {1, 2, 3, 4};

// Restores the thread count a test changed.
class ThreadsGuard {
 public:
  ThreadsGuard() : saved_(omp_get_max_threads()) {}
  ~ThreadsGuard() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

// spx::stats' row statistics as the serial definition computes them (one pass in row order, then
// the squared deviations in row order).
template <class T, class I>
spx::MatrixStats serial_row_stats(const Csr<T, I>& A) {
  spx::MatrixStats s;
  s.rows = A.rows;
  s.cols = A.cols;
  s.nnz = A.nnz();
  if (A.rows > 0) s.min_row = A.row_length(0);
  for (I r = 0; r < A.rows; ++r) {
    const int64_t len = A.row_length(r);
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    if (len == 0) ++s.empty_rows;
    if (len > 0) {
      s.lower_bandwidth = std::max<int64_t>(s.lower_bandwidth, r - A.col_idx[A.row_ptr[r]]);
      s.upper_bandwidth = std::max<int64_t>(s.upper_bandwidth, A.col_idx[A.row_ptr[r + 1] - 1] - r);
    }
  }
  s.bandwidth = std::max(s.lower_bandwidth, s.upper_bandwidth);
  if (A.rows > 0) {
    s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
    double sum_sq = 0;
    for (I r = 0; r < A.rows; ++r) {
      const double d = static_cast<double>(A.row_length(r)) - s.avg_row;
      sum_sq += d * d;
    }
    s.stddev_row = std::sqrt(sum_sq / static_cast<double>(s.rows));
  }
  if (s.nnz > 0)
    s.ell_padding_ratio =
        static_cast<double>(s.rows) * static_cast<double>(s.max_row) / static_cast<double>(s.nnz);
  return s;
}

template <class T, class I>
spx::ColumnSpanStats serial_column_spans(const Csr<T, I>& A) {
  spx::ColumnSpanStats s;
  s.rows = A.rows;
  s.nnz = A.nnz();
  for (I r = 0; r < A.rows; ++r) {
    const I begin = A.row_ptr[r], end = A.row_ptr[r + 1];
    if (end <= begin) continue;
    const int64_t span = static_cast<int64_t>(A.col_idx[end - 1]) - static_cast<int64_t>(A.col_idx[begin]);
    s.max_span = std::max(s.max_span, span);
    if (span > spx::kC16MaxSpan) {
      ++s.wide_rows;
      s.wide_nnz += end - begin;
    }
  }
  return s;
}

void expect_same_row_stats(const spx::MatrixStats& got, const spx::MatrixStats& want) {
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.nnz, want.nnz);
  EXPECT_EQ(got.min_row, want.min_row);
  EXPECT_EQ(got.max_row, want.max_row);
  EXPECT_EQ(got.empty_rows, want.empty_rows);
  EXPECT_EQ(got.lower_bandwidth, want.lower_bandwidth);
  EXPECT_EQ(got.upper_bandwidth, want.upper_bandwidth);
  EXPECT_EQ(got.bandwidth, want.bandwidth);
  // Exact: the same bits, not merely close.
  EXPECT_EQ(got.avg_row, want.avg_row);
  EXPECT_EQ(got.stddev_row, want.stddev_row);
  EXPECT_EQ(got.ell_padding_ratio, want.ell_padding_ratio);
}

void expect_error_naming(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const spx::Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

// Past 2^16 rows, with empty rows, skewed rows (R-MAT: the first rows hold most nonzeros) and rows
// wider than SELL-C16's span: stats and spans equal the serial definitions for every thread count,
// and so do the int64 copy's.
TEST(IntakeParallel, StatsAndSpansEqualTheSerialDefinitions) {
  const ThreadsGuard guard;
  const std::vector<Csr<double, int32_t>> matrices = {
      spx::test::random_csr<double, int32_t>(200003, 150000, 0, 40, 11, /*empty_fraction=*/0.2),
      spx::gen::generate<double, int32_t>("rmat:scale=17,ef=8,seed=5"),
  };
  for (const auto& A : matrices) {
    const auto A64 = spx::cast<double, int64_t>(A);
    const spx::MatrixStats want = serial_row_stats(A);
    const spx::ColumnSpanStats want_spans = serial_column_spans(A);
    ASSERT_GT(want.empty_rows, 0);
    ASSERT_GT(want_spans.wide_rows, 0);
    spx::omp::set_threads(1);
    const uint64_t fingerprint = spx::structure_fingerprint(A);
    for (const int threads : kThreadCounts) {
      SCOPED_TRACE(threads);
      spx::omp::set_threads(threads);
      for (const spx::MatrixStats& got : {spx::stats(A), spx::stats(A64)}) {
        expect_same_row_stats(got, want);
        EXPECT_EQ(got.fingerprint, fingerprint);
      }
      for (const spx::ColumnSpanStats& got : {spx::column_span_stats(A), spx::column_span_stats(A64)}) {
        EXPECT_EQ(got.rows, want_spans.rows);
        EXPECT_EQ(got.nnz, want_spans.nnz);
        EXPECT_EQ(got.max_span, want_spans.max_span);
        EXPECT_EQ(got.wide_rows, want_spans.wide_rows);
        EXPECT_EQ(got.wide_nnz, want_spans.wide_nnz);
      }
    }
  }
}

// A large matrix with several faults is refused naming the first one, in the order the serial
// checks detect them (row offsets before columns), whatever the threads; stats() says the same.
TEST(IntakeParallel, BadMatrixNamesTheFirstFaultWithAnyThreads) {
  const ThreadsGuard guard;
  const auto good = spx::test::random_csr<double, int32_t>(200003, 5000, 0, 12, 7, /*empty_fraction=*/0.2);
  const auto first_nonempty_from = [&](int32_t r) {
    while (good.row_length(r) < 2) ++r;
    return r;
  };
  const int32_t late = first_nonempty_from(150000), middle = first_nonempty_from(100000),
                early = first_nonempty_from(60000);
  const auto at = [&](int32_t r, int k) { return static_cast<std::size_t>(good.row_ptr[r]) + k; };

  auto offsets = good;  // the offsets decrease at two rows: the earlier is named
  offsets.row_ptr[static_cast<std::size_t>(late) + 1] = offsets.row_ptr[late] - 1;
  offsets.row_ptr[static_cast<std::size_t>(early) + 1] = offsets.row_ptr[early] - 1;
  offsets.col_idx[at(middle, 0)] = -1;  // a bad column too: the offsets are checked first
  const std::string offsets_message =
      "Csr: row_ptr decreases at row " + std::to_string(early) + ": row_ptr[" + std::to_string(early) +
      "] = " + std::to_string(good.row_ptr[early]) + " > row_ptr[" + std::to_string(early + 1) +
      "] = " + std::to_string(good.row_ptr[early] - 1);

  auto columns = good;  // out of range late, unsorted in the middle: the unsorted one is named
  columns.col_idx[at(late, 1)] = 5000;
  std::swap(columns.col_idx[at(middle, 0)], columns.col_idx[at(middle, 1)]);
  const std::string columns_message =
      "Csr: row " + std::to_string(middle) + ": column " + std::to_string(columns.col_idx[at(middle, 1)]) +
      " at position " + std::to_string(at(middle, 1)) + " is not greater than previous column " +
      std::to_string(columns.col_idx[at(middle, 0)]) + " (unsorted or duplicate; call spx::canonicalize)";

  auto range = good;  // out of range in the middle only
  range.col_idx[at(middle, 1)] = 5000;
  const std::string range_message = "Csr: row " + std::to_string(middle) + ": column 5000 at position " +
                                    std::to_string(at(middle, 1)) + " is outside [0, cols = 5000)";

  for (const int threads : kThreadCounts) {
    SCOPED_TRACE(threads);
    spx::omp::set_threads(threads);
    EXPECT_NO_THROW(good.validate());
    expect_error_naming([&] { offsets.validate(); }, offsets_message);
    expect_error_naming([&] { (void)spx::stats(offsets); }, offsets_message);
    expect_error_naming([&] { columns.validate(); }, columns_message);
    expect_error_naming([&] { (void)spx::stats(columns); }, columns_message);
    expect_error_naming([&] { range.validate(); }, range_message);
    expect_error_naming([&] { (void)spx::cast<float, int32_t>(range); }, range_message);
  }
}

// cast converts entry by entry in parallel: each entry is the serial static_cast's.
TEST(IntakeParallel, CastEqualsTheEntryByEntryConversion) {
  const ThreadsGuard guard;
  const auto A = spx::test::random_csr<double, int64_t>(100003, 3000, 0, 9, 3, /*empty_fraction=*/0.1);
  for (const int threads : kThreadCounts) {
    SCOPED_TRACE(threads);
    spx::omp::set_threads(threads);
    const auto B = spx::cast<float, int32_t>(A);
    ASSERT_EQ(B.row_ptr.size(), A.row_ptr.size());
    ASSERT_EQ(B.values.size(), A.values.size());
    bool same = true;
    for (std::size_t r = 0; r < A.row_ptr.size(); ++r)
      same &= B.row_ptr[r] == static_cast<int32_t>(A.row_ptr[r]);
    for (std::size_t p = 0; p < A.values.size(); ++p)
      same &= B.col_idx[p] == static_cast<int32_t>(A.col_idx[p]) &&
              B.values[p] == static_cast<float>(A.values[p]);
    EXPECT_TRUE(same);
  }
}

}  // namespace
