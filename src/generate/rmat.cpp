// R-MAT graphs (Chakrabarti, Zhan, Faloutsos 2004), the Graph500 generator's ancestor: each edge
// descends `scale` levels of the adjacency matrix, choosing quadrant a (top left), b (top right),
// c (bottom left) or d = 1 - a - b - c at each. Vertices are not permuted (hubs sit at low
// indices, as in the original R-MAT); duplicate edges are merged, self-loops kept.
//
// Memory: edges are generated twice from the same per-chunk streams (once to count row degrees,
// once to scatter columns into their rows) instead of being stored as (row, col) pairs, so the
// only big temporary is the column array itself (edge_factor * 2^scale indices), which becomes
// the result after each row is sorted and deduplicated in place.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <vector>

#include "build.hpp"
#include "random.hpp"
#include "spx/generate.hpp"

namespace spx::gen {
namespace {

constexpr std::string_view kName = "rmat";
constexpr int64_t kEdgesPerChunk = int64_t{1} << 14;  // one random stream per chunk of edges

// Quadrant thresholds on a 32-bit draw (2^-32 resolution is far below any sensible a, b, c).
struct Quadrants {
  uint64_t a, ab, abc;
  Quadrants(double pa, double pb, double pc)
      : a(static_cast<uint64_t>(pa * 0x1.0p32)),
        ab(static_cast<uint64_t>((pa + pb) * 0x1.0p32)),
        abc(static_cast<uint64_t>(std::min(1.0, pa + pb + pc) * 0x1.0p32)) {}
};

// The edges of one chunk, in a fixed order, into rows/cols (resized to the chunk's size).
void generate_chunk(uint64_t key, int64_t chunk, int64_t edges, int scale, const Quadrants& q,
                    std::vector<int64_t>& rows, std::vector<int64_t>& cols) {
  detail::Rng rng(key, static_cast<uint64_t>(chunk));
  const int64_t first = chunk * kEdgesPerChunk, count = std::min(edges - first, kEdgesPerChunk);
  rows.resize(static_cast<std::size_t>(count));
  cols.resize(static_cast<std::size_t>(count));
  for (int64_t e = 0; e < count; ++e) {
    uint64_t row = 0, col = 0, bits = 0;
    for (int level = 0; level < scale; ++level) {
      if (level % 2 == 0) bits = rng.next();  // two 32-bit draws per 64-bit output
      const uint64_t u = (level % 2 == 0) ? (bits & 0xffffffffULL) : (bits >> 32);
      // Quadrants a, b, c, d = (row, col) bits 00, 01, 10, 11; xor of the three comparisons
      // gives the column bit without branches (random branches mispredicted half the time).
      const uint64_t above_a = u >= q.a, above_ab = u >= q.ab, above_abc = u >= q.abc;
      const uint64_t row_bit = above_ab, col_bit = above_a ^ above_ab ^ above_abc;
      row = (row << 1) | row_bit;
      col = (col << 1) | col_bit;
    }
    rows[e] = static_cast<int64_t>(row);
    cols[e] = static_cast<int64_t>(col);
  }
}

}  // namespace

template <class T, class I>
Csr<T, I> rmat(int scale, int edge_factor, double a, double b, double c, uint64_t seed) {
  detail::require(scale >= 1 && scale <= 62, kName, "scale", scale, "must be in 1..62");
  detail::require(edge_factor >= 1, kName, "edge_factor (ef)", edge_factor, "must be >= 1");
  for (const auto& [name, p] : {std::pair{"a", a}, std::pair{"b", b}, std::pair{"c", c}})
    detail::require(std::isfinite(p) && p >= 0 && p <= 1, kName, name, p, "must be in [0, 1]");
  detail::require(a + b + c <= 1 + 1e-12, kName, "a + b + c", fmt::format("{:.6g}", a + b + c),
                  "must be <= 1 (d = 1 - a - b - c)");
  const int64_t vertices = int64_t{1} << scale;
  detail::require_fits<I>(vertices, kName, "rows (2^scale)");
  const int64_t edges = detail::checked_mul(edge_factor, vertices, kName, "edges");
  detail::require_fits<I>(edges, kName, "edges before merging duplicates (edge_factor*2^scale)");
  // Before pass 1: the edges' columns, the row pointers and cursors, at most as many values.
  detail::require_host_memory(static_cast<double>(edges) * (sizeof(I) + sizeof(T)) +
                                  2.0 * static_cast<double>(vertices + 1) * sizeof(I),
                              fmt::format("{}: {} edges", kName, edges));

  const Quadrants quadrants(a, b, c);
  const uint64_t edge_key = detail::stream_key(seed, detail::Salt::Edges);
  const int64_t chunks = (edges + kEdgesPerChunk - 1) / kEdgesPerChunk;
  Csr<T, I> A = detail::empty_shape<T, I>(vertices, vertices, kName);
  const bool threads = detail::worth_threads(edges);

  // Pass 1: row degrees (with duplicates) into row_ptr[row + 1], then offsets.
#pragma omp parallel if (threads)
  {
    std::vector<int64_t> rows, cols;
#pragma omp for schedule(dynamic, 1)
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      generate_chunk(edge_key, chunk, edges, scale, quadrants, rows, cols);
      for (const int64_t row : rows)
        std::atomic_ref<I>(A.row_ptr[row + 1]).fetch_add(I{1}, std::memory_order_relaxed);
    }
  }
  for (int64_t r = 0; r < vertices; ++r) A.row_ptr[r + 1] = static_cast<I>(A.row_ptr[r + 1] + A.row_ptr[r]);

