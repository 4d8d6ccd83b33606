// SELL-C16 with a value dictionary on the GPU: against the CPU reference and bitwise against
// SELL-C16's kernel on stencils (two values), a pattern matrix (one value: no codes), 256 values,
// odd sizes, empty rows; y poisoned first; alpha/beta. The device conversion against the host's.
#include "spx/sell_c16_dict.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cuda/spmv/sell_c16_launch.hpp"
#include "gpu_test_support.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/spmv_sell_c16.hpp"
#include "spx/generate.hpp"

namespace spx {
namespace {

using test::gpu;
using test::poison;
using test::random_vector;
using test::spmv_cases;
using test::SpmvCase;

template <class T>
class SellC16DictGpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SellC16DictGpu, Precisions);

template <class T>
Csr<T, int32_t> few_values(Csr<T, int32_t> A, int distinct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, distinct - 1);
  for (T& v : A.values) v = static_cast<T>(0.25 + pick(rng));
  return A;
}

// Stencils (two values, one shuffled past 16-bit spans: refused by SELL-C16's rule, not here),
// a pattern (one value: no codes), 256 values with empty rows, no nonzeros.
template <class T>
std::vector<std::pair<std::string, Csr<T, int32_t>>> dict_cases(uint64_t seed) {
  return {
      {"stencil27 (2 values)", gen::generate<T, int32_t>("stencil27:n=23")},
      {"stencil2d shuffled (2 values)", gen::generate<T, int32_t>("stencil2d:n=101,shuffle=3")},
      {"pattern (1 value)",
       few_values(gen::generate<T, int32_t>("random:rows=2049,cols=1999,len=11,seed=2"), 1, seed)},
      {"256 values, empty rows",
       few_values(test::random_csr<T, int32_t>(3001, 2999, 0, 30, seed, 0.2), 256, seed)},
      {"no nonzeros", Csr<T, int32_t>(37, 41)},
  };
}

TYPED_TEST(SellC16DictGpu, MatchesTheReferenceAndSellC16Bitwise) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto cases = dict_cases<T>(seed);

  for (const auto& [name, A] : cases) {
    const SellC16Dict<T> D = to_sell_c16_dict(A);
    const auto dD = cuda::upload_sell_c16_dict(ctx, D);
    const auto dS = cuda::upload_sell_c16(ctx, D.sell);
    const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed + 1);
    const auto dx = cuda::to_device(ctx, x, "x");
    for (const SpmvCase<T>& c : spmv_cases(A, x, seed + 2)) {
      auto dy = cuda::to_device(ctx, c.y0, "y");
      auto ds = cuda::to_device(ctx, c.y0, "y sell");
      cuda::spmv_sell_c16_dict(ctx, dD, std::span<const T>(dx.span()), dy.span(), c.alpha, c.beta);
      cuda::spmv_sell_c16(ctx, dS, std::span<const T>(dx.span()), ds.span(), c.alpha, c.beta);
      const auto got = cuda::to_host(ctx, dy), sell = cuda::to_host(ctx, ds);
      c.expect_close(got, name + c.label());
      for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], sell[i]) << name << c.label() << ": row " << i << " differs from SELL-C16's kernel";
    }
  }
}

// Every lane count: the dictionary's kernel (coded and uniform) equals SELL-C16's bit for bit at the
// same lanes, and matches the reference.
TYPED_TEST(SellC16DictGpu, EveryLaneCountEqualsSellC16Bitwise) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& [name, A] : dict_cases<T>(seed)) {
    const SellC16Dict<T> D = to_sell_c16_dict(A);
    const auto dD = cuda::upload_sell_c16_dict(ctx, D);
    const auto dS = cuda::upload_sell_c16(ctx, D.sell);
    const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed + 1);
    const auto dx = cuda::to_device(ctx, x, "x");
    for (int lanes : {1, 2, 4, 8}) {
      for (const SpmvCase<T>& c : spmv_cases(A, x, seed + 2)) {
        const std::string what = name + ", " + std::to_string(lanes) + " lanes" + c.label();
        auto dy = cuda::to_device(ctx, c.y0, "y");
        auto ds = cuda::to_device(ctx, c.y0, "y sell");
        cuda::detail::spmv_sell_c16_dict_rows(ctx, dD, std::span<const T>(dx.span()), dy.span(), {}, c.alpha,
                                              c.beta, lanes);
        cuda::detail::spmv_sell_c16_rows(ctx, dS, std::span<const T>(dx.span()), ds.span(), {}, c.alpha,
                                         c.beta, lanes);
        const auto got = cuda::to_host(ctx, dy), sell = cuda::to_host(ctx, ds);
        c.expect_close(got, what);
        for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], sell[i]) << what << ": row " << i;
      }
    }
  }
}

