// FEM matrices with b unknowns per node: the node graph of a structured mesh (2D: 9 neighbours, a
// Q1 element's connectivity; 3D: 27) with every node pair a dense b x b block. Elasticity (b = 2, 3)
// and coupled multi-field problems look like this; BSR stores them with one column index per block.
// Nodes are numbered x fastest, unknowns of a node consecutively.
#include <algorithm>
#include <array>

#include "build.hpp"
#include "random.hpp"
#include "spx/generate.hpp"

namespace spx::gen {
namespace {

constexpr std::string_view kName = "block_fem";

// The neighbour nodes of `node` (itself included), ascending.
int neighbours(int64_t node, int64_t nx, int64_t ny, int64_t nz, std::array<int64_t, 27>& out) {
  const int64_t x = node % nx, y = node / nx % ny, z = node / (nx * ny);
  int n = 0;
  for (int64_t dz = -1; dz <= 1; ++dz)
    for (int64_t dy = -1; dy <= 1; ++dy)
      for (int64_t dx = -1; dx <= 1; ++dx) {
        const int64_t a = x + dx, b = y + dy, c = z + dz;
        if (a >= 0 && a < nx && b >= 0 && b < ny && c >= 0 && c < nz) out[n++] = a + nx * (b + ny * c);
      }
  return n;  // z outermost, x innermost: already ascending
}

}  // namespace

template <class T, class I>
Csr<T, I> block_fem(I nx, I ny, I nz, int b, uint64_t seed) {
  detail::require(nx >= 1, kName, "nx", nx, "must be >= 1");
  detail::require(ny >= 1, kName, "ny", ny, "must be >= 1");
  detail::require(nz >= 1, kName, "nz", nz, "must be >= 1");
  detail::require(b >= 1 && b <= 8, kName, "b", b, "must be in 1..8 (unknowns per node)");
  const int64_t nodes = detail::checked_mul(detail::checked_mul(nx, ny, kName, "nodes"), nz, kName, "nodes");
  const int64_t size = detail::checked_mul(nodes, b, kName, "rows");
  detail::require_fits<I>(size, kName, "rows (nx*ny*nz*b)");
  detail::require_fits<I>(detail::checked_mul(size, int64_t{27} * b, kName, "nnz"), kName,
                          "expected nnz (rows * 27 * b)");
  const uint64_t value_key = detail::stream_key(seed, detail::Salt::Values);

  Csr<T, I> A = detail::empty_shape<T, I>(size, size, kName);
  const bool threads = detail::worth_threads(size * 27 * b);
#pragma omp parallel for schedule(static) if (threads)
  for (int64_t node = 0; node < nodes; ++node) {
    std::array<int64_t, 27> near{};
    const int64_t length = int64_t{neighbours(node, nx, ny, nz, near)} * b;
    for (int i = 0; i < b; ++i) A.row_ptr[node * b + i + 1] = static_cast<I>(length);
  }
  detail::lengths_to_offsets(A, kName);
#pragma omp parallel for schedule(static) if (threads)
  for (int64_t node = 0; node < nodes; ++node) {
    std::array<int64_t, 27> near{};
    const int n = neighbours(node, nx, ny, nz, near);
    for (int i = 0; i < b; ++i) {
      const int64_t row = node * b + i;
      int64_t k = A.row_ptr[row];
      for (int j = 0; j < n; ++j)
        for (int c = 0; c < b; ++c, ++k) {
          const int64_t col = near[j] * b + c;
          A.col_idx[k] = static_cast<I>(col);
          A.values[k] = static_cast<T>(
              detail::entry_value(value_key, static_cast<uint64_t>(row), static_cast<uint64_t>(col)));
        }
    }
  }
  return A;
}

template Csr<float, int32_t> block_fem<float, int32_t>(int32_t, int32_t, int32_t, int, uint64_t);
template Csr<float, int64_t> block_fem<float, int64_t>(int64_t, int64_t, int64_t, int, uint64_t);
template Csr<double, int32_t> block_fem<double, int32_t>(int32_t, int32_t, int32_t, int, uint64_t);
template Csr<double, int64_t> block_fem<double, int64_t>(int64_t, int64_t, int64_t, int, uint64_t);

}  // namespace spx::gen
