// spx bench's note for disturbed CPU timings (bench/timing.hpp, disturbed_spread): a median far
// above the minimum says another process was using the cores.
#include <gtest/gtest.h>

#include "bench/timing.hpp"

namespace {

using spx::summarize;
using spx::bench::disturbed_spread;

TEST(BenchSpread, QuietRunsAreNotFlagged) {
  EXPECT_EQ(disturbed_spread(summarize({3.4, 3.5, 3.45, 3.6, 3.5, 3.9})), 0);
}

TEST(BenchSpread, MedianFarAboveMinIsFlagged) {
  // Two thirds of the runs shared the cores with a busy process.
  EXPECT_DOUBLE_EQ(disturbed_spread(summarize({3.4, 3.5, 9.0, 11.0, 12.0, 8.5})), 8.75 / 3.4);
}

TEST(BenchSpread, TooFewRunsOrNoTimeAreNotJudged) {
  EXPECT_EQ(disturbed_spread(summarize({1.0, 5.0, 6.0})), 0);
  EXPECT_EQ(disturbed_spread(summarize({})), 0);
}

}  // namespace
