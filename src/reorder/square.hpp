// Internal checks shared by the reorder functions: a valid square CSR, vectors of its size.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>

#include "spx/error.hpp"
#include "spx/matrix.hpp"

namespace spx::reorder::detail {

// Validates A and refuses a non-square one: "rcm: the matrix is 3 x 4; reordering needs a square matrix".
template <class T, class I>
void require_square(const Csr<T, I>& A, std::string_view what) {
  A.validate();
  if (A.rows != A.cols)
    throw Error(fmt::format("{}: the matrix is {} x {}; reordering needs a square matrix", what,
                            static_cast<int64_t>(A.rows), static_cast<int64_t>(A.cols)));
}

inline void require_length(std::size_t got, int64_t n, std::string_view what) {
  if (static_cast<int64_t>(got) != n)
    throw Error(fmt::format("{}: the vector has {} entries, the permutation {}", what, got, n));
}

}  // namespace spx::reorder::detail
