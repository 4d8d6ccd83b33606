// splitmix64's output function (Steele, Lea & Flood 2014), callable on the host and on the device.
//
// The same function as spx::gen::detail::mix64 (src/generate/random.hpp, host only; the CPU tests
// check that they agree). It lives here, __host__ __device__ under nvcc, because the matrix
// features (spx::features and spx::cuda::features) hash x sectors into a bitmap with it and must
// hash the same way on both sides. When the project's one splitmix64 header lands
// (src/common/splitmix64.hpp), this file folds into it.
#pragma once

#include <cstdint>

#include "cuda/common/host_device.hpp"

namespace spx::detail {

// A bijection on 64 bits with full avalanche; mix64(0) == 0.
SPX_HOST_DEVICE constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace spx::detail