  // Pass 2: scatter columns into their rows (arrival order varies; the sort below fixes it).
  // Slots are claimed for a whole chunk before any column is stored: a locked add waits for
  // earlier stores to drain, so interleaving the two made every cache-missing store serial (6x).
  std::vector<I> cursor(A.row_ptr.begin(), A.row_ptr.end() - 1);
  try {
    A.col_idx.resize(static_cast<std::size_t>(edges));
  } catch (const std::exception&) {  // bad_alloc or length_error
    throw Error(fmt::format("{}: out of host memory for {} edges", kName, edges));
  }
#pragma omp parallel if (threads)
  {
    std::vector<int64_t> rows, cols;
#pragma omp for schedule(dynamic, 1)
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      generate_chunk(edge_key, chunk, edges, scale, quadrants, rows, cols);
      for (int64_t& row : rows)  // row -> its claimed slot
        row = std::atomic_ref<I>(cursor[row]).fetch_add(I{1}, std::memory_order_relaxed);
      for (std::size_t e = 0; e < rows.size(); ++e) A.col_idx[rows[e]] = static_cast<I>(cols[e]);
    }
  }

  // Merge duplicates: sort each row, keep distinct columns; cursor[row] becomes the new length.
#pragma omp parallel for if (threads) schedule(dynamic, 1024)
  for (int64_t row = 0; row < vertices; ++row) {
    const auto begin = A.col_idx.begin() + A.row_ptr[row], end = A.col_idx.begin() + A.row_ptr[row + 1];
    std::sort(begin, end);
    cursor[row] = static_cast<I>(std::unique(begin, end) - begin);
  }
  // Close the gaps left by duplicates (serial: rows move left over each other's old places).
  int64_t nnz = 0;
  for (int64_t row = 0; row < vertices; ++row) {
    const int64_t old_begin = A.row_ptr[row];
    std::copy(A.col_idx.begin() + old_begin, A.col_idx.begin() + old_begin + cursor[row],
              A.col_idx.begin() + nnz);
    A.row_ptr[row] = static_cast<I>(nnz);
    nnz += cursor[row];
  }
  A.row_ptr[vertices] = static_cast<I>(nnz);
  cursor = {};
  A.col_idx.resize(static_cast<std::size_t>(nnz));
  if (A.col_idx.capacity() > A.col_idx.size() + A.col_idx.size() / 4) A.col_idx.shrink_to_fit();
  try {
    A.values.resize(static_cast<std::size_t>(nnz));
  } catch (const std::exception&) {  // bad_alloc or length_error
    throw Error(fmt::format("{}: out of host memory for {} nonzeros", kName, nnz));
  }

  const uint64_t value_key = detail::stream_key(seed, detail::Salt::Values);
#pragma omp parallel for if (threads) schedule(dynamic, 1024)
  for (int64_t row = 0; row < vertices; ++row)
    for (int64_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
      A.values[k] = static_cast<T>(
          detail::entry_value(value_key, static_cast<uint64_t>(row), static_cast<uint64_t>(A.col_idx[k])));
  return A;
}

template Csr<float, int32_t> rmat<float, int32_t>(int, int, double, double, double, uint64_t);
template Csr<float, int64_t> rmat<float, int64_t>(int, int, double, double, double, uint64_t);
template Csr<double, int32_t> rmat<double, int32_t>(int, int, double, double, double, uint64_t);
template Csr<double, int64_t> rmat<double, int64_t>(int, int, double, double, double, uint64_t);

}  // namespace spx::gen
