// The kernel catalogue (plan/catalogue.hpp) as the one source of the planner's candidates: the
// candidate lists, rule orders, vendor SpMM ratios, tuner ladders and model keys come from it; rule
// tables and profiles naming an unknown kernel are refused; in a CUDA build every row has an
// executor and a benchmark entry.
#include "plan/catalogue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/model_data.hpp"
#include "bench/registry.hpp"
#include "plan/format_table.hpp"
#include "plan/tuner.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"
#include "spx/stats.hpp"
#if SPX_HAVE_CUDA
#include "cuda/plan/executor_check.hpp"
#endif

namespace spx {
namespace {

using plan::DenseLayout;
using plan::Operation;

constexpr std::size_t kPlenty = std::size_t{1} << 40;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Catalogue, RowsAreUniqueAndComplete) {
  std::vector<std::string> names;
  for (const plan::KernelRow& r : plan::catalogue()) {
    names.emplace_back(r.name);
    EXPECT_NE(plan::find_model_key(r.model_key), nullptr) << r.name;
    EXPECT_TRUE(std::string_view(r.owner) == "spx" || std::string_view(r.owner) == "cuSPARSE") << r.name;
    EXPECT_EQ(&plan::kernel_row(r.name), &r);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  EXPECT_EQ(plan::rows_for(Operation::Spmv, DenseLayout::RowMajor).size() +
                plan::rows_for(Operation::Spmm, DenseLayout::RowMajor).size() +
                plan::rows_for(Operation::Spmm, DenseLayout::ColMajor).size(),
            plan::catalogue().size());
  EXPECT_NE(error_of([] { (void)plan::kernel_row("spmm_magic"); }).find("spmm_magic"), std::string::npos);
}

// The planner lists exactly the catalogue's rows of the product, in its order.
// Every row's format has a row of the format table (plan/format_table.cpp), and the table is what
// the planner accepts in Options::formats: an unknown one is refused naming the known ones.
TEST(Catalogue, EveryFormatHasARowAndOnlyThoseAreAccepted) {
  for (const plan::KernelRow& r : plan::catalogue())
    EXPECT_NE(plan::find_format(r.format), nullptr) << r.name;
  for (const plan::FormatRow& f : plan::format_rows()) {
    EXPECT_NE(f.extra_bytes, nullptr) << f.name;
    EXPECT_NE(f.setup_us, nullptr) << f.name;
    EXPECT_NE(f.refusal, nullptr) << f.name;
  }
  plan::Problem p;
  p.stats = stats(gen::generate<double, int32_t>("stencil2d:n=16"));
  plan::Options o;
  o.formats = {"bsr", "nope"};
  try {
    (void)plan::candidates(p, o, {}, std::size_t{1} << 40);
    ADD_FAILURE() << "an unknown format was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'nope'"), std::string::npos) << what;
    EXPECT_NE(what.find(plan::format_names()), std::string::npos) << what;
  }
}

TEST(Catalogue, PlannerCandidatesAreTheRows) {
  const auto A = gen::generate<double, int32_t>("stencil27:n=12");
  for (auto [op, layout] :
       {std::pair{Operation::Spmv, DenseLayout::RowMajor}, std::pair{Operation::Spmm, DenseLayout::RowMajor},
        std::pair{Operation::Spmm, DenseLayout::ColMajor}}) {
    plan::Problem p;
    p.op = op;
    p.layout = layout;
    p.cols_dense = op == Operation::Spmm ? 8 : 0;
    p.stats = stats(A);
    p.features = features(A);
    const auto cands = plan::candidates(p, {}, {}, kPlenty);
    const auto rows = plan::rows_for(op, layout);
    ASSERT_EQ(cands.size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(cands[i].kernel, rows[i]->name);
      EXPECT_EQ(cands[i].format, rows[i]->format);
      EXPECT_EQ(cands[i].owner, rows[i]->owner);
    }
  }
}

TEST(Catalogue, LaddersComeFromTheRows) {
  for (const plan::KernelRow& r : plan::catalogue())
    EXPECT_EQ(plan::tuning_ladders(r.name).empty(), r.ladder == plan::Ladder::None) << r.name;
  EXPECT_TRUE(plan::tuning_ladders("not_a_kernel").empty());
  EXPECT_EQ(plan::tuning_ladders("spmm_csr_split_row").size(), plan::tuning_ladders("spmm_csr_row").size());
}

