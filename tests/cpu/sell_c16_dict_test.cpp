// SELL-C16 with a value dictionary (spx/sell_c16_dict.hpp): the distinct-value count, the
// conversion both ways, the checks, the reference against SELL-C16's (bitwise), and the planner's
// eligibility.
#include "spx/sell_c16_dict.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"
#include "spx/plan.hpp"
#include "spx/stats.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

// A random matrix whose values are drawn from `distinct` values (bitwise different), odd sizes,
// empty rows and one long row.
Csr<double, int32_t> with_values(int distinct, uint64_t seed) {
  auto A =
      gen::generate<double, int32_t>("random:rows=1003,cols=997,len=9,seed=" + std::to_string(seed % 1000));
  std::mt19937_64 rng(seed);
  std::vector<double> pool(static_cast<std::size_t>(distinct));
  for (int i = 0; i < distinct; ++i) pool[static_cast<std::size_t>(i)] = 0.5 + i;
  std::uniform_int_distribution<int> pick(0, distinct - 1);
  for (double& v : A.values) v = pool[static_cast<std::size_t>(pick(rng))];
  return A;
}

TEST(SellC16Dict, CountsDistinctValuesBitwiseUpToTheLimit) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> v = {1.0, 0.0, -0.0, 1.0, nan, nan, 2.0};
  EXPECT_EQ(distinct_values_upto(std::span<const double>(v), 256), 5);  // 1, 0, -0, NaN, 2
  EXPECT_EQ(distinct_values_upto(std::span<const double>(v), 3), 4);    // more than 3
  std::vector<float> many(100000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<float>(i % 256);
  EXPECT_EQ(distinct_values_upto(std::span<const float>(many)), 256);
  many[77777] = 1000.0f;
  EXPECT_EQ(distinct_values_upto(std::span<const float>(many)), 257);
  EXPECT_EQ(distinct_values_upto(std::span<const float>()), 0);
}

// The table is built from chunks of 2^20 values scanned in parallel and merged in chunk order: its
// order must be the serial first-appearance order whatever the threads, values first seen in later
// chunks included, and the count must stop at 257 in any chunk.
TEST(SellC16Dict, TableOrderIsFirstAppearanceAcrossChunksAndThreads) {
  const std::size_t n = (std::size_t{1} << 20) * 3 + 12345;
  std::vector<double> v(n, 7.0);
  std::mt19937_64 rng(11);
  for (int k = 0; k < 200; ++k) v[rng() % n] = 100.0 + k % 150;  // some first seen late, repeated
  v[n - 1] = -3.0;                                               // first seen in the last chunk
  std::vector<double> want;
  for (const double x : v)
    if (std::find(want.begin(), want.end(), x) == want.end()) want.push_back(x);
  ASSERT_LE(want.size(), 256u);
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    EXPECT_EQ(sell_c16_dict_table(std::span<const double>(v)), want) << threads << " threads";
    EXPECT_EQ(distinct_values_upto(std::span<const double>(v)), static_cast<int64_t>(want.size()));
  }
  for (int k = 0; k < 300; ++k)
    v[(std::size_t{1} << 21) + 5 + static_cast<std::size_t>(k)] = 1e6 + k;  // chunk 2
  EXPECT_EQ(distinct_values_upto(std::span<const double>(v)), 257);
  EXPECT_THROW((void)sell_c16_dict_table(std::span<const double>(v)), Error);
  omp_set_num_threads(saved);
}

// The planner's sample of a large matrix's values: exact below kDistinctSampleAll values, a count
// past the limit exact (the sample alone holds that many), a value only outside the sample missed
// (what the dictionary conversions then refuse: GpuConvert tests).
TEST(SellC16Dict, SampledCountIsExactPastTheLimitAndMayMissRareValues) {
  bool sampled = true;
  std::vector<double> small(static_cast<std::size_t>(kDistinctSampleAll), 2.0);
  small.back() = 3.0;
  EXPECT_EQ(distinct_values_first_sampled(std::span<const double>(small), sampled).size(), 2u);
  EXPECT_FALSE(sampled);
  const std::size_t n = std::size_t{3} << 20;
  std::vector<double> v(n);
  std::mt19937_64 rng(test::fresh_seed());
  for (double& x : v) x = static_cast<double>(rng() % 100000);
  EXPECT_EQ(distinct_values_first_sampled(std::span<const double>(v), sampled).size(), 257u);
  EXPECT_TRUE(sampled);
  std::fill(v.begin(), v.end(), -1.0);
  for (std::size_t i = 0; i < n; i += 27) v[i] = 26.0;  // a stencil's two values, everywhere
  const auto two = distinct_values_first_sampled(std::span<const double>(v), sampled);
  EXPECT_EQ(two, (std::vector<double>{26.0, -1.0}));
  v[static_cast<std::size_t>(kDistinctSampleHead + kDistinctSampleChunk) + 5] = 9.0;  // between two runs
  EXPECT_EQ(distinct_values_first_sampled(std::span<const double>(v), sampled).size(), 2u);
  EXPECT_EQ(distinct_values_upto(std::span<const double>(v)), 3);
}

