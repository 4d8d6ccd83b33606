// Random row pointers for the CPU tests of tile bookkeeping (segsum_partition_test.cpp,
// spmm_tiles_test.cpp): row lengths only, no columns or values.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace spx::test {

// `rows` rows: empty with probability p_empty, else 1..max_len long; `fixed` sets the length of
// chosen rows (long rows, or empty ones among long).
inline std::vector<int32_t> random_row_ptr(int32_t rows, double p_empty, int max_len, uint64_t seed,
                                           const std::vector<std::pair<int32_t, int>>& fixed = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<int> len(1, max_len);
  std::vector<int32_t> ptr{0};
  for (int32_t r = 0; r < rows; ++r) {
    int n = coin(rng) < p_empty ? 0 : len(rng);
    for (auto [fr, fl] : fixed)
      if (fr == r) n = fl;
    ptr.push_back(ptr.back() + n);
  }
  return ptr;
}

}  // namespace spx::test