// The device conversion (cuda::to_sell_c16_dict, the table from sell_c16_dict_table) gives the
// host conversion's table and codes; the table given in another order still codes every slot to
// its value; a table missing a value, repeating one or past 256 values is an error.
TYPED_TEST(SellC16DictGpu, DeviceConversionEqualsTheHostConversion) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto cases = dict_cases<T>(seed);

  for (const auto& [name, A] : cases) {
    SCOPED_TRACE(name);
    const SellC16Dict<T> want = to_sell_c16_dict(A);
    const auto dA = cuda::upload(ctx, A);
    const std::vector<T> table = sell_c16_dict_table(std::span<const T>(A.values));
    ASSERT_TRUE(test::same_bits(table, want.table));
    // From 32- and from 64-bit row offsets: the same arrays.
    for (const auto& got :
         {cuda::to_sell_c16_dict(ctx, dA, std::span<const T>(table)),
          cuda::to_sell_c16_dict(ctx, cuda::upload_wide(ctx, A), std::span<const T>(table))}) {
      EXPECT_EQ(got.slots, want.sell.slots());
      EXPECT_EQ(got.nnz, want.sell.nnz());
      EXPECT_EQ(got.bytes(), cuda::upload_sell_c16_dict(ctx, want).bytes());
      EXPECT_TRUE(cuda::to_host(ctx, std::span<const int64_t>(got.slice_ptr.span())) == want.sell.slice_ptr);
      EXPECT_TRUE(cuda::to_host(ctx, std::span<const int32_t>(got.base.span())) == want.sell.base);
      EXPECT_TRUE(cuda::to_host(ctx, std::span<const uint16_t>(got.offsets.span())) == want.sell.offsets);
      EXPECT_TRUE(cuda::to_host(ctx, std::span<const uint8_t>(got.codes.span())) == want.codes);
    }
    if (table.size() < 2) continue;
    // Reversed: every real slot's code now names the same value at its new place.
    const std::vector<T> reversed(table.rbegin(), table.rend());
    const auto rev = cuda::to_sell_c16_dict(ctx, dA, std::span<const T>(reversed));
    const auto codes = cuda::to_host(ctx, std::span<const uint8_t>(rev.codes.span()));
    const SellC16<T>& S = want.sell;
    for (int64_t sl = 0; sl < S.slices(); ++sl) {
      const int64_t width = (S.slice_ptr[sl + 1] - S.slice_ptr[sl]) / kSellC16SliceRows;
      for (int64_t i = 0; i < kSellC16SliceRows; ++i) {
        const int64_t r = sl * kSellC16SliceRows + i;
        for (int64_t j = 0; j < width; ++j) {
          const auto k = static_cast<std::size_t>(S.slice_ptr[sl] + j * kSellC16SliceRows + i);
          const bool real = r < S.rows && S.base[r] >= 0 && (j == 0 || S.offsets[k] != 0);
          const std::size_t expect = real ? table.size() - 1 - want.codes[k] : 0;  // padding: code 0
          ASSERT_EQ(codes[k], expect) << "slot " << k << " of row " << r;
        }
      }
    }
    // A value missing from the table, a repeated value, too many values.
    const std::vector<T> missing(table.begin() + 1, table.end());
    test::expect_error([&] { (void)cuda::to_sell_c16_dict(ctx, dA, std::span<const T>(missing)); },
                       "not in the table");
    std::vector<T> repeated = table;
    repeated.push_back(table.front());
    if (repeated.size() <= 256)
      test::expect_error([&] { (void)cuda::to_sell_c16_dict(ctx, dA, std::span<const T>(repeated)); },
                         "are the same value");
  }
  const std::vector<T> too_many(257, T{1});
  test::expect_error(
      [&] {
        (void)cuda::to_sell_c16_dict(ctx, cuda::upload(ctx, cases[0].second), std::span<const T>(too_many));
      },
      "holds 257 values");
}

}  // namespace
}  // namespace spx