// The front door's host extras count the values once and keep them as the table (bit patterns in
// first-appearance order), so the conversion needs no second pass; none are kept past 256. The
// setup estimate then has no host pass in it.
TEST(SellC16Dict, HostExtrasKeepTheTableTheyCounted) {
  for (int distinct : {1, 2, 200, 300}) {
    const auto A = with_values(distinct, 5 + static_cast<uint64_t>(distinct));
    plan::HostExtras extras;
    plan::Problem p;
    p.op = plan::Operation::Spmv;
    p.value_bytes = 8;
    p.stats = stats(A);
    plan::fill_host_extras(A, extras, p);
    ASSERT_TRUE(p.distinct_values.has_value());
    const std::vector<double> first = distinct_values_first(std::span<const double>(A.values), 256);
    EXPECT_EQ(*p.distinct_values, static_cast<int64_t>(first.size()));
    if (distinct > 256) {
      EXPECT_EQ(*p.distinct_values, 257);
      EXPECT_TRUE(extras.value_table_bits.empty());
      continue;
    }
    const std::vector<double> table = sell_c16_dict_table(std::span<const double>(A.values));
    ASSERT_EQ(extras.value_table_bits.size(), table.size()) << distinct;
    for (std::size_t i = 0; i < table.size(); ++i) {
      double v;
      std::memcpy(&v, &extras.value_table_bits[i], sizeof v);
      EXPECT_EQ(v, table[i]) << i;
    }
  }
}

TEST(SellC16Dict, RoundTripAndReferenceEqualSellC16Bitwise) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const int distinct : {1, 2, 17, 256}) {
    const auto A = with_values(distinct, seed + static_cast<uint64_t>(distinct));
    const SellC16Dict<double> D = to_sell_c16_dict(A);
    D.validate();
    EXPECT_EQ(static_cast<int>(D.table.size()), distinct);
    EXPECT_EQ(D.codes.empty(), distinct == 1);
    const auto back = to_csr(D);
    EXPECT_EQ(back.row_ptr, A.row_ptr);
    EXPECT_EQ(back.col_idx, A.col_idx);
    EXPECT_EQ(back.values, A.values);
    const auto x = test::random_vector<double>(static_cast<std::size_t>(A.cols), seed);
    std::vector<double> want(static_cast<std::size_t>(A.rows)), got(want.size());
    ref::spmv(D.sell, std::span<const double>(x), std::span<double>(want), -1.5, 0.0);
    ref::spmv(D, std::span<const double>(x), std::span<double>(got), -1.5, 0.0);
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << "distinct " << distinct << " row " << i;
    // Bytes: 2 (offset) + 1 (code, none for one value) a slot, against SELL-C16's 2 + 8.
    EXPECT_LT(D.stream_bytes(), D.sell.bytes());
  }
  // A stencil: two values, so one code a slot.
  const auto S = gen::generate<double, int32_t>("stencil27:n=9");
  EXPECT_EQ(to_sell_c16_dict(S).table.size(), 2u);
}

TEST(SellC16Dict, RefusesAndCatchesCorruption) {
  EXPECT_THROW((void)to_sell_c16_dict(with_values(257, 5)), Error);
  try {
    (void)to_sell_c16_dict(with_values(300, 6));
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 256 distinct values"), std::string::npos) << e.what();
  }
  SellC16Dict<double> D = to_sell_c16_dict(with_values(3, 7));
  auto bad = D;
  bad.codes[0] = 3;  // past the table
  EXPECT_THROW(bad.validate(), Error);
  bad = D;
  bad.table[1] = bad.table[0];  // the same value twice
  EXPECT_THROW(bad.validate(), Error);
  bad = D;
  std::swap(bad.table[0], bad.table[1]);  // codes no longer name the slots' values
  EXPECT_THROW(bad.validate(), Error);
  bad = D;
  bad.codes.clear();  // codes are needed with three values
  EXPECT_THROW(bad.validate(), Error);
}

TEST(SellC16Dict, PlannerNeedsFewValuesAndTheCount) {
  const auto A = gen::generate<double, int32_t>("stencil27:n=12");
  plan::Problem p;
  p.stats = stats(A);
  p.value_bytes = 8;
  p.column_spans = column_span_stats(A);
  p.features = features(A);
  const auto find = [](const std::vector<plan::Candidate>& c) {
    for (const auto& x : c)
      if (x.kernel == "sell_c16_dict") return x;
    throw Error("no sell_c16_dict candidate");
  };
  const std::size_t plenty = std::size_t{1} << 40;
  plan::Candidate c = find(plan::candidates(p, {}, {}, plenty));
  EXPECT_FALSE(c.eligible);
  EXPECT_NE(c.why_not.find("distinct values"), std::string::npos) << c.why_not;
  p.distinct_values = 2;
  c = find(plan::candidates(p, {}, {}, plenty));
  EXPECT_TRUE(c.eligible) << c.why_not;
  // Its device bytes: 3 a slot with two values, far below SELL-C16's 10.
  plan::Candidate sell = plan::candidates(p, {}, {}, plenty)[0];
  for (const auto& x : plan::candidates(p, {}, {}, plenty))
    if (x.kernel == "sell_c16") sell = x;
  EXPECT_LT(static_cast<double>(c.extra_bytes), 0.4 * static_cast<double>(sell.extra_bytes));
  p.distinct_values = 257;
  c = find(plan::candidates(p, {}, {}, plenty));
  EXPECT_FALSE(c.eligible);
  EXPECT_NE(c.why_not.find("more than 256"), std::string::npos) << c.why_not;
}

}  // namespace
}  // namespace spx
