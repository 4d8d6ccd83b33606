// FEM-like matrices: what assembling elements on a numbered 3-D mesh produces.
//
// Model: the mesh has N nodes, numbered as a g x g x g grid would be (g = cube root of N), each
// node carries d unknowns (d = 1 for scalar problems, d = 3 for elasticity-like ones when the
// requested row length is 27 or more), and node i couples to nodes i ± o for the first m
// "closest" grid offsets o = dx + g dy + g^2 dz (|dx|, |dy|, |dz| <= 2, ordered by distance), plus
// the next offset for a random fraction q of node pairs. Every coupling is a dense d x d block,
// so a row is a handful of runs of consecutive columns spread over a band of width ~2 g^2 d,
// like an RCM-ordered 3-D mesh. Each row has d (1 + 2m) or d (1 + 2m + 1 or 2) entries;
// m and q are chosen so the mean is exactly row_len away from the first/last g^2 nodes.
//
// The pattern is symmetric (the coupling of a pair is decided once, by the lower node), values
// are symmetric (hash of the unordered pair) and the diagonal is 1 + sum of |off-diagonals|:
// strictly diagonally dominant, hence SPD, so CG tests can use it.
#include <algorithm>
#include <cmath>
#include <vector>

#include "build.hpp"
#include "random.hpp"
#include "spx/generate.hpp"

namespace spx::gen {
namespace {

constexpr std::string_view kName = "fem_like";
constexpr int64_t kMaxNodeNeighbours = 125;  // the 5 x 5 x 5 neighbourhood
constexpr int64_t kMaxRowLen = 3 * kMaxNodeNeighbours;

// Offsets from a node to a neighbour node, ascending, with a flag for the one offset that
// couples only a fraction of node pairs.
struct NodeOffset {
  int64_t offset;
  bool partial;
};

// Largest g with g^3 <= n, in integers (std::cbrt may round differently between platforms).
int64_t integer_cube_root(int64_t n) {
  int64_t g = 0;
  while ((g + 1) * (g + 1) * (g + 1) <= n) ++g;
  return g;
}

std::vector<NodeOffset> node_offsets(int64_t grid_side, int64_t full, bool with_partial) {
  struct Candidate {
    int64_t distance2, offset;
  };
  std::vector<Candidate> positive;
  for (int64_t dz = -2; dz <= 2; ++dz)
    for (int64_t dy = -2; dy <= 2; ++dy)
      for (int64_t dx = -2; dx <= 2; ++dx) {
        // With grid_side >= 5 every offset is distinct and its sign is that of (dz, dy, dx).
        const int64_t offset = dx + grid_side * (dy + grid_side * dz);
        if (offset > 0) positive.push_back({dx * dx + dy * dy + dz * dz, offset});
      }
  std::sort(positive.begin(), positive.end(), [](const Candidate& a, const Candidate& b) {
    return a.distance2 != b.distance2 ? a.distance2 < b.distance2 : a.offset < b.offset;
  });
  std::vector<NodeOffset> offsets{{0, false}};
  for (int64_t k = 0; k < full; ++k) {
    offsets.push_back({positive[k].offset, false});
    offsets.push_back({-positive[k].offset, false});
  }
  if (with_partial) {
    offsets.push_back({positive[full].offset, true});
    offsets.push_back({-positive[full].offset, true});
  }
  std::sort(offsets.begin(), offsets.end(),
            [](const NodeOffset& a, const NodeOffset& b) { return a.offset < b.offset; });
  return offsets;
}

}  // namespace

template <class T, class I>
Csr<T, I> fem_like(I rows, I row_len, uint64_t seed) {
  detail::require(rows >= 0, kName, "rows", rows, "must be >= 0");
  detail::require(row_len >= 1 && row_len <= kMaxRowLen, kName, "row_len (len)", row_len,
                  "must be in 1..375 (9..81 are typical of P1..P4 elements)");
  detail::require(rows == 0 || row_len <= rows, kName, "row_len (len)", row_len,
                  fmt::format("must be <= rows = {} (the matrix is rows x rows)", rows));
  detail::require_fits<I>(detail::checked_mul(rows, row_len, kName, "nnz"), kName,
                          "expected nnz (rows*row_len)");

  const int64_t n_rows = rows, target = row_len;
  const int64_t dofs = target >= 27 ? 3 : 1;
  const int64_t nodes = (n_rows + dofs - 1) / dofs;
  // Mean nodes per row t = target / dofs = 1 + 2 full + 2 q: q = remainder / (2 dofs) exactly.
  const int64_t full = (target - dofs) / (2 * dofs);
  const int64_t remainder = (target - dofs) % (2 * dofs);
  const detail::Chance couple_partial(static_cast<double>(remainder) / static_cast<double>(2 * dofs));
  const std::vector<NodeOffset> offsets =
      node_offsets(std::max<int64_t>(5, integer_cube_root(nodes)), full, remainder > 0);

  const uint64_t pattern_key = detail::stream_key(seed, detail::Salt::Pattern);
  const uint64_t value_key = detail::stream_key(seed, detail::Salt::Values);
  const auto coupled = [&](int64_t node, const NodeOffset& o) {
    const int64_t other = node + o.offset;
    if (other < 0 || other >= nodes) return false;
    if (!o.partial) return true;
    return couple_partial(detail::hash_index(pattern_key, static_cast<uint64_t>(std::min(node, other))));
  };
  const auto first_row = [&](int64_t node) { return node * dofs; };
  const auto end_row = [&](int64_t node) { return std::min(node * dofs + dofs, n_rows); };

  Csr<T, I> A = detail::empty_shape<T, I>(n_rows, n_rows, kName);
  const bool threads = detail::worth_threads(n_rows * target);
#pragma omp parallel for if (threads) schedule(static)
  for (int64_t node = 0; node < nodes; ++node) {
    int64_t length = 0;
    for (const NodeOffset& o : offsets)
      if (coupled(node, o)) length += end_row(node + o.offset) - first_row(node + o.offset);
    for (int64_t r = first_row(node); r < end_row(node); ++r) A.row_ptr[r + 1] = static_cast<I>(length);
  }
  detail::lengths_to_offsets(A, kName);

#pragma omp parallel for if (threads) schedule(static)
  for (int64_t node = 0; node < nodes; ++node) {
    for (int64_t row = first_row(node); row < end_row(node); ++row) {
      const int64_t begin = A.row_ptr[row];
      int64_t k = begin, diagonal_at = begin;
      double off_diagonal_sum = 0;
      for (const NodeOffset& o : offsets) {
        if (!coupled(node, o)) continue;
        for (int64_t col = first_row(node + o.offset); col < end_row(node + o.offset); ++col, ++k) {
          A.col_idx[k] = static_cast<I>(col);
          if (col == row) {
            diagonal_at = k;
            continue;
          }
          const double v =
              detail::symmetric_value(value_key, static_cast<uint64_t>(row), static_cast<uint64_t>(col));
          A.values[k] = static_cast<T>(v);
          off_diagonal_sum += std::abs(v);
        }
      }
      A.values[diagonal_at] = static_cast<T>(1.0 + off_diagonal_sum);
    }
  }
  return A;
}

template Csr<float, int32_t> fem_like<float, int32_t>(int32_t, int32_t, uint64_t);
template Csr<float, int64_t> fem_like<float, int64_t>(int64_t, int64_t, uint64_t);
template Csr<double, int32_t> fem_like<double, int32_t>(int32_t, int32_t, uint64_t);
template Csr<double, int64_t> fem_like<double, int64_t>(int64_t, int64_t, uint64_t);

}  // namespace spx::gen
