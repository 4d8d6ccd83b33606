// The planner's host side (spx/plan.hpp, plan/tuner.hpp): candidate lists and eligibility, the rule
// and model rankings on committed profiles and host features, the tuner's steps on synthetic
// timings, the tuning cache file, explain(). No GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "plan/catalogue.hpp"
#include "plan/tuner.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"
#include "spx/stats.hpp"

namespace spx {
namespace {

plan::Problem problem_of(const std::string& spec, plan::Operation op = plan::Operation::Spmv, int64_t L = 0,
                         bool with_features = false) {
  const auto A = gen::generate<double, int32_t>(spec);
  plan::Problem p;
  p.op = op;
  p.cols_dense = L;
  p.value_bytes = 8;
  p.stats = stats(A);
  p.column_spans = column_span_stats(A);  // as the front door fills it
  if (with_features) p.features = features(A);
  return p;
}

const plan::Candidate& find(const std::vector<plan::Candidate>& c, const std::string& k) {
  const auto it = std::find_if(c.begin(), c.end(), [&](const plan::Candidate& x) { return x.kernel == k; });
  if (it == c.end()) throw Error("no candidate " + k);
  return *it;
}

constexpr std::size_t kPlenty = std::size_t{1} << 40;

TEST(Planner, ModeNames) {
  for (plan::Mode m :
       {plan::Mode::Rule, plan::Mode::Model, plan::Mode::Measure, plan::Mode::Tune, plan::Mode::Auto})
    EXPECT_EQ(plan::mode_from_string(plan::to_string(m)), m);
  EXPECT_THROW(plan::mode_from_string("fastest"), Error);
}

TEST(Planner, KernelPatterns) {
  EXPECT_TRUE(plan::allowed("csr_param", {}));
  EXPECT_TRUE(plan::allowed("cusparse_csr_alg2", {"cusparse_*"}));
  EXPECT_FALSE(plan::allowed("csr_param", {"cusparse_*"}));
  EXPECT_TRUE(plan::allowed("ell", {"csr_*", "el?"}));
  EXPECT_FALSE(plan::allowed("ellr_t", {"el?"}));
}

TEST(Planner, SpmvCandidatesAndEligibility) {
  const plan::Problem uniform = problem_of("stencil27:n=20", plan::Operation::Spmv, 0, true);
  const auto all = plan::candidates(uniform, {}, {}, kPlenty);
  EXPECT_EQ(all.size(), plan::rows_for(plan::Operation::Spmv, plan::DenseLayout::RowMajor).size());
  // rcm_csr and rcm_sell_c16 only where x is gathered poorly (rcm_planner_test.cpp); BSR needs the block
  // counts (Problem::bsr_blocks), which this problem does not carry; csr_param_mixed needs
  // Options::mixed_precision, sell_c16_dict the count of distinct values (Problem::distinct_values).
  for (const auto& c : all)
    EXPECT_EQ(c.eligible, c.format != "rcm" && c.format != "rcmsell" && c.format != "bsr" &&
                              c.format != "csrmixed" && c.format != "sellc16d")
        << c.kernel << ": " << c.why_not;
  EXPECT_EQ(find(all, "cusparse_csr_alg2").owner, "cuSPARSE");
  EXPECT_GT(find(all, "ell").extra_bytes, 0u);
  EXPECT_GT(find(all, "ell").setup_us, find(all, "csr_param").setup_us);
  // A conversion on the GPU pays its read-backs and each of its format's allocations before a byte
  // is written (cudaMalloc: 40-80 us on the H200): ELL has two, SELL-C16 four, HYB five.
  const plan::PlannerRuleTable& rules = plan::default_rule_tables().planner;
  const auto floor_of = [&](int allocations) {
    return rules.setup_fixed_us + rules.device_convert_fixed_us + allocations * rules.device_allocation_us;
  };
  EXPECT_GT(find(all, "ell").setup_us, floor_of(2));
  EXPECT_GT(find(all, "sell_c16").setup_us, floor_of(4));
  EXPECT_GT(find(all, "hyb").setup_us, floor_of(5));

  // Power-law rows: the padded formats are refused with their padding named.
  const plan::Problem irregular =
      problem_of("powerlaw:n=20000,avg=8,exp=1.8", plan::Operation::Spmv, 0, true);
  const auto irr = plan::candidates(irregular, {}, {}, kPlenty);
  EXPECT_FALSE(find(irr, "ell").eligible);
  EXPECT_NE(find(irr, "ell").why_not.find("padding"), std::string::npos);
  EXPECT_TRUE(find(irr, "hyb").eligible);

  plan::Options no_vendor;
  no_vendor.vendor = false;
  for (const auto& c : plan::candidates(uniform, no_vendor, {}, kPlenty))
    EXPECT_EQ(c.eligible, c.owner == "spx" && c.format != "rcm" && c.format != "rcmsell" &&
                              c.format != "bsr" && c.format != "csrmixed" && c.format != "sellc16d")
        << c.kernel;

  plan::Options det;
  det.deterministic_only = true;
  const auto d = plan::candidates(uniform, det, {}, kPlenty);
  EXPECT_FALSE(find(d, "cusparse_csr_alg1").eligible);
  EXPECT_FALSE(find(d, "cusparse_coo_alg1").eligible);
  EXPECT_TRUE(find(d, "cusparse_csr_alg2").eligible);
  EXPECT_TRUE(find(d, "csr_param").eligible);

  plan::Options only;
  only.kernels = {"csr_*"};
  for (const auto& c : plan::candidates(uniform, only, {}, kPlenty))
    EXPECT_EQ(c.eligible, c.kernel.starts_with("csr_") && c.kernel != "csr_param_mixed") << c.kernel;

  plan::Options fmts;
  fmts.formats = {"ell", "sell"};
  for (const auto& c : plan::candidates(uniform, fmts, {}, kPlenty))
    EXPECT_EQ(c.eligible, c.format == "ell" || c.format == "sell") << c.kernel;
  fmts.formats = {"dia"};
  EXPECT_THROW(plan::candidates(uniform, fmts, {}, kPlenty), Error);

  // A budget smaller than a converted format refuses it, naming the budget.
  plan::Options tight;
  tight.memory_budget_bytes = 1024;
  const auto t = plan::candidates(uniform, tight, {}, kPlenty);
  EXPECT_FALSE(find(t, "ell").eligible);
  EXPECT_NE(find(t, "ell").why_not.find("budget"), std::string::npos);
  EXPECT_TRUE(find(t, "csr_param").eligible);
}

TEST(Planner, SpmmCandidatesByLayout) {
  plan::Problem p = problem_of("stencil27:n=16", plan::Operation::Spmm, 8);
  EXPECT_EQ(plan::candidates(p, {}, {}, kPlenty).size(),
            plan::rows_for(plan::Operation::Spmm, plan::DenseLayout::RowMajor).size());
  p.layout = plan::DenseLayout::ColMajor;
  const auto col = plan::candidates(p, {}, {}, kPlenty);
  EXPECT_EQ(col.size(), plan::rows_for(plan::Operation::Spmm, plan::DenseLayout::ColMajor).size());
  EXPECT_GT(col.size(), 0u);
  for (const auto& c : col) EXPECT_TRUE(c.kernel.ends_with("_col")) << c.kernel;
  p.cols_dense = 0;
  EXPECT_THROW(plan::candidates(p, {}, {}, kPlenty), Error);
  plan::Options o;
  o.expected_calls = 0;
  EXPECT_THROW(plan::candidates(problem_of("stencil27:n=8"), o, {}, kPlenty), Error);
}

TEST(Planner, RuleModeAmortisesConversions) {
  const plan::Problem p = problem_of("stencil27:n=20");
  plan::Options o;
  o.mode = plan::Mode::Rule;
  o.expected_calls = 10000;
  auto c = plan::candidates(p, o, {}, kPlenty);
  plan::rank(c, p, o, nullptr);
  EXPECT_EQ(c.front().kernel, "ell");  // uniform rows, many calls: the padded format first
  o.expected_calls = 5;
  c = plan::candidates(p, o, {}, kPlenty);
  plan::rank(c, p, o, nullptr);
  EXPECT_EQ(c.front().format, "csr");  // few calls: no conversion pays
  EXPECT_TRUE(std::isnan(c.front().predicted_us));
}

TEST(Planner, IneligibleRankLast) {
  const plan::Problem p = problem_of("powerlaw:n=20000,avg=8,exp=1.8", plan::Operation::Spmv, 0, true);
  plan::Options o;
  o.mode = plan::Mode::Rule;
  auto c = plan::candidates(p, o, {}, kPlenty);
  plan::rank(c, p, o, nullptr);
  bool seen_ineligible = false;
  for (const auto& x : c) {
    if (!x.eligible) seen_ineligible = true;
    EXPECT_FALSE(seen_ineligible && x.eligible) << x.kernel << " ranked after an ineligible candidate";
  }
  EXPECT_TRUE(seen_ineligible);
}

TEST(Planner, ModelModeRanksByPredictedTime) {
  const auto path = model::find_profile("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(path.has_value());
  const model::Profile profile = model::load_profile(*path);
  for (const char* spec : {"stencil27:n=48", "powerlaw:n=50000,avg=8,exp=1.8"}) {
    for (auto [op, L] :
         {std::pair{plan::Operation::Spmv, int64_t{0}}, std::pair{plan::Operation::Spmm, int64_t{8}}}) {
      const plan::Problem p = problem_of(spec, op, L, true);
      plan::Options o;
      o.expected_calls = 1000;
      auto c = plan::candidates(p, o, profile.device, kPlenty);
      plan::rank(c, p, o, &profile);
      ASSERT_FALSE(c.empty());
      EXPECT_TRUE(c.front().eligible);
      EXPECT_FALSE(std::isnan(c.front().predicted_us)) << spec << " " << c.front().kernel;
      for (std::size_t i = 1; i < c.size(); ++i) {
        if (c[i].eligible && c[i - 1].eligible && std::isfinite(c[i].score)) {
          EXPECT_LE(c[i - 1].score, c[i].score) << spec;
        }
      }
      // The score is the per-call time plus the setup amortised over the expected calls.
      EXPECT_NEAR(c.front().score, c.front().predicted_us + c.front().setup_us / 1000.0, 1e-9);
    }
  }
}

// Below rule_min_calls_to_convert (200) the rule pushes conversions last; that must not leak into
// the model's prediction: predicted_us is the model's time, setup a separate term of the score.
TEST(Planner, ModelPredictionIsTheModelsTime) {
  const auto path = model::find_profile("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(path.has_value());
  const model::Profile profile = model::load_profile(*path);
  const plan::Problem p = problem_of("stencil27:n=48", plan::Operation::Spmv, 0, true);
  for (int64_t calls : {int64_t{10}, int64_t{100}, int64_t{100000}}) {
    plan::Options o;
    o.mode = plan::Mode::Model;
    o.expected_calls = calls;
    auto c = plan::candidates(p, o, profile.device, kPlenty);
    plan::rank(c, p, o, &profile);
    int checked = 0;
    for (const auto& x : c) {
      const auto us = model::predict_us(profile, {x.kernel, 8, 0}, *p.features);
      if (!us || !x.eligible) continue;
      EXPECT_NEAR(x.predicted_us, *us, 1e-9 * *us) << x.kernel << " at " << calls << " calls";
      EXPECT_NEAR(x.score, *us + x.setup_us / static_cast<double>(calls), 1e-9 * x.score) << x.kernel;
      ++checked;
    }
    EXPECT_GE(checked, 8) << "the converted formats ell, ellr_t, coo, hyb among them";
  }
}

TEST(Planner, MeasuredTimesWin) {
  const plan::Problem p = problem_of("stencil27:n=20", plan::Operation::Spmv, 0, true);
  plan::Options o;
  o.mode = plan::Mode::Measure;
  o.expected_calls = 1000000000;
  auto c = plan::candidates(p, o, {}, kPlenty);
  for (auto& x : c) x.measured_us = x.kernel == "coo" ? 1.0 : 5.0;
  plan::rank(c, p, o, nullptr);
  EXPECT_EQ(c.front().kernel, "coo");
}

// spx's column-major CSR SpMM is refused on uneven rows (where cuSPARSE's column-major algorithms
// won on the H200), kept on regular ones.
TEST(Planner, ColumnMajorCsrSpmmOnlyOnEvenRows) {
  const auto col_csr = [](plan::Problem p) {
    p.layout = plan::DenseLayout::ColMajor;
    for (const auto& c : plan::candidates(p, {}, {}, kPlenty))
      if (c.kernel == "spmm_csr_col") return c;
    throw Error("no spmm_csr_col candidate");
  };
  const plan::Candidate even = col_csr(problem_of("stencil27:n=20", plan::Operation::Spmm, 8));
  EXPECT_TRUE(even.eligible) << even.why_not;
  const plan::Candidate uneven =
      col_csr(problem_of("powerlaw:n=20000,avg=6,exp=1.8", plan::Operation::Spmm, 8));
  EXPECT_FALSE(uneven.eligible);
  EXPECT_NE(uneven.why_not.find("uneven"), std::string::npos) << uneven.why_not;
  // Wide B rows (L = 32 in f64: 256 bytes): cuSPARSE's column-major algorithms only.
  const plan::Candidate wide = col_csr(problem_of("stencil27:n=20", plan::Operation::Spmm, 32));
  EXPECT_FALSE(wide.eligible);
  EXPECT_NE(wide.why_not.find("L = 32 x 8"), std::string::npos) << wide.why_not;
}

// Auto mode's decision on synthetic model rankings (scores as rank() leaves them).
plan::Candidate predicted(const std::string& kernel, double us, double error, double setup_us = 0) {
  plan::Candidate c;
  c.kernel = kernel;
  c.predicted_us = us;
  c.score = us;
  c.model_error = error;
  c.setup_us = setup_us;
  return c;
}

TEST(AutoMode, RanksByTheModelWhenTheGapExceedsItsError) {
  plan::Options o;
  o.expected_calls = 1000000000;
  const auto d = plan::decide_auto({predicted("a", 10, 0.05), predicted("b", 20, 0.05)}, o);
  EXPECT_FALSE(d.measure);
  EXPECT_NE(d.why.find("gap to b"), std::string::npos) << d.why;
}

TEST(AutoMode, TimesCloseCandidatesWhenTheCallsRepayIt) {
  const std::vector<plan::Candidate> close = {predicted("a", 100, 0.2), predicted("b", 110, 0.2),
                                              predicted("c", 115, 0.2), predicted("d", 500, 0.2)};
  plan::Options o;
  o.expected_calls = 1000000;
  // Many calls: racing on the first calls (32 each: 2.2 ms lost at most) is cheaper than 3 x 2 ms
  // of timing at plan time.
  auto d = plan::decide_auto(close, o);
  EXPECT_TRUE(d.race) << d.why;
  EXPECT_FALSE(d.measure) << d.why;
  EXPECT_EQ(d.time_top, 3);  // d is far outside the errors
  EXPECT_EQ(d.race_samples, 31);
  EXPECT_NE(d.why.find("raced the top 3"), std::string::npos) << d.why;
  o.measure_top = 2;
  EXPECT_EQ(plan::decide_auto(close, o).time_top, 2);
  // The library's default 100 calls: 25 may race, 3 contenders of 1 + 7 calls each.
  o = plan::Options{};
  d = plan::decide_auto(close, o);
  EXPECT_TRUE(d.race) << d.why;
  EXPECT_EQ(d.time_top, 3);
  EXPECT_EQ(d.race_samples, 7);
  // Deterministic plans never race (the first calls would run different kernels): timing at plan
  // time instead, when the calls repay its 2 ms per candidate.
  o.deterministic_only = true;
  o.expected_calls = 1000000;
  d = plan::decide_auto(close, o);
  EXPECT_TRUE(d.measure) << d.why;
  EXPECT_FALSE(d.race) << d.why;
  EXPECT_NE(d.why.find("timed the top 3"), std::string::npos) << d.why;
  // Few calls: no room to race, and 2 ms of timing per candidate is never repaid by a 100 us
  // product's uncertainty.
  o.deterministic_only = false;
  o.expected_calls = 10;
  d = plan::decide_auto(close, o);
  EXPECT_FALSE(d.measure) << d.why;
  EXPECT_FALSE(d.race) << d.why;
  EXPECT_NE(d.why.find("ranked by the model"), std::string::npos) << d.why;
}

TEST(AutoMode, NoPredictionKeepsTheRanking) {
  plan::Candidate c;
  c.kernel = "csr_param";
  const auto d = plan::decide_auto({c}, {});
  EXPECT_FALSE(d.measure);
  EXPECT_NE(d.why.find("no model prediction"), std::string::npos);
  EXPECT_EQ(plan::mode_from_string("auto"), plan::Mode::Auto);
  EXPECT_EQ(plan::Options{}.mode, plan::Mode::Auto);  // the default
}

// On real predictions: a launch-bound matrix at the default 100 calls ranks by the model; a
// power-law one with many calls times its close candidates.
TEST(AutoMode, OnCommittedProfile) {
  const auto path = model::find_profile("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(path.has_value());
  const model::Profile profile = model::load_profile(*path);
  const plan::Problem p = problem_of("powerlaw:n=50000,avg=8,exp=1.8", plan::Operation::Spmv, 0, true);
  plan::Options o;
  auto c = plan::candidates(p, o, profile.device, kPlenty);
  plan::rank(c, p, o, &profile);
  // A known error where the profile fits the kernel itself; unknown (NaN) where it borrows a
  // sibling's coefficients.
  for (const auto& x : c)
    if (x.eligible && !std::isnan(x.predicted_us)) {
      const model::KernelKey key{plan::kernel_row(x.kernel).model_key, p.value_bytes, 0};
      EXPECT_EQ(std::isnan(x.model_error), profile.find(key) == nullptr) << x.kernel;
    }
  EXPECT_FALSE(plan::decide_auto(c, o).measure) << plan::decide_auto(c, o).why;
  o.expected_calls = 100000000;
  const auto d = plan::decide_auto(c, o);
  EXPECT_TRUE(d.race) << d.why;
  EXPECT_GE(d.time_top, 2);
}

// Auto's light plan: where planning costs more than it can save (a small matrix at the default 100
// calls) an SpMV runs the light kernel at once; with many calls, a large matrix, another mode, an
// SpMM or a restricted candidate list it plans as usual.
TEST(AutoMode, LightPlanWherePlanningCannotPay) {
  model::DeviceBasics h200;
  h200.copy_gbs = 4250;
  const plan::Problem small = problem_of("stencil27:n=20");  // 216k nonzeros: ~4 us a product
  plan::Options o;
  const auto light = plan::light_plan(small, o, h200);
  ASSERT_TRUE(light.has_value());
  EXPECT_EQ(light->kernel, plan::default_rule_tables().planner.auto_light_kernel);
  EXPECT_NE(light->why.find("100 calls"), std::string::npos) << light->why;
  o.expected_calls = 1000000;  // a million calls repay any planning
  EXPECT_FALSE(plan::light_plan(small, o, h200).has_value());
  o = plan::Options{};
  o.mode = plan::Mode::Model;
  EXPECT_FALSE(plan::light_plan(small, o, h200).has_value());
  o = plan::Options{};
  o.kernels = {"ell"};
  EXPECT_FALSE(plan::light_plan(small, o, h200).has_value());
  o = plan::Options{};
  o.formats = {"csr"};
  EXPECT_FALSE(plan::light_plan(small, o, h200).has_value());
  EXPECT_FALSE(
      plan::light_plan(problem_of("stencil27:n=20", plan::Operation::Spmm, 8), plan::Options{}, h200));
  // 100 calls of a 60M-nonzero product (~170 us each in f64) repay the host inputs, the features,
  // the ranking and a conversion.
  plan::Problem large = small;
  large.stats.nnz = 60'000'000;
  large.stats.rows = large.stats.cols = 2'000'000;
  EXPECT_FALSE(plan::light_plan(large, plan::Options{}, h200).has_value());
  // 200M nonzeros in f32 (~390 us a product): on uniform rows ELL or SELL may save 40% of it, worth
  // planning (20M would not: ~2 ms of planning against at most ~1.5 ms saved); on uneven rows the
  // light kernel is within 10% of the fastest, so it runs at once.
  plan::Problem mid = small;
  mid.value_bytes = 4;
  mid.stats.nnz = 200'000'000;
  mid.stats.rows = mid.stats.cols = 8'000'000;
  mid.stats.ell_padding_ratio = 1.0;
  EXPECT_FALSE(plan::light_plan(mid, plan::Options{}, h200).has_value());
  plan::Problem mid20 = mid;
  mid20.stats.nnz = 20'000'000;
  mid20.stats.rows = mid20.stats.cols = 800'000;
  EXPECT_TRUE(plan::light_plan(mid20, plan::Options{}, h200).has_value());
  mid.stats.ell_padding_ratio = 3.0;
  ASSERT_TRUE(plan::light_plan(mid, plan::Options{}, h200).has_value());
  EXPECT_TRUE(plan::light_plan(mid, plan::Options{}, h200)->rival.empty());  // spread rows: no race
  // Irregular rows: the rival raced on the first calls, unless the plan must be reproducible.
  const plan::PlannerRuleTable& rules = plan::default_rule_tables().planner;
  mid.stats.ell_padding_ratio = 2 * rules.spread_padding;
  const auto raced = plan::light_plan(mid, plan::Options{}, h200);
  ASSERT_TRUE(raced.has_value());
  EXPECT_EQ(raced->rival, rules.auto_light_rival);
  EXPECT_EQ(raced->race_samples, rules.auto_light_race_samples);
  EXPECT_NE(raced->why.find("raced against " + rules.auto_light_rival), std::string::npos) << raced->why;
  o = plan::Options{};
  o.deterministic_only = true;
  EXPECT_TRUE(plan::light_plan(mid, o, h200)->rival.empty());
  // The light kernel runs on the CSR as it is: the catalogue's check refuses one that converts.
  plan::PlannerRuleTable t = plan::default_rule_tables().planner;
  t.auto_light_kernel = "ell";
  EXPECT_THROW(plan::check_planner_table(t), Error);
  t.auto_light_kernel = "no_such_kernel";
  EXPECT_THROW(plan::check_planner_table(t), Error);
  t = plan::default_rule_tables().planner;
  t.auto_light_rival = "sell_c16";  // converts: not a light kernel
  EXPECT_THROW(plan::check_planner_table(t), Error);
}

// The tuner on a synthetic cost: separable in the knobs, one optimum.
TEST(Tuner, ConvergesOnASeparableCost) {
  const auto cost = [](const plan::Knobs& k) {
    const double r = std::log2(static_cast<double>(plan::knob(k, "repeat", 1)));
    const double c = std::log2(static_cast<double>(plan::knob(k, "coop", 1)));
    const double b = static_cast<double>(plan::knob(k, "block_size", 256));
    return 10.0 + (r - 1) * (r - 1) + 2 * (c - 3) * (c - 3) + std::abs(std::log2(b / 128.0));
  };
  plan::Tuner t({{"repeat", 8}, {"coop", 2}, {"block_size", 256}}, plan::tuning_ladders("csr_param"), 20);
  int guard = 0;
  while (!t.frozen() && ++guard < 100) t.report(cost(t.next()));
  EXPECT_TRUE(t.frozen());
  EXPECT_LE(t.trials(), 20);
  EXPECT_EQ(plan::knob(t.best(), "repeat", 0), 2);
  EXPECT_EQ(plan::knob(t.best(), "coop", 0), 8);
  EXPECT_EQ(plan::knob(t.best(), "block_size", 0), 128);
  EXPECT_DOUBLE_EQ(t.best_us(), cost(t.best()));
}

// csr_param's openers: half the coop at block 128, twice the coop at block 256 (snapped to the coop
// ladder), timed right after the start; the fastest of the three is where the ladders start.
TEST(Tuner, OpenersComeFirstAndTheFastestIsKept) {
  const plan::Knobs start = {{"repeat", 1}, {"coop", 8}, {"block_size", 256}};
  const auto openers = plan::tuning_openers("csr_param");
  ASSERT_EQ(openers.size(), 2u);
  plan::Tuner t(start, plan::tuning_ladders("csr_param"), 8, 0.02, 0.4, openers);
  EXPECT_EQ(t.next(), start);
  t.report(100.0);
  EXPECT_EQ(plan::knob(t.next(), "coop", 0), 4);
  EXPECT_EQ(plan::knob(t.next(), "block_size", 0), 128);
  t.report(80.0);  // kept
  EXPECT_EQ(plan::knob(t.next(), "coop", 0), 16);
  EXPECT_EQ(plan::knob(t.next(), "block_size", 0), 256);
  t.report(90.0);  // slower than the kept opener: the ladders climb from coop 4, block 128
  EXPECT_EQ(plan::knob(t.best(), "coop", 0), 4);
  EXPECT_EQ(plan::knob(t.next(), "coop", 0), 4);
  EXPECT_EQ(plan::knob(t.next(), "block_size", 0), 64);  // block size down first
  int guard = 0;
  while (!t.frozen() && ++guard < 100) t.report(85.0);
  EXPECT_EQ(t.trials(), 8);
  EXPECT_DOUBLE_EQ(t.best_us(), 80.0);
  // An opener equal to the start (coop 1 halved snaps to 1, at block 128) is not timed twice; a
  // kernel without openers has none.
  const plan::Knobs small = {{"repeat", 1}, {"coop", 1}, {"block_size", 128}};
  plan::Tuner u(small, plan::tuning_ladders("csr_param"), 8, 0.02, 0.4, openers);
  u.report(10.0);
  EXPECT_EQ(plan::knob(u.next(), "coop", 0), 2);  // the first opener is the start itself: skipped
  EXPECT_EQ(plan::knob(u.next(), "block_size", 0), 256);
  EXPECT_TRUE(plan::tuning_openers("ellr_t").empty());
}

TEST(Tuner, NoiseBelowTheGainIsNotAMove) {
  plan::Tuner t({{"threads_per_row", 4}, {"block_size", 256}}, plan::tuning_ladders("ellr_t"), 12, 0.02);
  t.report(100.0);                     // the start
  while (!t.frozen()) t.report(99.0);  // 1% faster everywhere: noise
  EXPECT_EQ(plan::knob(t.best(), "threads_per_row", 0), 4);
  EXPECT_EQ(plan::knob(t.best(), "block_size", 0), 256);
}

TEST(Tuner, RefusedConfigurationsAndNothingToTune) {
  plan::Tuner t({{"threads_per_row", 4}, {"block_size", 256}}, plan::tuning_ladders("ellr_t"), 6);
  t.report(10.0);
  while (!t.frozen()) t.report(std::numeric_limits<double>::infinity());
  EXPECT_EQ(t.trials(), 5);  // the start, then both directions of both knobs, each refused
  EXPECT_DOUBLE_EQ(t.best_us(), 10.0);

  plan::Tuner none({}, plan::tuning_ladders("cusparse_csr_alg2"));
  EXPECT_FALSE(none.frozen());
  none.report(5.0);
  EXPECT_TRUE(none.frozen());
}

TEST(TuningCache, RoundTripAndErrors) {
  const auto dir = std::filesystem::temp_directory_path() / "spx_tuning_cache_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "cache.json").string();
  std::filesystem::remove(path);
  plan::CacheKey key{0x0123456789abcdefULL,      "NVIDIA H100 80GB HBM3", 8, plan::Operation::Spmm, 8,
                     plan::DenseLayout::RowMajor};
  {
    plan::TuningCache c(path);  // a missing file is an empty cache
    EXPECT_EQ(c.size(), 0u);
    c.put(key, {"spmm_csr_row", {{"threads_per_row", 4}, {"cols_per_pass", 8}}, 12.5, "tuned", {}});
    c.save();
  }
  plan::TuningCache c(path);
  const auto e = c.find(key);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kernel, "spmm_csr_row");
  EXPECT_EQ(plan::knob(e->knobs, "cols_per_pass", 0), 8);
  EXPECT_DOUBLE_EQ(e->us, 12.5);
  EXPECT_FALSE(e->date.empty());
  plan::CacheKey other = key;
  other.fingerprint ^= 1;  // another structure
  EXPECT_FALSE(c.find(other).has_value());
  other = key;
  other.cols_dense = 32;
  EXPECT_FALSE(c.find(other).has_value());

  std::ofstream(path) << "{ not json";
  EXPECT_EQ(plan::TuningCache(path).size(), 0u);  // a warning, not an error (tuning_cache_test.cpp)
  std::filesystem::remove_all(dir);

  plan::Options o;
  o.tuning_cache = "-";
  EXPECT_EQ(plan::cache_path(o), "");
  o.tuning_cache = "x.json";
  EXPECT_EQ(plan::cache_path(o), "x.json");
}

TEST(PlanReport, ExplainNamesTheWinnerAndWhy) {
  const plan::Problem p = problem_of("powerlaw:n=20000,avg=8,exp=1.8", plan::Operation::Spmv, 0, true);
  plan::Report r;
  r.problem = p;
  r.mode = plan::Mode::Rule;
  r.decided_by = "rule";
  r.device = "test device";
  r.expected_calls = 100;
  r.candidates = plan::candidates(p, {}, {}, kPlenty);
  plan::rank(r.candidates, p, {}, nullptr);
  const std::string s = r.explain();
  EXPECT_NE(s.find("chosen: " + r.winner().kernel), std::string::npos) << s;
  EXPECT_NE(s.find("not eligible"), std::string::npos) << s;
  EXPECT_NE(s.find("rule's order"), std::string::npos) << s;
}

}  // namespace
}  // namespace spx
