// Matrices that exercise CsrC16 (spx/csr_c16.hpp), shared by its CPU and GPU tests: narrow rows
// (banded), wide rows (span > 65535: the escape part), empty rows, one huge row, odd sizes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "spx/matrix.hpp"
#include "test_support.hpp"

namespace spx::test {

// Row r holds up to `len` random columns within `half_band` of its diagonal position (scaled to
// cols), a `wide_every`-th row (0: none) also its first and last column of the matrix (span
// cols - 1), a share `empty_fraction` of rows is empty. Canonical.
template <class T>
Csr<T, int32_t> c16_banded(int32_t rows, int32_t cols, int32_t half_band, int32_t len, uint64_t seed,
                           double empty_fraction = 0.0, int32_t wide_every = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0), coin(0.0, 1.0);
  Csr<T, int32_t> A(rows, cols);
  for (int32_t r = 0; r < rows; ++r) {
    std::set<int64_t> picked;
    if (coin(rng) >= empty_fraction && cols > 0) {
      const int64_t centre = rows > 1 ? int64_t{r} * (cols - 1) / (rows - 1) : 0;
      const int64_t lo = std::max<int64_t>(0, centre - half_band),
                    hi = std::min<int64_t>(cols - 1, centre + half_band);
      std::uniform_int_distribution<int64_t> col(lo, hi);
      const int64_t n = std::min<int64_t>(len, hi - lo + 1);
      while (static_cast<int64_t>(picked.size()) < n) picked.insert(col(rng));
      if (wide_every > 0 && r % wide_every == 0) {
        picked.insert(0);
        picked.insert(cols - 1);
      }
    }
    for (int64_t c : picked) {
      A.col_idx.push_back(static_cast<int32_t>(c));
      A.values.push_back(static_cast<T>(val(rng)));
    }
    A.row_ptr[r + 1] = static_cast<int32_t>(A.col_idx.size());
  }
  return A;
}

// A with row r replaced by `len` entries: contiguous from column `first` (narrow when len <= 65536)
// or, when `spread`, spaced evenly over all columns (wide).
template <class T>
Csr<T, int32_t> c16_with_huge_row(const Csr<T, int32_t>& A, int32_t r, int32_t len, int32_t first,
                                  bool spread) {
  Csr<T, int32_t> B(A.rows, A.cols);
  for (int32_t i = 0; i < A.rows; ++i) {
    if (i == r) {
      for (int32_t k = 0; k < len; ++k) {
        const int64_t c = spread ? int64_t{k} * (A.cols - 1) / std::max(1, len - 1) : int64_t{first} + k;
        if (c >= A.cols) continue;  // strictly increasing otherwise (len <= cols when spread)
        B.col_idx.push_back(static_cast<int32_t>(c));
        B.values.push_back(static_cast<T>(0.5 + 0.25 * (k % 3)));
      }
    } else {
      B.col_idx.insert(B.col_idx.end(), A.col_idx.begin() + A.row_ptr[i],
                       A.col_idx.begin() + A.row_ptr[i + 1]);
      B.values.insert(B.values.end(), A.values.begin() + A.row_ptr[i], A.values.begin() + A.row_ptr[i + 1]);
    }
    B.row_ptr[i + 1] = static_cast<int32_t>(B.col_idx.size());
  }
  return B;
}

template <class T>
struct C16Case {
  std::string name;
  Csr<T, int32_t> A;
};

// The suite: every case a CsrC16 kernel must get right.
template <class T>
std::vector<C16Case<T>> c16_cases(uint64_t seed) {
  std::vector<C16Case<T>> c;
  c.push_back({"odd sizes, empty rows", random_csr<T, int32_t>(133, 97, 0, 9, seed + 1, 0.25)});
  c.push_back({"all empty", random_csr<T, int32_t>(45, 37, 0, 0, seed + 2)});
  c.push_back({"1 x n", random_csr<T, int32_t>(1, 77, 0, 77, seed + 3)});
  c.push_back({"banded, narrow", c16_banded<T>(2001, 300007, 30000, 12, seed + 4, 0.1)});
  c.push_back({"banded, some wide rows", c16_banded<T>(3001, 200003, 20000, 9, seed + 5, 0.1, 7)});
  c.push_back({"all escape", c16_banded<T>(517, 70001, 100, 5, seed + 6, 0.0, 1)});
  c.push_back({"span exactly 65535", c16_banded<T>(64, 65536, 40, 3, seed + 7, 0.0, 1)});
  c.push_back({"span 65536", c16_banded<T>(64, 65537, 40, 3, seed + 8, 0.0, 1)});
  c.push_back({"one huge narrow row", c16_with_huge_row(c16_banded<T>(1031, 150001, 500, 6, seed + 9, 0.2),
                                                        517, 65536, 70000, false)});
  c.push_back({"one huge wide row",
               c16_with_huge_row(c16_banded<T>(1031, 150001, 500, 6, seed + 10, 0.2), 3, 20011, 0, true)});
  return c;
}

}  // namespace spx::test
