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

namespace {

namespace dist = spx::dist;

// The busiest rank's received entries and all ranks' of a split, from dist::statistics.
std::pair<int64_t, int64_t> halo_of_split(const dist::DistMatrix<double>& D) {
  const auto s = dist::statistics(D);
  int64_t busiest = 0;
  for (const auto& r : s.per_rank) busiest = std::max(busiest, r.halo_recv);
  return {busiest, s.halo_entries};
}

// The choice counts each candidate's halo as the split itself does, keeps what was asked for, and
// on Auto renumbers a scrambled mesh only when enough products repay it.
TEST(DistPartitionChoice, CountsTheHaloOfEachCandidateAsTheSplitDoes) {
  const auto A = scrambled_mesh();
  for (dist::PartitionKind kind : {dist::PartitionKind::Rows, dist::PartitionKind::Rcm}) {
    const dist::PartitionChoice c = dist::choose_partition(A, 4, kind);
    EXPECT_EQ(c.chosen, kind);
    ASSERT_EQ(c.considered.size(), kind == dist::PartitionKind::Rows ? 1u : 2u);
    const auto [busiest, total] = halo_of_split(dist::distribute(A, 4));
    EXPECT_EQ(c.considered.front().busiest_halo, busiest);
    EXPECT_EQ(c.considered.front().halo_entries, total);
    if (kind == dist::PartitionKind::Rows) {
      EXPECT_FALSE(c.graph);
      continue;
    }
    ASSERT_TRUE(c.graph);
    const auto B = spx::reorder::permute_symmetric(A, std::span<const int32_t>(c.graph->perm));
    const auto [b2, t2] = halo_of_split(dist::distribute(B, c.graph->rows, c.graph->rows));
    EXPECT_EQ(c.considered.back().busiest_halo, b2);
    EXPECT_EQ(c.considered.back().halo_entries, t2);
    EXPECT_NE(c.summary().find("chose rcm: asked for"), std::string::npos) << c.summary();
  }
}

TEST(DistPartitionChoice, AutoRenumbersOnlyWhereTheProductsRepayIt) {
  const auto A = scrambled_mesh();
  dist::PartitionCosts few;  // one product repays no renumbering
  few.products = 1;
  const dist::PartitionChoice keep = dist::choose_partition(A, 4, dist::PartitionKind::Auto, few);
  EXPECT_EQ(keep.chosen, dist::PartitionKind::Rows);
  EXPECT_FALSE(keep.graph);
  EXPECT_EQ(keep.considered.size(), 1u);
  EXPECT_NE(keep.reason.find("rcm not tried"), std::string::npos) << keep.summary();
  // The small mesh's halo is all fixed cost (an exchange's latency): nothing cuts it by 10%.
  dist::PartitionCosts many;
  many.products = 10'000;
  EXPECT_EQ(dist::choose_partition(A, 4, dist::PartitionKind::Auto, many).chosen, dist::PartitionKind::Rows);
  // A 360k-row scrambled mesh: RCM's blocks cut its halo and remote part, and 10^4 products repay
  // RCM (METIS's predicted 4.5 s would need more).
  const auto big = spx::gen::stencil_2d_5pt<double>(600, 600);
  const auto shuffle = spx::reorder::random_permutation<int32_t>(big.rows, 5);
  const auto B = spx::reorder::permute_symmetric(big, std::span<const int32_t>(shuffle));
  const dist::PartitionChoice renumber = dist::choose_partition(B, 4, dist::PartitionKind::Auto, many);
  EXPECT_EQ(renumber.chosen, dist::PartitionKind::Rcm) << renumber.summary();
  ASSERT_TRUE(renumber.graph);
  EXPECT_NE(renumber.reason.find("metis not tried"), std::string::npos) << renumber.summary();
  for (const auto& c : renumber.considered) {
    if (c.kind != renumber.chosen) continue;
    EXPECT_LT(c.busiest_halo * 5, renumber.considered.front().busiest_halo);
  }
  // A chain numbered along itself: row blocks are already best (a halo of 2 a rank), rows stay.
  const auto band = spx::gen::stencil_2d_5pt<double>(1600, 1);
  const dist::PartitionChoice ordered = dist::choose_partition(band, 4, dist::PartitionKind::Auto, many);
  EXPECT_EQ(ordered.chosen, dist::PartitionKind::Rows) << ordered.summary();
}

TEST(DistPartitionChoice, RectangularOneRankAndBadWords) {
  const auto R = spx::gen::random_uniform<double, int32_t>(50, 70, 3, 1);
  const dist::PartitionChoice c = dist::choose_partition(R, 4, dist::PartitionKind::Auto);
  EXPECT_EQ(c.chosen, dist::PartitionKind::Rows);
  EXPECT_TRUE(c.considered.empty());
  EXPECT_NE(c.reason.find("rectangular"), std::string::npos);
  EXPECT_THROW(dist::choose_partition(R, 4, dist::PartitionKind::Rcm), spx::Error);
  EXPECT_EQ(dist::choose_partition(scrambled_mesh(), 1, dist::PartitionKind::Auto).reason, "one rank");
  EXPECT_THROW(dist::choose_partition(scrambled_mesh(), 0, dist::PartitionKind::Rows), spx::Error);
  EXPECT_THROW(dist::parse_partition_kind("graph"), spx::Error);
  for (auto k : {dist::PartitionKind::Rows, dist::PartitionKind::Metis, dist::PartitionKind::Rcm,
                 dist::PartitionKind::Auto})
    EXPECT_EQ(dist::parse_partition_kind(dist::partition_kind_name(k)), k);
}

}  // namespace
