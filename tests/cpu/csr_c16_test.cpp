// CsrC16 (spx/csr_c16.hpp) on the host: CSR -> C16 -> CSR round trips, the split into 16-bit and
// escape rows, the reference SpMV against the CSR one, the span statistic, and bad input.
#include "spx/csr_c16.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "csr_c16_cases.hpp"
#include "spx/column_spans.hpp"
#include "spx/cpu.hpp"
#include "spx/error.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

using test::c16_cases;

template <class T>
class CsrC16Host : public ::testing::Test {};
using Values = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CsrC16Host, Values);

// The rows the format must escape, straight from the definition.
template <class T>
std::vector<int32_t> wide_rows(const Csr<T, int32_t>& A, int64_t longer_than) {
  std::vector<int32_t> out;
  for (int32_t r = 0; r < A.rows; ++r) {
    const int32_t b = A.row_ptr[r], e = A.row_ptr[r + 1];
    if (e > b && (e - b > longer_than || A.col_idx[e - 1] - A.col_idx[b] > kC16MaxSpan)) out.push_back(r);
  }
  return out;
}

TYPED_TEST(CsrC16Host, RoundTripsAndSplitsEveryCase) {
  using T = TypeParam;
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto& c : c16_cases<T>(seed)) {
    SCOPED_TRACE(c.name);
    for (int64_t longer_than : {std::numeric_limits<int64_t>::max(), int64_t{64}}) {
      const CsrC16<T> C = to_csr_c16(c.A, longer_than);
      C.validate();
      EXPECT_EQ(C.escape_rows, wide_rows(c.A, longer_than));
      EXPECT_EQ(C.nnz(), int64_t{c.A.nnz()});
      const Csr<T, int32_t> back = to_csr(C);
      EXPECT_EQ(back.row_ptr, c.A.row_ptr);
      EXPECT_EQ(back.col_idx, c.A.col_idx);
      EXPECT_EQ(back.values, c.A.values);
      // The other way: the C16 of the round-tripped CSR is the same C16.
      const CsrC16<T> again = to_csr_c16(back, longer_than);
      EXPECT_EQ(again.row_ptr, C.row_ptr);
      EXPECT_EQ(again.base, C.base);
      EXPECT_EQ(again.offsets, C.offsets);
      EXPECT_EQ(again.escape_rows, C.escape_rows);
      EXPECT_EQ(again.escape.col_idx, C.escape.col_idx);
    }
  }
}

TYPED_TEST(CsrC16Host, EscapeBoundaryIsSpan65535) {
  using T = TypeParam;
  Csr<T, int32_t> A(2, 65537);
  A.col_idx = {0, 65535, 0, 65536};
  A.values = {T(1), T(2), T(3), T(4)};
  A.row_ptr = {0, 2, 4};
  const CsrC16<T> C = to_csr_c16(A);
  EXPECT_EQ(C.base[0], 0);
  EXPECT_EQ(C.offsets, (std::vector<uint16_t>{0, 65535}));
  EXPECT_EQ(C.base[1], kC16Escape);
  EXPECT_EQ(C.escape_rows, std::vector<int32_t>{1});
  const ColumnSpanStats s = column_span_stats(A);
  EXPECT_EQ(s.wide_rows, 1);
  EXPECT_EQ(s.wide_nnz, 2);
  EXPECT_EQ(s.max_span, 65536);
  EXPECT_DOUBLE_EQ(s.narrow_share(), 0.5);
}

TYPED_TEST(CsrC16Host, ReferenceSpmvMatchesCsr) {
  using T = TypeParam;
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto& c : c16_cases<T>(seed)) {
    SCOPED_TRACE(c.name);
    const CsrC16<T> C = to_csr_c16(c.A, 100);
    const auto x = test::random_vector<T>(static_cast<std::size_t>(c.A.cols), seed + 99);
    const auto y0 = test::random_vector<T>(static_cast<std::size_t>(c.A.rows), seed + 98);
    for (auto [alpha, beta] : {std::pair<T, T>{T(1), T(0)}, {T(-0.5), T(2)}, {T(0), T(3)}}) {
      std::vector<T> want = y0, got = y0;
      if (beta == T(0)) test::poison(std::span<T>(got));
      ref::spmv(c.A, std::span<const T>(x), std::span<T>(want), alpha, beta);
      ref::spmv(C, std::span<const T>(x), std::span<T>(got), alpha, beta);
      // Same entries in the same order per row, summed in double: identical.
      EXPECT_EQ(got, want);
    }
  }
}

TYPED_TEST(CsrC16Host, SpanStatsAgreeWithTheConversion) {
  using T = TypeParam;
  const uint64_t seed = test::fresh_seed();
  for (const auto& c : c16_cases<T>(seed)) {
    SCOPED_TRACE(c.name);
    const ColumnSpanStats s = column_span_stats(c.A);
    const CsrC16<T> C = to_csr_c16(c.A);
    EXPECT_EQ(s.wide_rows, static_cast<int64_t>(C.escape_rows.size()));
    EXPECT_EQ(s.wide_nnz, C.escape_nnz());
    // The streamed bytes the planner predicts are exactly the format's arrays.
    EXPECT_DOUBLE_EQ(csr_c16_stream_bytes(s, sizeof(T)), static_cast<double>(C.bytes()));
    EXPECT_DOUBLE_EQ(csr_stream_bytes(s, sizeof(T)),
                     static_cast<double>(c.A.nnz()) * (sizeof(T) + 4) + 4.0 * (c.A.rows + 1));
  }
}

TEST(CsrC16HostErrors, BadInputIsAOneLineError) {
  Csr<double, int32_t> A(2, 5);
  A.col_idx = {3, 1};  // unsorted: not canonical
  A.values = {1, 2};
  A.row_ptr = {0, 2, 2};
  EXPECT_THROW((void)to_csr_c16(A), Error);
  EXPECT_THROW((void)to_csr_c16(Csr<double, int32_t>(3, 3), -1), Error);

  CsrC16<double> C = to_csr_c16(test::c16_banded<double>(50, 70001, 10, 3, 7, 0.0, 5));
  C.validate();
  auto expect_invalid = [](const CsrC16<double>& bad, std::initializer_list<const char*> words) {
    try {
      bad.validate();
      ADD_FAILURE() << "validate accepted a bad CsrC16";
    } catch (const Error& e) {
      test::expect_words(e.what(), words);
    }
  };
  {
    CsrC16<double> bad = C;
    bad.offsets[1] = bad.offsets[0];
    expect_invalid(bad, {"CsrC16", "row", "strictly increasing"});
  }
  {
    CsrC16<double> bad = C;
    bad.base[1] = 70000;
    expect_invalid(bad, {"CsrC16", "row 1", "out of range"});
  }
  {
    CsrC16<double> bad = C;
    bad.base[0] = 0;  // row 0 is an escape row (wide_every 5)
    expect_invalid(bad, {"CsrC16", "row 0", "escape list"});
  }
  {
    CsrC16<double> bad = C;
    bad.escape_rows.back() = 49;
    expect_invalid(bad, {"CsrC16", "escape"});
  }
  {
    CsrC16<double> bad = C;
    bad.values.pop_back();
    expect_invalid(bad, {"CsrC16", "values"});
  }
  std::vector<double> x(70001, 1.0), y(49);
  EXPECT_THROW(ref::spmv(C, std::span<const double>(x), std::span<double>(y)), Error);
}

}  // namespace
}  // namespace spx
