// Powers of two, for the kernels' parameters (threads per row, columns per pass) and the rules that
// choose them. Host code, constexpr.
#pragma once

#include <cstdint>

namespace spx::detail {

constexpr bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// The smallest power of two >= n (1 for n <= 1), at most 2^30.
constexpr int next_pow2(int64_t n) {
  int p = 1;
  while (p < n && p < (1 << 30)) p *= 2;
  return p;
}

}  // namespace spx::detail
