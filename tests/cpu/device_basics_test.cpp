// The one device description of the model, the planner and the rules (model::DeviceBasics): unset
// DeviceProps fields take the H100 SXM's figures, set ones are kept, and the rules' streaming
// bandwidth is 90% of the datasheet figure, or the H100's 3000 GB/s without clocks.
#include <gtest/gtest.h>

#include "h100_props.hpp"
#include "spx/model.hpp"
#include "spx/plan/rules.hpp"

namespace {

using spx::cuda::DeviceProps;
using spx::model::DeviceBasics;

TEST(DeviceBasics, UnsetFieldsTakeTheH100Figures) {
  const DeviceBasics d = spx::model::device_basics(DeviceProps{});
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.threads_per_sm, 2048);
  EXPECT_EQ(d.blocks_per_sm, 32);
  EXPECT_EQ(d.threads_per_block, 1024);
  EXPECT_EQ(d.l2_bytes, int64_t{50} << 20);
  EXPECT_DOUBLE_EQ(spx::plan::streaming_gbs(DeviceProps{}), 3000.0);
  EXPECT_EQ(spx::plan::resident_threads(DeviceProps{}), 132 * 2048);
}

TEST(DeviceBasics, SetFieldsAreKeptAndRoundTripThroughDeviceProps) {
  DeviceProps p;
  p.name = "small";
  p.sm_count = 20;
  p.max_threads_per_sm = 1536;
  p.max_blocks_per_sm = 16;
  p.max_threads_per_block = 512;
  p.l2_bytes = std::size_t{4} << 20;
  const DeviceBasics d = spx::model::device_basics(p);
  EXPECT_EQ(d.name, "small");
  EXPECT_EQ(d.sm_count, 20);
  EXPECT_EQ(d.threads_per_sm, 1536);
  EXPECT_EQ(d.blocks_per_sm, 16);
  EXPECT_EQ(d.threads_per_block, 512);
  EXPECT_EQ(d.l2_bytes, int64_t{4} << 20);
  const DeviceProps back = spx::model::device_props(d);
  EXPECT_EQ(back.max_threads_per_block, 512);
  EXPECT_EQ(spx::model::device_basics(back).l2_bytes, d.l2_bytes);
}

TEST(DeviceBasics, StreamingBandwidthIsNinetyPercentOfTheDatasheet) {
  const DeviceProps h100 = spx::test::h100_props();
  EXPECT_NEAR(h100.theoretical_bandwidth_gbs(), 3352.3, 0.1);
  EXPECT_DOUBLE_EQ(spx::plan::streaming_gbs(h100), 0.9 * h100.theoretical_bandwidth_gbs());
}

}  // namespace
