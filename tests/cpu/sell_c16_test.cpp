// SellC16 (spx/sell_c16.hpp) on the host: CSR -> SELL-C16 -> CSR round trips, the layout (slices of
// 32 rows, column-major slots, padding (0, 0)), the reference SpMV against the CSR one, the span
// boundary 65535 / 65536, the byte count, and bad input.
#include "spx/sell_c16.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "sell_c16_cases.hpp"
#include "spx/cpu.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

using test::sell_c16_cases;

template <class T>
class SellC16Host : public ::testing::Test {};
using Values = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SellC16Host, Values);

TYPED_TEST(SellC16Host, RoundTripsEveryCase) {
  using T = TypeParam;
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto& c : sell_c16_cases<T>(seed)) {
    SCOPED_TRACE(c.name);
    const SellC16<T> S = to_sell_c16(c.A);
    S.validate();
    EXPECT_EQ(S.nnz(), int64_t{c.A.nnz()});
    EXPECT_EQ(S.slices(), (int64_t{c.A.rows} + 31) / 32);
    EXPECT_EQ(S.slots(), sell_c16_slots(c.A));
    // The planner's slot count is the features' SELL-32 count.
    EXPECT_EQ(S.slots(), features(c.A).sell_slots);
    EXPECT_DOUBLE_EQ(sell_c16_stream_bytes(S.slots(), c.A.rows, sizeof(T)), static_cast<double>(S.bytes()));
    const Csr<T, int32_t> back = to_csr(S);
    EXPECT_EQ(back.row_ptr, c.A.row_ptr);
    EXPECT_EQ(back.col_idx, c.A.col_idx);
    EXPECT_EQ(back.values, c.A.values);
    // The other way: the SELL-C16 of the round-tripped CSR is the same.
    const SellC16<T> again = to_sell_c16(back);
    EXPECT_EQ(again.slice_ptr, S.slice_ptr);
    EXPECT_EQ(again.base, S.base);
    EXPECT_EQ(again.offsets, S.offsets);
    EXPECT_EQ(again.values, S.values);
  }
}

// Rows 0..32 (33: the second slice partial): row 0 empty, row 1 of three nonzeros, row 32 of one.
TYPED_TEST(SellC16Host, LayoutIsColumnMajorSlicesWithZeroPadding) {
  using T = TypeParam;
  Csr<T, int32_t> A(33, 100);
  A.col_idx = {10, 12, 99, 7};
  A.values = {T(1), T(2), T(3), T(4)};
  A.row_ptr.assign(34, 3);  // rows 2..31 empty
  A.row_ptr[0] = A.row_ptr[1] = 0;
  A.row_ptr[33] = 4;
  const SellC16<T> S = to_sell_c16(A);
  EXPECT_EQ(S.slice_ptr, (std::vector<int64_t>{0, 96, 128}));
  EXPECT_EQ(S.base[0], kSellC16EmptyRow);
  EXPECT_EQ(S.base[1], 10);
  EXPECT_EQ(S.base[2], kSellC16EmptyRow);
  EXPECT_EQ(S.base[32], 7);
  // Row 1's slots j = 0, 1, 2 at 32 j + 1.
  EXPECT_EQ(S.offsets[1], 0);
  EXPECT_EQ(S.offsets[33], 2);
  EXPECT_EQ(S.offsets[65], 89);
  EXPECT_EQ(S.values[65], T(3));
  // Row 32: slot 0 of slice 1, lane 0; lanes 1..31 padding.
  EXPECT_EQ(S.offsets[96], 0);
  EXPECT_EQ(S.values[96], T(4));
  for (int k = 97; k < 128; ++k) EXPECT_EQ(S.values[k], T(0));
  EXPECT_EQ(S.nnz(), 4);
}

TYPED_TEST(SellC16Host, SpanLimitIs65535) {
  using T = TypeParam;
  Csr<T, int32_t> A(2, 65537);
  A.col_idx = {0, 65535, 1, 65536};
  A.values = {T(1), T(2), T(3), T(4)};
  A.row_ptr = {0, 2, 4};
  const SellC16<T> S = to_sell_c16(A);  // row 1 spans 1..65536: 65535
  EXPECT_EQ(S.base[1], 1);
  EXPECT_EQ(S.offsets[32 + 1], 65535);
  A.col_idx = {0, 65535, 0, 65536};  // row 1 spans 65536
  try {
    (void)to_sell_c16(A);
    ADD_FAILURE() << "a row spanning 65536 columns was accepted";
  } catch (const Error& e) {
    test::expect_words(e.what(), {"to_sell_c16", "row 1", "65536", "65535"});
  }
}