TEST(Catalogue, ModelKernelsAreTheModelKeys) {
  std::size_t n = 0;
  for (const plan::ModelKeyRow& k : plan::model_keys()) {
    const auto& list = k.op == Operation::Spmv ? model::spmv_kernels() : model::spmm_kernels();
    EXPECT_NE(std::find(list.begin(), list.end(), k.key), list.end()) << k.key;
    ++n;
  }
  EXPECT_EQ(model::spmv_kernels().size() + model::spmm_kernels().size(), n);
}

// A key without its own fit borrows its declared sibling's coefficients on its own terms.
TEST(Catalogue, NewKernelsBorrowASiblingsFit) {
  const auto path = model::find_profile("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(path.has_value());
  const model::Profile profile = model::load_profile(*path);
  const MatrixFeatures f = features(gen::generate<double, int32_t>("powerlaw:n=20000,avg=8,exp=1.8"));
  for (const plan::ModelKeyRow& k : plan::model_keys()) {
    if (k.borrows == nullptr) continue;
    const int64_t L = k.op == Operation::Spmm ? 8 : 0;
    ASSERT_EQ(profile.find({k.key, 8, L}), nullptr) << k.key << " is fitted now: drop its borrows";
    const auto own = model::predict_us(profile, {k.key, 8, L}, f);
    const auto sibling = model::predict_us(profile, {k.borrows, 8, L}, f);
    ASSERT_TRUE(own.has_value()) << k.key;
    ASSERT_TRUE(sibling.has_value()) << k.borrows;
    EXPECT_TRUE(std::isfinite(*own) && *own > 0) << k.key;
  }
}

TEST(Catalogue, UnknownNamesAreRefusedAtLoad) {
  const std::string unknown = error_of([] {
    plan::check_kernel_names({"csr_param", "csr_turbo"}, Operation::Spmv, DenseLayout::RowMajor,
                             "rule order spmv_uniform");
  });
  EXPECT_NE(unknown.find("rule order spmv_uniform"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("'csr_turbo'"), std::string::npos) << unknown;
  // A kernel of another product is as wrong as an unknown one.
  EXPECT_NE(error_of([] {
              plan::check_kernel_names({"spmm_csr_col"}, Operation::Spmm, DenseLayout::RowMajor, "order");
            }).find("column-major"),
            std::string::npos);
  // The default tables pass; a vendor SpMM row without its ratio to the modelled best does not.
  EXPECT_NO_THROW(plan::check_planner_table(plan::default_rule_tables().planner));
  plan::PlannerRuleTable t = plan::default_rule_tables().planner;
  t.vendor_spmm_over_best.pop_back();
  EXPECT_NE(error_of([&] { plan::check_planner_table(t); }).find("cusparse_spmm_"), std::string::npos);
  t = plan::default_rule_tables().planner;
  t.spmm_col_major.push_back("spmm_csr_row");
  EXPECT_NE(error_of([&] { plan::check_planner_table(t); }).find("spmm_col_major"), std::string::npos);
  // A profile fitting a kernel the catalogue does not know.
  const std::string profile = R"({"device": {"name": "X", "sm_count": 1, "threads_per_sm": 2048,
      "blocks_per_sm": 32, "l2_bytes": 1048576, "copy_gbs": 1000, "l2_gbs": 2000},
      "fits": [{"kernel": "csr_turbo", "precision": "f64", "cols_dense": 0, "coef": {}}]})";
  const std::string e = error_of([&] { (void)model::profile_from_json(profile, "x.json"); });
  EXPECT_NE(e.find("x.json"), std::string::npos) << e;
  EXPECT_NE(e.find("csr_turbo"), std::string::npos) << e;
}

