#include <gtest/gtest.h>

#include "spx/cuda/device.hpp"

TEST(GpuSmoke, DeviceIsVisible) {
  if (spx::cuda::device_count() == 0) GTEST_SKIP() << spx::cuda::gpu_unavailable_reason();
  EXPECT_GT(spx::cuda::device_count(), 0);
}
