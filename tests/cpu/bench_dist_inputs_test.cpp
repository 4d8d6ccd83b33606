// The multi-GPU benchmark's inputs (bench/dist_inputs.hpp): stencil specs generated rank by rank
// give exactly the split of the whole generated matrix; other specs are loaded whole and split by
// nonzeros; the grid of a spec is read with the generator's defaults.
#include <gtest/gtest.h>

#include "bench/dist_inputs.hpp"
#include "bench/inputs.hpp"
#include "spx/dist.hpp"
#include "spx/dist_graph.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/reorder.hpp"

namespace {

using spx::bench::load_distributed;
using spx::bench::resolve_matrix;
using spx::bench::stencil_grid;

TEST(BenchDistInputs, StencilGrids) {
  auto g = stencil_grid(resolve_matrix("stencil27:nx=7,ny=5,nz=3"));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->points, 27);
  EXPECT_EQ(g->rows(), 105);
  g = stencil_grid(resolve_matrix("stencil7:n=4"));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->points, 7);
  EXPECT_EQ(g->rows(), 64);
  g = stencil_grid(resolve_matrix("stencil2d"));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->points, 5);
  EXPECT_EQ(g->rows(), 64 * 64);
  EXPECT_FALSE(stencil_grid(resolve_matrix("rmat:scale=8")));
  // Shuffled: the rows generator would make the unshuffled grid, so it is built whole.
  EXPECT_FALSE(stencil_grid(resolve_matrix("stencil27:n=6,shuffle=3")));
  const auto in = load_distributed<double>(resolve_matrix("stencil2d:n=9,shuffle=5"), 2, true);
  EXPECT_FALSE(in.stencil);
  ASSERT_TRUE(in.whole);
  EXPECT_EQ(in.whole->col_idx, spx::gen::generate<double>("stencil2d:n=9,shuffle=5").col_idx);
}

TEST(BenchDistInputs, RankByRankEqualsTheWholeSplit) {
  const auto in = load_distributed<double>(resolve_matrix("stencil27:nx=9,ny=8,nz=7"), 3, true);
  EXPECT_TRUE(in.stencil);
  EXPECT_FALSE(in.whole);  // never built whole
  const auto A = spx::gen::stencil_3d_27pt<double, int32_t>(9, 8, 7);
  const auto rows = spx::dist::partition_even(A.rows, 3);
  const auto whole = spx::dist::distribute(A, rows, rows);
  ASSERT_EQ(in.D.parts.size(), 3u);
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(in.D.parts[r].local[0].A.col_idx, whole.parts[r].local[0].A.col_idx);
    EXPECT_EQ(in.D.parts[r].remote.values, whole.parts[r].remote.values);
  }
  const auto other = load_distributed<float>(resolve_matrix("rmat:scale=9,ef=4"), 2, true);
  EXPECT_FALSE(other.stencil);
  ASSERT_TRUE(other.whole);
  EXPECT_EQ(other.D.rows, other.whole->rows);
}

// --gpus --partition metis|rcm: the matrix is loaded whole, renumbered and split at the parts.
TEST(BenchDistInputs, RenumberedSplits) {
  const auto src = resolve_matrix("stencil2d:n=30,shuffle=4");
  const auto rows = load_distributed<double>(src, 4, false);
  const auto rcm = load_distributed<double>(src, 4, true, "rcm");
  ASSERT_EQ(rcm.perm.size(), 900u);
  EXPECT_EQ(rcm.perm, spx::reorder::rcm(spx::gen::generate<double>("stencil2d:n=30,shuffle=4")));
  ASSERT_TRUE(rcm.whole);
  EXPECT_EQ(rcm.D.rows, 900);
  EXPECT_LT(spx::dist::statistics(rcm.D).halo_entries * 3, spx::dist::statistics(rows.D).halo_entries);
  EXPECT_TRUE(rows.perm.empty());
  EXPECT_THROW(load_distributed<double>(src, 4, false, "spectral"), spx::Error);
  if (spx::dist::metis_available()) {
    const auto metis = load_distributed<double>(src, 4, false, "metis");
    EXPECT_EQ(metis.perm.size(), 900u);
  }
}

}  // namespace