TYPED_TEST(SellC16Host, ReferenceSpmvMatchesCsr) {
  using T = TypeParam;
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto& c : sell_c16_cases<T>(seed)) {
    SCOPED_TRACE(c.name);
    const SellC16<T> S = to_sell_c16(c.A);
    const auto x = test::random_vector<T>(static_cast<std::size_t>(c.A.cols), seed + 99);
    const auto y0 = test::random_vector<T>(static_cast<std::size_t>(c.A.rows), seed + 98);
    for (auto [alpha, beta] : {std::pair<T, T>{T(1), T(0)}, {T(-0.5), T(2)}, {T(0), T(3)}}) {
      std::vector<T> want = y0, got = y0;
      if (beta == T(0)) test::poison(std::span<T>(got));
      ref::spmv(c.A, std::span<const T>(x), std::span<T>(want), alpha, beta);
      ref::spmv(S, std::span<const T>(x), std::span<T>(got), alpha, beta);
      // Same entries in the same order per row, summed in double: identical.
      EXPECT_EQ(got, want);
    }
  }
}

// Padding never multiplies x: an Inf in x reaches only the rows that hold its column.
TEST(SellC16HostSemantics, PaddingDoesNotTouchX) {
  Csr<double, int32_t> A(3, 4);
  A.col_idx = {0, 2, 1};
  A.values = {1, 1, 1};
  A.row_ptr = {0, 2, 2, 3};  // row 1 empty, rows 0 and 2 padded in one slice of width 2
  const SellC16<double> S = to_sell_c16(A);
  std::vector<double> x = {std::numeric_limits<double>::infinity(), 1, 1, 1}, y(3);
  ref::spmv(S, std::span<const double>(x), std::span<double>(y));
  EXPECT_TRUE(std::isinf(y[0]));
  EXPECT_EQ(y[1], 0.0);
  EXPECT_EQ(y[2], 1.0);
}

TEST(SellC16HostErrors, BadInputIsAOneLineError) {
  Csr<double, int32_t> A(2, 5);
  A.col_idx = {3, 1};  // unsorted: not canonical
  A.values = {1, 2};
  A.row_ptr = {0, 2, 2};
  EXPECT_THROW((void)to_sell_c16(A), Error);

  SellC16<double> S = to_sell_c16(test::c16_banded<double>(50, 70001, 10, 3, 7));
  S.validate();
  auto expect_invalid = [](const SellC16<double>& bad, std::initializer_list<const char*> words) {
    try {
      bad.validate();
      ADD_FAILURE() << "validate accepted a bad SellC16";
    } catch (const Error& e) {
      test::expect_words(e.what(), words);
    }
  };
  {
    SellC16<double> bad = S;
    bad.base[1] = 69999;  // row 1's later slots (offsets > 0) past the last column
    expect_invalid(bad, {"SellC16", "row 1", "out of range"});
  }
  {
    SellC16<double> bad = S;
    bad.offsets[64 + 1] = bad.offsets[32 + 1];  // row 1, slot 2 repeats slot 1
    expect_invalid(bad, {"SellC16", "row 1", "strictly increasing"});
  }
  {
    SellC16<double> bad = S;
    bad.base[3] = 70001;
    expect_invalid(bad, {"SellC16", "row 3", "out of range"});
  }
  {
    SellC16<double> bad = S;
    bad.values[S.slots() - 1] = std::nan("");  // slice 1's last lane (row 63 of 50): padding
    expect_invalid(bad, {"SellC16", "padding"});
  }
  {
    SellC16<double> bad = S;
    bad.slice_ptr[1] += 1;
    expect_invalid(bad, {"SellC16", "slice 0", "multiple of 32"});
  }
  {
    SellC16<double> bad = S;
    bad.values.pop_back();
    expect_invalid(bad, {"SellC16", "values"});
  }
  std::vector<double> x(70000, 1.0), y(50);
  EXPECT_THROW(ref::spmv(S, std::span<const double>(x), std::span<double>(y)), Error);
}

}  // namespace
}  // namespace spx
