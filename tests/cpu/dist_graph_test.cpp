// The METIS partitioner (spx/dist_graph.hpp): parts become contiguous row blocks of P A Pᵀ, the
// halo shrinks where row blocks of the given numbering are poor, and products agree through the
// permutation. Skips when spx is built without METIS.
#include "spx/dist_graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "spx/cpu.hpp"
#include "spx/dist.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/reorder.hpp"

namespace {

using spx::Csr;

// A 2D mesh numbered at random: contiguous row blocks of it share most columns with other blocks.
Csr<double, int32_t> scrambled_mesh() {
  const auto A = spx::gen::stencil_2d_5pt<double>(40, 40);
  const auto perm = spx::reorder::random_permutation<int32_t>(A.rows, 11);
  return spx::reorder::permute_symmetric(A, std::span<const int32_t>(perm));
}

TEST(DistGraph, PartsAreContiguousBlocksOfAPermutation) {
  if (!spx::dist::metis_available()) GTEST_SKIP() << "built without METIS";
  const auto A = scrambled_mesh();
  const auto g = spx::dist::partition_graph(A, 4);
  spx::reorder::check_permutation(std::span<const int32_t>(g.perm), A.rows);
  ASSERT_EQ(g.rows.ranks(), 4);
  EXPECT_EQ(g.rows.size(), A.rows);
  for (int r = 0; r < 4; ++r) {  // each part keeps its rows' original order
    const auto b = g.perm.begin() + g.rows.begin[static_cast<std::size_t>(r)];
    EXPECT_TRUE(std::is_sorted(b, b + g.rows.block_size(r)));
    EXPECT_GT(g.rows.block_size(r), 0);
  }
  EXPECT_GT(g.edge_cut, 0);
  EXPECT_EQ(spx::dist::partition_graph(A, 4).perm, g.perm);  // deterministic
  const auto one = spx::dist::partition_graph(A, 1);
  std::vector<int32_t> identity(static_cast<std::size_t>(A.rows));
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(one.perm, identity);
}

TEST(DistGraph, CutsTheHaloOfAScrambledMeshAndKeepsTheProduct) {
  if (!spx::dist::metis_available()) GTEST_SKIP() << "built without METIS";
  const auto A = scrambled_mesh();
  const auto blocks = spx::dist::statistics(spx::dist::distribute(A, 4));
  const auto g = spx::dist::partition_graph(A, 4);
  const auto B = spx::reorder::permute_symmetric(A, std::span<const int32_t>(g.perm));
  const auto D = spx::dist::distribute(B, g.rows, g.rows);
  const auto graph = spx::dist::statistics(D);
  // A 40 × 40 mesh in 4 parts: about 4·40 boundary points; row blocks of the scrambled numbering
  // need most of the other blocks' x.
  EXPECT_LT(graph.halo_entries * 5, blocks.halo_entries)
      << graph.halo_entries << " vs " << blocks.halo_entries;
  EXPECT_LT(graph.nnz_imbalance, 1.1);
  std::vector<double> x(static_cast<std::size_t>(A.cols));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3 * static_cast<double>(i)) + 2.0;
  std::vector<double> want(x.size());
  spx::ref::spmv(A, std::span<const double>(x), std::span<double>(want));
  const auto xp = spx::reorder::permute(std::span<const double>(x), std::span<const int32_t>(g.perm));
  const auto yp = spx::dist::simulated_spmv(D, std::span<const double>(xp));
  const auto got = spx::reorder::unpermute(std::span<const double>(yp), std::span<const int32_t>(g.perm));
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12 * 12) << "row " << i;
}

TEST(DistGraph, RefusedInputs) {
  const auto rect = spx::gen::random_uniform<double, int32_t>(10, 12, 3, 1);
  EXPECT_THROW(spx::dist::partition_graph(rect, 2), spx::Error);
  const auto A = spx::gen::stencil_2d_5pt<double>(3, 3);
  EXPECT_THROW(spx::dist::partition_graph(A, 10), spx::Error);
  EXPECT_THROW(spx::dist::partition_graph(A, 0), spx::Error);
  if (!spx::dist::metis_available()) {
    try {
      spx::dist::partition_graph(A, 2);
      ADD_FAILURE() << "no error without METIS";
    } catch (const spx::Error& e) {
      EXPECT_NE(std::string(e.what()).find("built without METIS"), std::string::npos) << e.what();
    }
  }
}

}  // namespace

namespace {

// RCM's row blocks (no METIS needed): a permutation, blocks balanced by nonzeros, a much smaller
// halo than the scrambled numbering's blocks, and the product through the permutation exact.
TEST(DistRcmPartition, BlocksOfRcmsNumberingCutAScrambledMeshsHalo) {
  const auto A = scrambled_mesh();
  const auto g = spx::dist::partition_rcm(A, 4);
  spx::reorder::check_permutation(std::span<const int32_t>(g.perm), A.rows);
  EXPECT_EQ(g.perm, spx::reorder::rcm(A));
  ASSERT_EQ(g.rows.ranks(), 4);
  EXPECT_EQ(g.edge_cut, -1);
  const auto B = spx::reorder::permute_symmetric(A, std::span<const int32_t>(g.perm));
  const auto parts = spx::dist::statistics(spx::dist::distribute(B, g.rows, g.rows));
  const auto blocks = spx::dist::statistics(spx::dist::distribute(A, 4));
  EXPECT_LT(parts.halo_entries * 5, blocks.halo_entries);
  EXPECT_LT(parts.nnz_imbalance, 1.05);
  const std::vector<double> x = [&] {
    std::vector<double> v(static_cast<std::size_t>(A.rows));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1.0 + static_cast<double>(i % 7);
    return v;
  }();
  const auto xp =
      spx::reorder::permute<double, int32_t>(std::span<const double>(x), std::span<const int32_t>(g.perm));
  const auto yp =
      spx::dist::simulated_spmv(spx::dist::distribute(B, g.rows, g.rows), std::span<const double>(xp));
  std::vector<double> y(x.size());
  spx::ref::spmv(A, std::span<const double>(x), std::span<double>(y));
  const auto y_back =
      spx::reorder::unpermute<double, int32_t>(std::span<const double>(yp), std::span<const int32_t>(g.perm));
  EXPECT_EQ(y_back, y);
  EXPECT_THROW(spx::dist::partition_rcm(A, 0), spx::Error);
  EXPECT_THROW(spx::dist::partition_rcm(spx::gen::random_uniform<double, int32_t>(5, 7, 2, 1), 2),
               spx::Error);
}

}  // namespace
