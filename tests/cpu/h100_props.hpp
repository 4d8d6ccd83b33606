// An H100 SXM as cudaGetDeviceProperties describes it (132 SMs, 3352 GB/s on the datasheet), for the
// CPU tests of the rules that read DeviceProps (ELLR-T SpMV, SpMM).
#pragma once

#include "spx/cuda/context.hpp"

namespace spx::test {

inline cuda::DeviceProps h100_props() {
  cuda::DeviceProps d;
  d.name = "H100 (hand-made)";
  d.cc_major = 9;
  d.sm_count = 132;
  d.max_threads_per_sm = 2048;
  d.max_warps_per_sm = 64;
  d.max_blocks_per_sm = 32;
  d.max_threads_per_block = 1024;
  d.mem_bus_bits = 5120;
  d.mem_clock_khz = 2'619'000;
  return d;
}

}  // namespace spx::test
