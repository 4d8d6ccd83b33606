// What both MPI rank tests (CPU ranks, GPU ranks) check with: a deterministic test vector, bitwise
// equality, and a rank's block of a vector.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "spx/dist.hpp"

namespace spx::test::mpi_ranks {

template <class T>
std::vector<T> test_vector(int64_t n) {  // no two neighbours equal, of mixed signs and magnitudes
  std::vector<T> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] =
        static_cast<T>(std::sin(0.37 * static_cast<double>(i) + 1.0) * static_cast<double>(1 + i % 7));
  return v;
}

template <class T>
bool same_bits(std::span<const T> a, std::span<const T> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
std::span<const T> block(const std::vector<T>& v, const dist::Partition& p, int r) {
  return std::span<const T>(v).subspan(static_cast<std::size_t>(p.begin[static_cast<std::size_t>(r)]),
                                       static_cast<std::size_t>(p.block_size(r)));
}

}  // namespace spx::test::mpi_ranks
