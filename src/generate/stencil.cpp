// Finite-difference stencils on structured grids (row r = x + nx * (y + ny * z), Dirichlet
// boundaries: neighbours outside the grid are dropped). Values are the graph Laplacian plus the
// dropped boundary couplings: diagonal = stencil size - 1, off-diagonal = -1, which is symmetric,
// weakly diagonally dominant, strictly so on the boundary, and irreducible, hence SPD.
#include <array>
#include <span>

#include "build.hpp"
#include "spx/generate.hpp"

namespace spx::gen {
namespace {

using detail::checked_add;
using detail::checked_mul;

struct Offset {
  int dx, dy, dz;
};

// Listed in (dz, dy, dx) order, so in-range neighbours come out in increasing column order.
constexpr std::array<Offset, 5> kFivePoint{{{0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}};
constexpr std::array<Offset, 7> kSevenPoint{
    {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
constexpr std::array<Offset, 27> kTwentySevenPoint = [] {
  std::array<Offset, 27> offsets{};
  int k = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) offsets[k++] = {dx, dy, dz};
  return offsets;
}();

struct Grid {
  int64_t nx, ny, nz;
};

Grid checked_grid(std::string_view generator, int64_t nx, int64_t ny, int64_t nz) {
  detail::require(nx >= 1, generator, "nx", nx, "must be >= 1");
  detail::require(ny >= 1, generator, "ny", ny, "must be >= 1");
  detail::require(nz >= 1, generator, "nz", nz, "must be >= 1");
  return {nx, ny, nz};
}

// Exact nnz: each offset contributes one entry per grid point whose neighbour is inside, i.e.
// the product over dimensions of (n_d - |d_d|).
int64_t stencil_nnz(std::string_view generator, const Grid& g, std::span<const Offset> offsets) {
  int64_t nnz = 0;
  for (const Offset& o : offsets) {
    const int64_t ex = g.nx - (o.dx != 0), ey = g.ny - (o.dy != 0), ez = g.nz - (o.dz != 0);
    if (ex <= 0 || ey <= 0 || ez <= 0) continue;
    nnz = checked_add(nnz, checked_mul(checked_mul(ex, ey, generator, "nnz"), ez, generator, "nnz"),
                      generator, "nnz");
  }
  return nnz;
}

// Rows [begin, end) of the stencil matrix (row_ptr relative to the block, global columns).
template <class T, class I>
Csr<T, I> stencil_block(std::string_view generator, const Grid& g, std::span<const Offset> offsets,
                        int64_t begin, int64_t end) {
  const int64_t points = checked_mul(checked_mul(g.nx, g.ny, generator, "rows"), g.nz, generator, "rows");
  detail::require(begin >= 0 && begin <= end && end <= points, generator, "row range", end,
                  "must lie within the grid's points");
  detail::require_fits<I>(points, generator, "rows (nx*ny*nz)");
  const int64_t rows = end - begin;
  Csr<T, I> A = detail::empty_shape<T, I>(rows, points, generator);
  const bool threads = detail::worth_threads(rows * static_cast<int64_t>(offsets.size()));
  const auto inside = [&g](int64_t x, int64_t y, int64_t z, const Offset& o) {
    return x + o.dx >= 0 && x + o.dx < g.nx && y + o.dy >= 0 && y + o.dy < g.ny && z + o.dz >= 0 &&
           z + o.dz < g.nz;
  };
  const auto coordinates = [&g](int64_t row, int64_t& x, int64_t& y, int64_t& z) {
    x = row % g.nx;
    y = row / g.nx % g.ny;
    z = row / (g.nx * g.ny);
  };

#pragma omp parallel for if (threads) schedule(static)
  for (int64_t i = 0; i < rows; ++i) {
    int64_t x, y, z;
    coordinates(begin + i, x, y, z);
    I length = 0;
    for (const Offset& o : offsets) length = static_cast<I>(length + inside(x, y, z, o));
    A.row_ptr[i + 1] = length;
  }
  detail::lengths_to_offsets(A, generator);

  const T diagonal = static_cast<T>(offsets.size() - 1);
  const T off_diagonal = T{-1};
#pragma omp parallel for if (threads) schedule(static)
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t row = begin + i;
    int64_t x, y, z;
    coordinates(row, x, y, z);
    int64_t k = A.row_ptr[i];
    for (const Offset& o : offsets) {
      if (!inside(x, y, z, o)) continue;
      A.col_idx[k] = static_cast<I>(row + o.dx + g.nx * (o.dy + g.ny * o.dz));
      A.values[k] = (o.dx == 0 && o.dy == 0 && o.dz == 0) ? diagonal : off_diagonal;
      ++k;
    }
  }
  return A;
}

template <class T, class I>
Csr<T, I> stencil(std::string_view generator, const Grid& g, std::span<const Offset> offsets) {
  detail::require_fits<I>(stencil_nnz(generator, g, offsets), generator, "nnz");
  return stencil_block<T, I>(generator, g, offsets, 0, g.nx * g.ny * g.nz);
}

}  // namespace

template <class T, class I>
Csr<T, I> stencil_2d_5pt(I nx, I ny) {
  return stencil<T, I>("stencil_2d_5pt", checked_grid("stencil_2d_5pt", nx, ny, 1), kFivePoint);
}

template <class T, class I>
Csr<T, I> stencil_3d_7pt(I nx, I ny, I nz) {
  return stencil<T, I>("stencil_3d_7pt", checked_grid("stencil_3d_7pt", nx, ny, nz), kSevenPoint);
}

template <class T, class I>
Csr<T, I> stencil_3d_27pt(I nx, I ny, I nz) {
  return stencil<T, I>("stencil_3d_27pt", checked_grid("stencil_3d_27pt", nx, ny, nz), kTwentySevenPoint);
}

template <class T>
Csr<T, int64_t> stencil_rows(int points, int64_t nx, int64_t ny, int64_t nz, int64_t begin, int64_t end) {
  const std::string_view name = points == 5   ? "stencil_2d_5pt"
                                : points == 7 ? "stencil_3d_7pt"
                                              : "stencil_3d_27pt";
  detail::require(points == 5 || points == 7 || points == 27, "stencil_rows", "points", points,
                  "must be 5, 7 or 27");
  detail::require(points != 5 || nz == 1, name, "nz", nz, "must be 1 for the 2-D stencil");
  const Grid g = checked_grid(name, nx, ny, nz);
  if (points == 5) return stencil_block<T, int64_t>(name, g, kFivePoint, begin, end);
  if (points == 7) return stencil_block<T, int64_t>(name, g, kSevenPoint, begin, end);
  return stencil_block<T, int64_t>(name, g, kTwentySevenPoint, begin, end);
}
template Csr<float, int64_t> stencil_rows<float>(int, int64_t, int64_t, int64_t, int64_t, int64_t);
template Csr<double, int64_t> stencil_rows<double>(int, int64_t, int64_t, int64_t, int64_t, int64_t);

template Csr<float, int32_t> stencil_2d_5pt<float, int32_t>(int32_t, int32_t);
template Csr<float, int64_t> stencil_2d_5pt<float, int64_t>(int64_t, int64_t);
template Csr<double, int32_t> stencil_2d_5pt<double, int32_t>(int32_t, int32_t);
template Csr<double, int64_t> stencil_2d_5pt<double, int64_t>(int64_t, int64_t);

template Csr<float, int32_t> stencil_3d_7pt<float, int32_t>(int32_t, int32_t, int32_t);
template Csr<float, int64_t> stencil_3d_7pt<float, int64_t>(int64_t, int64_t, int64_t);
template Csr<double, int32_t> stencil_3d_7pt<double, int32_t>(int32_t, int32_t, int32_t);
template Csr<double, int64_t> stencil_3d_7pt<double, int64_t>(int64_t, int64_t, int64_t);

template Csr<float, int32_t> stencil_3d_27pt<float, int32_t>(int32_t, int32_t, int32_t);
template Csr<float, int64_t> stencil_3d_27pt<float, int64_t>(int64_t, int64_t, int64_t);
template Csr<double, int32_t> stencil_3d_27pt<double, int32_t>(int32_t, int32_t, int32_t);
template Csr<double, int64_t> stencil_3d_27pt<double, int64_t>(int64_t, int64_t, int64_t);

}  // namespace spx::gen