// The rule mode's orders, made from the rows' ranks, are the lists rule_tables.cpp spelled out by
// hand before the ranks moved onto the rows: nothing moved. A change of rank changes these lists
// on purpose, with its measurement (docs/rules.md).
TEST(Catalogue, RuleOrdersFromRanksAreThePinnedLists) {
  using plan::RuleOrder;
  using Names = std::vector<std::string>;
  const std::vector<std::pair<RuleOrder, Names>> pinned = {
      {RuleOrder::SpmvUniform,
       {"bsr", "cusparse_bsr", "ell", "sell_c16_dict", "sell_c16", "cusparse_sell_alg1", "hyb", "ellr_t",
        "csr_param", "csr_c16", "rcm_sell_c16", "rcm_csr", "spmv_segsum", "cusparse_csr_alg1", "csr_vector",
        "cusparse_coo_alg1", "coo", "cusparse_csr_alg2", "cusparse_coo_alg2"}},
      {RuleOrder::SpmvSpread,
       {"bsr", "cusparse_bsr", "csr_param", "csr_c16", "rcm_sell_c16", "rcm_csr", "ellr_t", "spmv_segsum",
        "cusparse_csr_alg1", "hyb", "ell", "sell_c16_dict", "sell_c16", "cusparse_sell_alg1",
        "cusparse_coo_alg1", "csr_vector", "coo", "cusparse_csr_alg2", "cusparse_coo_alg2"}},
      {RuleOrder::SpmvIrregular,
       {"bsr", "cusparse_coo_alg1", "csr_param", "csr_c16", "rcm_sell_c16", "rcm_csr", "spmv_segsum",
        "cusparse_csr_alg1", "cusparse_csr_alg2", "hyb", "coo", "csr_vector", "cusparse_coo_alg2",
        "cusparse_bsr"}},
      {RuleOrder::SpmvLongRows,
       {"bsr", "cusparse_bsr", "csr_vector", "csr_param", "csr_c16", "rcm_sell_c16", "rcm_csr", "spmv_segsum",
        "cusparse_csr_alg1", "cusparse_csr_alg2", "cusparse_coo_alg1", "coo", "hyb", "ellr_t", "ell",
        "sell_c16_dict", "sell_c16", "cusparse_sell_alg1", "cusparse_coo_alg2"}},
      {RuleOrder::SpmmRowMajor,
       {"spmm_csr_row", "spmm_ellr_t_row", "cusparse_spmm_csr_alg3_row", "cusparse_spmm_csr_alg2_row",
        "cusparse_spmm_coo_alg4_row", "spmm_csr_split_row", "spmm_csr_tiled_row",
        "cusparse_spmm_csr_alg1_row", "cusparse_spmm_coo_alg1_row"}},
      {RuleOrder::SpmmColMajor,
       {"spmm_csr_col", "spmm_ellr_t_col", "cusparse_spmm_csr_alg1_col", "cusparse_spmm_coo_alg3_col",
        "cusparse_spmm_csr_alg2_col", "cusparse_spmm_csr_alg3_col", "cusparse_spmm_coo_alg1_col"}},
  };
  const plan::PlannerRuleTable& t = plan::default_rule_tables().planner;
  const std::vector<const Names*> table = {&t.spmv_uniform,   &t.spmv_spread,    &t.spmv_irregular,
                                           &t.spmv_long_rows, &t.spmm_row_major, &t.spmm_col_major};
  for (std::size_t i = 0; i < pinned.size(); ++i) {
    EXPECT_EQ(plan::catalogue_rule_order(pinned[i].first), pinned[i].second) << i;
    EXPECT_EQ(*table[i], pinned[i].second) << i;
  }
}

// The vendor SpMM ratios, made from the rows, are the ones rule_tables.cpp listed by name.
TEST(Catalogue, VendorSpmmRatiosFromRowsAreThePinnedOnes) {
  const std::map<std::string, std::pair<double, double>> pinned = {
      {"cusparse_spmm_csr_alg3_row", {1.226, 1.117}}, {"cusparse_spmm_csr_alg2_row", {2.207, 1.605}},
      {"cusparse_spmm_coo_alg4_row", {1.972, 1.446}}, {"cusparse_spmm_coo_alg3_col", {1.783, 4.095}},
      {"cusparse_spmm_csr_alg1_col", {1.5, 1.5}},     {"cusparse_spmm_csr_alg1_row", {1.5, 1.5}},
      {"cusparse_spmm_coo_alg1_row", {1.5, 1.5}},     {"cusparse_spmm_csr_alg2_col", {1.5, 1.5}},
      {"cusparse_spmm_csr_alg3_col", {1.5, 1.5}},     {"cusparse_spmm_coo_alg1_col", {1.5, 1.5}}};
  std::map<std::string, std::pair<double, double>> made;
  for (const auto& r : plan::default_rule_tables().planner.vendor_spmm_over_best)
    EXPECT_TRUE(made.emplace(r.kernel, std::pair{r.at_l8, r.at_l32}).second) << r.kernel;
  EXPECT_EQ(made, pinned);
}

