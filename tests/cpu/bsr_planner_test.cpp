// BSR in the planner: the block size chosen from the pattern, eligibility at bsr_min_saving, the
// rule order and the model ranking it ahead on block FEM matrices; and the blockfem generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "plan/format_bsr.hpp"
#include "spx/bsr.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"
#include "spx/stats.hpp"

namespace {

using namespace spx;

constexpr std::size_t kPlenty = std::size_t{1} << 40;

plan::Problem problem_of(const std::string& spec, int value_bytes = 8) {
  const auto A = gen::generate<double, int32_t>(spec);
  plan::Problem p;
  p.value_bytes = value_bytes;
  p.stats = stats(A);
  p.features = features(A);
  p.bsr_blocks = bsr_block_counts(A);
  return p;
}

const plan::Candidate& find(const std::vector<plan::Candidate>& c, const std::string& k) {
  const auto it = std::find_if(c.begin(), c.end(), [&](const plan::Candidate& x) { return x.kernel == k; });
  if (it == c.end()) throw Error("no candidate " + k);
  return *it;
}

TEST(BsrPlanner, BlockFemPicksItsBlockSize) {
  for (int b : {2, 3, 6}) {
    const plan::Problem p = problem_of("blockfem:nx=20,ny=20,nz=4,b=" + std::to_string(b));
    const auto best = plan::best_bsr_block(*p.bsr_blocks, 8);
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->block, b);
    // Dense blocks: b*b values and one 4-byte column per block, no fill.
    EXPECT_EQ(best->blocks * b * b, p.stats.nnz);
    EXPECT_GT(best->saving(), 0.10);
  }
  // f64 3x3 blocks: 8 + 4/9 bytes per nonzero against CSR's 12 (row pointers aside).
  const plan::Problem p = problem_of("blockfem:n=12,b=3");
  const auto best = plan::best_bsr_block(*p.bsr_blocks, 8);
  const double per_nnz = static_cast<double>(best->blocks) * (9 * 8 + 4) / static_cast<double>(p.stats.nnz);
  EXPECT_NEAR(per_nnz, 8 + 4.0 / 9, 1e-12);
}

TEST(BsrPlanner, EligibleOnBlocksRefusedWithoutThem) {
  const plan::Problem fem = problem_of("blockfem:n=12,b=3");
  const auto c = plan::candidates(fem, {}, {}, kPlenty);
  EXPECT_TRUE(find(c, "bsr").eligible) << find(c, "bsr").why_not;
  EXPECT_TRUE(find(c, "cusparse_bsr").eligible);
  EXPECT_EQ(find(c, "bsr").format, "bsr");
  EXPECT_GT(find(c, "bsr").extra_bytes, 0u);
  EXPECT_GT(find(c, "bsr").setup_us, find(c, "csr_param").setup_us);

  // A scalar stencil has no blocks: refused, the saving and the threshold named.
  const auto s = plan::candidates(problem_of("stencil27:n=12"), {}, {}, kPlenty);
  EXPECT_FALSE(find(s, "bsr").eligible);
  EXPECT_NE(find(s, "bsr").why_not.find("% of CSR's bytes < 10%"), std::string::npos)
      << find(s, "bsr").why_not;

  plan::Problem no_counts = fem;
  no_counts.bsr_blocks.reset();
  EXPECT_FALSE(find(plan::candidates(no_counts, {}, {}, kPlenty), "bsr").eligible);

  plan::Options only;
  only.formats = {"bsr"};
  for (const auto& x : plan::candidates(fem, only, {}, kPlenty)) EXPECT_EQ(x.eligible, x.format == "bsr");
}

TEST(BsrPlanner, ThresholdIsTheRuleTables) {
  const double t = plan::default_rule_tables().planner.bsr_min_saving;
  EXPECT_GT(t, 0.0);
  plan::Problem p = problem_of("blockfem:n=8,b=2");
  const auto best = plan::best_bsr_block(*p.bsr_blocks, 8);
  EXPECT_TRUE(plan::bsr_choice(p, best->saving() - 1e-9).has_value());
  EXPECT_FALSE(plan::bsr_choice(p, best->saving() + 1e-9).has_value());
}

