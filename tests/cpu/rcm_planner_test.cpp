// The planner's RCM candidates (rcm_csr, rcm_sell_c16): eligible only for square SpMV whose sampled
// locality says x is gathered poorly; their bytes, setup and model terms (x gathers as estimated
// after RCM).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "plan/catalogue.hpp"
#include "plan/format_rcm.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"
#include "spx/reorder.hpp"
#include "spx/stats.hpp"

namespace spx {
namespace {

constexpr std::size_t kPlenty = std::size_t{1} << 40;

plan::Problem spmv_problem(const Csr<double, int32_t>& A) {
  plan::Problem p;
  p.value_bytes = 8;
  p.stats = stats(A);
  p.features = features(A);
  if (A.rows == A.cols) p.locality = reorder::locality(A);
  return p;
}

const plan::Candidate& rcm_of(const std::vector<plan::Candidate>& cands,
                              const std::string& kernel = "rcm_csr") {
  const auto it = std::find_if(cands.begin(), cands.end(), [&](const auto& c) { return c.kernel == kernel; });
  if (it == cands.end()) throw Error("no " + kernel + " candidate");
  return *it;
}

// Where the H200 formats suite saw it lose: short rows (a shuffled 5-point mesh) and skewed row
// lengths (power-law graphs) are refused even though x is gathered poorly.
TEST(RcmPlanner, RefusedOnShortOrSkewedRows) {
  const auto mesh5 = gen::generate<double>("stencil2d:n=120,shuffle=4");
  const plan::Candidate a = rcm_of(plan::candidates(spmv_problem(mesh5), {}, {}, kPlenty));
  EXPECT_FALSE(a.eligible);
  EXPECT_NE(a.why_not.find("on average"), std::string::npos) << a.why_not;
  const auto graph = gen::generate<double>("powerlaw:n=20000,avg=16,exp=1.9,seed=4");
  const plan::Candidate b = rcm_of(plan::candidates(spmv_problem(graph), {}, {}, kPlenty));
  EXPECT_FALSE(b.eligible);
  EXPECT_NE(b.why_not.find("skewed"), std::string::npos) << b.why_not;
}

TEST(RcmPlanner, EligibleOnlyWhereXIsGatheredPoorly) {
  const auto grid = gen::generate<double>("stencil27:n=24");
  const auto shuffled = gen::generate<double>("stencil27:n=24,shuffle=9");
  const plan::Candidate a = rcm_of(plan::candidates(spmv_problem(grid), {}, {}, kPlenty));
  EXPECT_FALSE(a.eligible);
  EXPECT_NE(a.why_not.find("gathered well"), std::string::npos) << a.why_not;
  const plan::Problem sp = spmv_problem(shuffled);
  const plan::Candidate b = rcm_of(plan::candidates(sp, {}, {}, kPlenty));
  EXPECT_TRUE(b.eligible) << b.why_not;
  EXPECT_EQ(b.format, "rcm");
  // Its own copy of the CSR plus the permutation and two vectors.
  EXPECT_GE(b.extra_bytes, static_cast<std::size_t>(shuffled.nnz()) * 12);
  // The host RCM dominates the setup: far above a GPU conversion's fixed cost.
  EXPECT_GT(b.setup_us, static_cast<double>(shuffled.nnz()) * plan::kRcmHostNsPerNnz * 1e-3);
  // Without the statistic (no host CSR) and for SpMM: refused with the reason.
  plan::Problem no_stat = sp;
  no_stat.locality.reset();
  EXPECT_NE(rcm_of(plan::candidates(no_stat, {}, {}, kPlenty)).why_not.find("locality"), std::string::npos);
  // Allowed formats: "rcm" is a known one.
  plan::Options only;
  only.formats = {"rcm"};
  for (const auto& c : plan::candidates(sp, only, {}, kPlenty)) EXPECT_EQ(c.eligible, c.format == "rcm");
  // A rectangular matrix is refused by shape.
  const auto rect = gen::generate<double>("random:rows=300,cols=500,len=4");
  const plan::Candidate r = rcm_of(plan::candidates(spmv_problem(rect), {}, {}, kPlenty));
  EXPECT_FALSE(r.eligible);
  EXPECT_NE(r.why_not.find("square"), std::string::npos) << r.why_not;
}

TEST(RcmPlanner, ModelCountsTheReorderedGathersAndThePermutations) {
  model::DeviceBasics d;
  d.name = "test";
  const auto shuffled = features(gen::generate<double>("stencil27:n=40,shuffle=2"));
  const auto grid = features(gen::generate<double>("stencil27:n=40"));
  const model::Terms csr = model::terms({"csr_param", 8, 0}, shuffled, d);
  const model::Terms rcm = model::terms({"rcm_csr", 8, 0}, shuffled, d);
  // Window gathers (term 4) drop to about the ordered grid's; two extra launches (term 7).
  EXPECT_LT(rcm.x[4], csr.x[4] / 3);
  EXPECT_LT(rcm.x[4], 2 * model::terms({"csr_param", 8, 0}, grid, d).x[4]);
  EXPECT_EQ(rcm.x[7], 2.0);
  // On an ordered matrix the estimate never claims more than it has: gathers at most csr_param's
  // plus the permutation's.
  const MatrixFeatures g = plan::rcm_reordered_features(grid, 8);
  EXPECT_LE(g.window_sectors[MatrixFeatures::kF64], grid.window_sectors[MatrixFeatures::kF64]);
  EXPECT_LE(g.row_sectors[MatrixFeatures::kF64], grid.row_sectors[MatrixFeatures::kF64]);
  // The model key borrows csr_param's fit until a profile fits it.
  const plan::ModelKeyRow* key = plan::find_model_key("rcm_csr");
  ASSERT_NE(key, nullptr);
  EXPECT_STREQ(key->borrows, "csr_param");
}

// rcm_sell_c16 has no row-length floor (SELL-C16's walk has no per-row overhead for the gather to
// outweigh): a shuffled 5-point mesh is eligible, skewed rows and well-gathered x are not. With at
// most 256 distinct values its bytes are the dictionary's.
TEST(RcmPlanner, SellC16OnTheRenumberedMatrix) {
  const auto mesh5 = gen::generate<double>("stencil2d:n=120,shuffle=4");
  plan::Problem p = spmv_problem(mesh5);
  const plan::Candidate a = rcm_of(plan::candidates(p, {}, {}, kPlenty), "rcm_sell_c16");
  EXPECT_TRUE(a.eligible) << a.why_not;
  EXPECT_EQ(a.format, "rcmsell");
  EXPECT_TRUE(a.deterministic);
  EXPECT_GT(a.setup_us, static_cast<double>(mesh5.nnz()) * plan::kRcmHostNsPerNnz * 1e-3);
  // A SELL-C16 slot is 10 bytes in f64; with two distinct values a code byte and no value.
  EXPECT_GE(a.extra_bytes, static_cast<std::size_t>(mesh5.nnz()) * 10);
  p.distinct_values = 2;
  const plan::Candidate d = rcm_of(plan::candidates(p, {}, {}, kPlenty), "rcm_sell_c16");
  EXPECT_LT(d.extra_bytes,
            static_cast<std::size_t>(mesh5.nnz()) * 4 + static_cast<std::size_t>(mesh5.rows) * 20);
  const auto graph = gen::generate<double>("powerlaw:n=20000,avg=16,exp=1.9,seed=4");
  const plan::Candidate b = rcm_of(plan::candidates(spmv_problem(graph), {}, {}, kPlenty), "rcm_sell_c16");
  EXPECT_FALSE(b.eligible);
  EXPECT_NE(b.why_not.find("skewed"), std::string::npos) << b.why_not;
  const auto grid = gen::generate<double>("stencil2d:n=120");
  const plan::Candidate c = rcm_of(plan::candidates(spmv_problem(grid), {}, {}, kPlenty), "rcm_sell_c16");
  EXPECT_FALSE(c.eligible);
  EXPECT_NE(c.why_not.find("gathered well"), std::string::npos) << c.why_not;
  // Model: window gathers near the ordered grid's, one extra launch (the gather of x); ELL's fit.
  model::DeviceBasics dev;
  dev.name = "test";
  const model::Terms t = model::terms({"rcm_sell_c16", 8, 0}, features(mesh5), dev);
  EXPECT_LT(t.x[4], model::terms({"ell", 8, 0}, features(mesh5), dev).x[4] / 2);
  EXPECT_EQ(t.x[7], 1.0);
  EXPECT_STREQ(plan::find_model_key("rcm_sell_c16")->borrows, "ell");
}

}  // namespace
}  // namespace spx