// A rank shared within one order, or a rank in the other product's order, is refused by name.
TEST(Catalogue, RanksThatDoNotOrderAreRefused) {
  std::vector<plan::KernelRow> rows(plan::catalogue().begin(), plan::catalogue().end());
  EXPECT_NO_THROW(plan::check_rule_ranks(rows));
  auto row = [&](std::string_view name) -> plan::KernelRow& {
    return *std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.name == name; });
  };
  row("ell").ranks.spread = row("csr_param").ranks.spread;
  const std::string shared = error_of([&] { plan::check_rule_ranks(rows); });
  EXPECT_NE(shared.find("'csr_param' and 'ell'"), std::string::npos) << shared;
  EXPECT_NE(shared.find("spmv_spread"), std::string::npos) << shared;
  rows.assign(plan::catalogue().begin(), plan::catalogue().end());
  row("spmm_csr_col").ranks.uniform = 30;
  EXPECT_NE(error_of([&] { plan::check_rule_ranks(rows); }).find("'spmm_csr_col'"), std::string::npos);
}

// The light plan's kernel and CG's csr_param operator name the rows they run: one flag, one executor.
TEST(Catalogue, LightPlanAndCgKernelComeFromRows) {
  EXPECT_STREQ(plan::light_plan_row().name, "csr_param");
  EXPECT_EQ(plan::default_rule_tables().planner.auto_light_kernel, plan::light_plan_row().name);
  EXPECT_STREQ(plan::executor_row(plan::SpxExecutor::CsrParam).name, "csr_param");
  // An executor several rows share names none of them alone.
  EXPECT_NE(error_of([] { (void)plan::executor_row(plan::SpxExecutor::SpmmCsr); }).find("spmm_csr_row"),
            std::string::npos);
}

#if SPX_HAVE_CUDA
// Every catalogue row can be built, and every factory builds a row of the catalogue.
TEST(Catalogue, EveryRowHasAnExecutor) {
  const std::vector<std::string> gaps = cuda::detail::executor_factory_gaps();
  std::string all;
  for (const std::string& g : gaps) all += g + "\n";
  EXPECT_TRUE(gaps.empty()) << all;
}

// Every row is timed by a benchmark entry of its name (the bench and the planner speak of one
// kernel by one name).
TEST(Catalogue, EveryRowHasABenchmarkEntry) {
  const bench::Registry& registry = bench::default_registry();
  for (const plan::KernelRow& r : plan::catalogue()) {
    const bench::OpKind op = r.op == Operation::Spmv ? bench::OpKind::Spmv : bench::OpKind::Spmm;
    EXPECT_NE(registry.kernel(r.bench_name(), op), nullptr) << r.name;
  }
}

// `spx model calibrate` times the fitted model keys through the benchmark engine without
// --studies: each must name a regular (not study) cuda entry, or calibrate refuses to start (it
// did, once the CSR SpMM's split and tiled study entries became catalogue rows). Keys that borrow
// a sibling's fit are not timed.
TEST(Catalogue, CalibrationTimesOnlyRegularEntriesOfFittedKeys) {
  const bench::Registry& registry = bench::default_registry();
  const std::vector<std::string> patterns = bench::model_kernel_patterns();
  for (const std::string& name : patterns) {
    const bool regular =
        std::any_of(registry.kernels().begin(), registry.kernels().end(),
                    [&](const auto& k) { return k.backend == "cuda" && !k.study && k.name == name; });
    EXPECT_TRUE(regular) << name;
    const plan::KernelRow* row = plan::find_kernel(name);
    if (row != nullptr && row->op == Operation::Spmm && std::string_view(row->owner) == "spx") {
      EXPECT_EQ(plan::find_model_key(row->model_key)->borrows, nullptr) << name;
    }
  }
  for (const char* borrowed :
       {"spmm_csr_split_row", "spmm_csr_tiled_row", "rcm_csr", "sell_c16", "rcm_sell_c16"})
    EXPECT_EQ(std::count(patterns.begin(), patterns.end(), borrowed), 0) << borrowed;
  EXPECT_EQ(std::count(patterns.begin(), patterns.end(), "csr_param"), 1);
  EXPECT_EQ(std::count(patterns.begin(), patterns.end(), "spmm_csr_row"), 1);
}
#endif

}  // namespace
}  // namespace spx
