// splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014):
// the one copy of its constants in spx. Internal host code, constexpr; used by the structure
// fingerprint (src/matrix/stats.cpp), the generators' random streams (src/generate/random.hpp) and
// the benchmark's inputs (bench/engine.cpp), and on the device too by the matrix features' sector
// hash (src/plan/features_detail.hpp), which must hash the same on both sides. Changing anything here changes
// every fingerprint, generated matrix and benchmark input: tests/cpu/stats_test.cpp and generate_test.cpp pin
// them.
#pragma once

#include <cstdint>

#include "cuda/common/host_device.hpp"

namespace spx::detail {

// The generator's increment: 2^64 / golden ratio, odd.
inline constexpr uint64_t kSplitmix64Gamma = 0x9e3779b97f4a7c15ULL;

// The output function (Stafford's "Mix13" variant): a bijection on 64 bits with full avalanche.
SPX_HOST_DEVICE constexpr uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The value the generator outputs when its state steps onto `state + gamma`: a stateless hash of
// `state`, so element i of a stream can be computed without the elements before it.
constexpr uint64_t splitmix64(uint64_t state) { return splitmix64_mix(state + kSplitmix64Gamma); }

// One step of the sequential generator: advance `state`, return its output.
constexpr uint64_t splitmix64_next(uint64_t& state) { return splitmix64_mix(state += kSplitmix64Gamma); }

}  // namespace spx::detail
