// Matrices that exercise SellC16 (spx/sell_c16.hpp), shared by its CPU and GPU tests: every row
// spans at most 65535 columns (the format has no escape path). Odd row counts (a partial last
// slice), empty rows, span exactly 65535, one huge row (a slice 65536 slots wide), stencils, FEM-like
// and banded rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csr_c16_cases.hpp"
#include "spx/generate.hpp"
#include "spx/matrix.hpp"
#include "test_support.hpp"

namespace spx::test {

template <class T>
std::vector<C16Case<T>> sell_c16_cases(uint64_t seed) {
  std::vector<C16Case<T>> c;
  c.push_back({"odd sizes, empty rows", random_csr<T, int32_t>(133, 97, 0, 9, seed + 1, 0.25)});
  c.push_back({"all empty", random_csr<T, int32_t>(45, 37, 0, 0, seed + 2)});
  c.push_back({"1 x n", random_csr<T, int32_t>(1, 77, 0, 77, seed + 3)});
  c.push_back({"31 rows, half empty", random_csr<T, int32_t>(31, 500, 0, 40, seed + 4, 0.5)});
  c.push_back({"banded, narrow", c16_banded<T>(2001, 300007, 30000, 12, seed + 5, 0.1)});
  c.push_back({"span exactly 65535", c16_banded<T>(65, 65536, 40, 3, seed + 6, 0.0, 1)});
  c.push_back({"one huge row", c16_with_huge_row(c16_banded<T>(1031, 150001, 500, 6, seed + 7, 0.2), 517,
                                                 65536, 70000, false)});
  c.push_back({"stencil 2d 5pt 37x41", gen::stencil_2d_5pt<T, int32_t>(37, 41)});
  c.push_back({"stencil 3d 7pt 13x17x19", gen::stencil_3d_7pt<T, int32_t>(13, 17, 19)});
  c.push_back({"stencil 3d 27pt 11x13x15", gen::stencil_3d_27pt<T, int32_t>(11, 13, 15)});
  c.push_back({"fem-like 5003 rows of ~27", gen::fem_like<T, int32_t>(5003, 27, seed + 8)});
  c.push_back({"banded 4099, half band 60", gen::banded<T, int32_t>(4099, 60, 0.3, seed + 9)});
  return c;
}

}  // namespace spx::test