TEST(BsrPlanner, RuleAndModelRankItFirstOnBlockFem) {
  const plan::Problem p = problem_of("blockfem:n=24,b=3");
  plan::Options o;
  o.mode = plan::Mode::Rule;
  o.expected_calls = 1000;
  auto c = plan::candidates(p, o, {}, kPlenty);
  plan::rank(c, p, o, nullptr);
  EXPECT_EQ(c.front().kernel, "bsr");

  const auto path = model::find_profile("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(path.has_value());
  const model::Profile profile = model::load_profile(*path);
  // The model's BSR terms read fewer bytes than csr_vector's, whose fit BSR borrows.
  const double bytes = plan::bsr_model_matrix_bytes(p);
  EXPECT_GT(bytes, 0.0);
  const auto bsr = model::predict_us(profile, {"bsr", 8, 0}, *p.features, bytes);
  const auto vec = model::predict_us(profile, {"csr_vector", 8, 0}, *p.features);
  ASSERT_TRUE(bsr && vec);
  EXPECT_LT(*bsr, *vec);
}

TEST(BlockFem, ShapeAndPattern) {
  // 2D (nz = 1): interior nodes have 9 neighbours, corners 4, edges 6.
  const auto A = gen::generate<double, int32_t>("blockfem:nx=5,ny=4,nz=1,b=2");
  EXPECT_EQ(A.rows, 5 * 4 * 2);
  const int64_t node_links = 4 * 4 + 6 * (2 * 3 + 2 * 2) + 9 * (3 * 2);  // corners, edges, interior
  EXPECT_EQ(A.nnz(), node_links * 4);
  EXPECT_NO_THROW(A.validate());
  EXPECT_EQ(A.row_length(0), 4 * 2);
  // 3D: an interior node's rows hold 27 b-wide blocks.
  const auto B = gen::generate<float, int32_t>("blockfem:n=4,b=3");
  const int32_t interior = (1 + 4 * (1 + 4 * 1)) * 3;
  EXPECT_EQ(B.row_length(interior), 27 * 3);
  EXPECT_THROW((gen::generate<double, int32_t>("blockfem:n=4,b=9")), Error);
  EXPECT_THROW((gen::generate<double, int32_t>("blockfem:n=0")), Error);
}

// The kernel's lanes per block row (host rule, every build): each lane keeps >= 4 blocks of an
// average block row, so a 9-block row (2-4-unknown FEM) gets 2 lanes, not 8; b x Q <= 32.
TEST(BsrRule, LanesKeepFourBlocksEach) {
  EXPECT_EQ(plan::bsr_spmv_rule(4, 9 * 1000, 1000).lanes_per_row, 2);
  EXPECT_EQ(plan::bsr_spmv_rule(2, 9 * 1000, 1000).lanes_per_row, 2);
  EXPECT_EQ(plan::bsr_spmv_rule(6, 25 * 1000, 1000).lanes_per_row, 4);
  EXPECT_EQ(plan::bsr_spmv_rule(2, 200 * 1000, 1000).lanes_per_row, 16);  // b x Q <= 32
  EXPECT_EQ(plan::bsr_spmv_rule(3, 3 * 1000, 1000).lanes_per_row, 1);
  EXPECT_EQ(plan::bsr_spmv_rule(3, 0, 0).lanes_per_row, 1);
  // The table is data: at 2 blocks a lane the 9-block row gets 4 lanes.
  plan::RuleTables tables = plan::default_rule_tables();
  tables.bsr.min_blocks_per_lane = 2.0;
  EXPECT_EQ(plan::bsr_spmv_rule(4, 9 * 1000, 1000, tables).lanes_per_row, 4);
}

}  // namespace
