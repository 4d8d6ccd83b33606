// The right-hand sides `spx cg` takes: ones, random (a fixed splitmix64 sequence, the same on every
// run and every number of GPUs), or a Matrix Market n × 1 file.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "spx/error.hpp"
#include "spx/io.hpp"

namespace spx::cli {

template <class T>
std::vector<T> make_rhs(const std::string& rhs, int64_t n) {
  std::vector<T> b(static_cast<std::size_t>(n));
  if (rhs == "ones") {
    std::fill(b.begin(), b.end(), T{1});
  } else if (rhs == "random") {
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (auto& v : b) {  // splitmix64, uniform in [-1, 1)
      uint64_t z = (state += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      v = static_cast<T>(static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0);
    }
  } else {
    const auto B = read_matrix_market<T, int32_t>(rhs);
    if (B.rows != n || B.cols != 1)
      throw Error(fmt::format("{}: the right-hand side is {} x {}; need {} x 1", rhs, B.rows, B.cols, n));
    std::fill(b.begin(), b.end(), T{0});
    for (int32_t r = 0; r < B.rows; ++r)
      for (int32_t k = B.row_ptr[r]; k < B.row_ptr[r + 1]; ++k) b[static_cast<std::size_t>(r)] = B.values[k];
  }
  return b;
}

}  // namespace spx::cli
