// spx plan: the planner without a GPU.
//   show      FILE|SPEC: the plan the rule or the model makes for a product, from host features and
//             a device profile (what spx::cuda::SparseMatrix would choose before measuring anything)
//   kernels   the kernel catalogue: every candidate the planner knows, one line each (--names: a
//             comma-separated list for scripts, e.g. spx bench --kernels)
//   validate  BENCH.json...: the rule and model modes replayed offline on recorded measurements of
//             every candidate — each problem's pick as a fraction of the fastest candidate measured
//             and against cuSPARSE's best — so a rule table or a profile is scored without a GPU.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/inputs.hpp"
#include "bench/model_data.hpp"
#include "bench/types.hpp"
#include "cli_common.hpp"
#include "common/wall_clock.hpp"
#include "plan/catalogue.hpp"
#include "profiles.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"
#include "spx/stats.hpp"

namespace spx::cli {

void add_plan_command(CLI::App& app);

namespace {

using json = nlohmann::ordered_json;
constexpr std::size_t kAssumedFree = std::size_t{80} << 30;  // an H100's memory: no budget refusals

struct PlanCliOptions {
  std::string input;
  std::vector<std::string> inputs;
  std::string op = "spmv";
  std::string precision = "f64";
  std::string layout = "row";
  std::string mode = "model";
  std::string profile;  // file or device name (profiles.hpp); default the H100's committed profile
  int64_t expected_calls = 100;
  bool per_problem = false;
};

model::Profile profile_of(const std::string& given) {
  return load_named_profile(given.empty() ? std::string(kDefaultProfileDevice) : given).profile;
}

plan::Problem problem_of(const bench::OpSpec& op, const std::string& precision, const std::string& layout) {
  plan::Problem p;
  p.op = op.op == bench::OpKind::Spmm ? plan::Operation::Spmm : plan::Operation::Spmv;
  if (op.op != bench::OpKind::Spmv && op.op != bench::OpKind::Spmm)
    throw Error("spx plan plans spmv and spmm:L products");
  p.cols_dense = p.op == plan::Operation::Spmm ? op.size : 0;
  p.value_bytes = precision == "f32" ? 4 : 8;
  p.layout = layout == "col" ? plan::DenseLayout::ColMajor : plan::DenseLayout::RowMajor;
  return p;
}

void run_show(const PlanCliOptions& o) {
  const plan::Mode mode = plan::mode_from_string(o.mode);
  if (mode != plan::Mode::Rule && mode != plan::Mode::Model)
    throw Error(
        "spx plan show plans without a GPU: --mode rule or model (measure and tune time kernels: spx spmv "
        "--plan)");
  const bench::MatrixSource source = bench::resolve_matrix(o.input);
  const auto A = bench::load_matrix<double, int32_t>(source);
  const model::Profile profile = profile_of(o.profile);
  plan::Problem p = problem_of(bench::parse_ops(o.op).at(0), o.precision, o.layout);
  p.stats = stats(A);
  // Planning's times as measured here (the features on this host's CPU, not on a GPU).
  using detail::us_since;
  const auto t0 = detail::WallClock::now();
  plan::HostExtras extras;  // the same eligibility inputs the front door reads
  plan::fill_host_extras(A, extras, p);
  const double extras_us = us_since(t0);
  const auto t_features = detail::WallClock::now();
  if (mode == plan::Mode::Model) p.features = features(A);
  const double features_us = us_since(t_features);
  plan::Options opt;
  opt.mode = mode;
  opt.expected_calls = o.expected_calls;
  plan::Report r;
  r.problem = p;
  r.mode = mode;
  r.decided_by = plan::to_string(mode);
  r.device = profile.device.name + " (profile; no GPU used)";
  r.profile = mode == plan::Mode::Model ? profile.device.name : "";
  r.expected_calls = o.expected_calls;
  r.candidates = plan::candidates(p, opt, profile.device, kAssumedFree);
  plan::rank(r.candidates, p, opt, mode == plan::Mode::Model ? &profile : nullptr);
  // Nothing is built here: the header's setup is the chosen candidate's estimate, as its table row.
  if (!r.candidates.empty()) r.setup_us = r.winner().setup_us;
  r.extras_us = extras_us;
  r.features_us = mode == plan::Mode::Model ? features_us : 0.0;
  r.planning_us = us_since(t0);
  r.problem.features.reset();
  fmt::print("{}: {}", source.name, r.explain());
}

// --- validate --------------------------------------------------------------------------------------

struct Outcome {
  double fraction = 0;   // oracle / picked
  double vs_vendor = 0;  // vendor best / picked
};

double geomean(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (double x : v)
    if (x > 0) s += std::log(x), ++n;
  return n > 0 ? std::exp(s / n) : std::numeric_limits<double>::quiet_NaN();
}

void run_validate(const PlanCliOptions& o) {
  const plan::Mode mode = plan::mode_from_string(o.mode);
  if (mode != plan::Mode::Rule && mode != plan::Mode::Model)
    throw Error("spx plan validate replays --mode rule or model");
  const model::Profile profile = profile_of(o.profile);
  plan::Options opt;
  opt.mode = mode;
  opt.expected_calls = o.expected_calls;
  std::map<std::string, std::vector<Outcome>> by_class;  // "f64 spmv"
  for (const std::string& path : o.inputs) {
    const bench::ModelData data = bench::load_model_data(path);  // features per matrix
    const json doc = bench::load_json(path);
    // (matrix, precision, L) -> kernel -> µs; the statistics come from the features.
    std::map<std::tuple<std::string, std::string, int64_t>, std::map<std::string, double>> times;
    for (const json& res : doc.at("results")) {
      if (!res.value("checked", false)) continue;
      const std::string op = res.value("op", std::string());
      if (op != "spmv" && op != "spmm") continue;
      const int64_t L = op == "spmm" ? res.value("cols_dense", int64_t{0}) : 0;
      times[{res["matrix"].get<std::string>(), res["precision"].get<std::string>(), L}]
           [res["kernel"].get<std::string>()] = 1e3 * res["ms_median"].get<double>();
    }
    for (const auto& [key, ks] : times) {
      const auto& [matrix, precision, L] = key;
      const auto f = data.features.find(matrix);
      if (f == data.features.end()) continue;
      plan::Problem p;
      p.op = L > 0 ? plan::Operation::Spmm : plan::Operation::Spmv;
      p.cols_dense = L;
      p.value_bytes = precision == "f32" ? 4 : 8;
      p.stats = model::rule_stats(f->second);
      p.features = f->second;
      auto cands = plan::candidates(p, opt, profile.device, kAssumedFree);
      plan::rank(cands, p, opt, mode == plan::Mode::Model ? &profile : nullptr);
      double oracle = std::numeric_limits<double>::infinity(), vendor = oracle;
      for (const plan::Candidate& c : cands) {
        const auto t = ks.find(c.kernel);
        if (!c.eligible || t == ks.end()) continue;
        oracle = std::min(oracle, t->second);
        if (c.owner == "cuSPARSE") vendor = std::min(vendor, t->second);
      }
      // The pick: the best-ranked eligible candidate that was measured (a candidate the run did
      // not time cannot be scored; it is skipped, as a refused build would be).
      const plan::Candidate* pick = nullptr;
      for (const plan::Candidate& c : cands)
        if (c.eligible && ks.count(c.kernel)) {
          pick = &c;
          break;
        }
      if (pick == nullptr || !std::isfinite(oracle)) continue;
      const double t = ks.at(pick->kernel);
      const std::string cls = fmt::format("{} {}", precision, L > 0 ? fmt::format("spmm L={}", L) : "spmv");
      by_class[cls].push_back({oracle / t, std::isfinite(vendor) ? vendor / t : 0.0});
      if (o.per_problem)
        fmt::print("{:<30} {:<13} picked {:<28} {:9.2f} us, {:.3f} of the fastest ({:.2f} us)\n", matrix, cls,
                   pick->kernel, t, oracle / t, oracle);
    }
  }
  fmt::print(
      "{} mode replayed on recorded times (profile {}, expected_calls {}): the pick as a fraction of\n"
      "the fastest candidate measured, and against cuSPARSE's best; geomean (worst)\n",
      plan::to_string(mode), profile.device.name, o.expected_calls);
  std::vector<double> all;
  for (const auto& [cls, v] : by_class) {
    std::vector<double> fr, vv;
    for (const Outcome& x : v) {
      fr.push_back(x.fraction);
      all.push_back(x.fraction);
      if (x.vs_vendor > 0) vv.push_back(x.vs_vendor);
    }
    fmt::print("  {:<14} n {:>3}  {:.3f} ({:.2f})  {:.2f}x ({:.2f})\n", cls, v.size(), geomean(fr),
               *std::min_element(fr.begin(), fr.end()), geomean(vv),
               vv.empty() ? 0.0 : *std::min_element(vv.begin(), vv.end()));
  }
  if (all.empty()) throw Error("no problem had both features and measured candidates");
  fmt::print("  {:<14} n {:>3}  {:.3f}\n", "all", all.size(), geomean(all));
}

struct KernelsOptions {
  std::string op;      // "", spmv or spmm
  std::string layout;  // "", row or col (SpMM)
  bool names = false;
};

void run_kernels(const KernelsOptions& o) {
  std::vector<std::string> names;
  for (const plan::KernelRow& r : plan::catalogue()) {
    if (!o.op.empty() && (o.op == "spmm") != r.spmm()) continue;
    const char* layout = r.layout == plan::DenseLayout::RowMajor ? "row" : "col";
    if (!o.layout.empty() && r.spmm() && o.layout != layout) continue;
    if (o.names) {
      names.emplace_back(r.name);
      continue;
    }
    const char* det = r.determinism == plan::Determinism::Always  ? "deterministic"
                      : r.determinism == plan::Determinism::Never ? "not deterministic"
                                                                  : "deterministic unless long rows";
    fmt::print("{:<28} {:<5} {:<4} {:<7} {:<9} {}\n", r.name, r.spmm() ? "spmm" : "spmv",
               r.spmm() ? layout : "-", r.format, r.owner, det);
  }
  if (o.names) fmt::print("{}\n", fmt::join(names, ","));
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto o = std::make_shared<PlanCliOptions>();
  CLI::App* cmd =
      app.add_subcommand("plan", "The planner without a GPU: show a plan, replay modes on measurements");
  cmd->require_subcommand(1);
  CLI::App* show = cmd->add_subcommand("show", "The plan the rule or the model makes for a product (no GPU)");
  show->add_option("matrix", o->input, "Matrix Market file or generator spec")
      ->required()
      ->type_name("FILE|SPEC");
  show->add_option("--op", o->op, "spmv or spmm:L")->capture_default_str();
  show->add_option("--precision", o->precision, "f32 or f64")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  show->add_option("--layout", o->layout, "SpMM's B and C: row or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  show->add_option("--mode", o->mode, "rule or model")->capture_default_str();
  show->add_option("--profile", o->profile, "Profile file or device name, e.g. h200 (default: the H100's)")
      ->type_name("FILE|DEVICE");
  show->add_option("--expected-calls", o->expected_calls, "Products the setup is amortised over")
      ->transform(count_in(1, kMaxExpectedCalls, "calls"))
      ->capture_default_str();
  show->callback([o] { run_show(*o); });

  auto k = std::make_shared<KernelsOptions>();
  CLI::App* kernels =
      cmd->add_subcommand("kernels", "The kernel catalogue: every candidate the planner knows");
  kernels->add_option("--op", k->op, "Only spmv or spmm")->check(CLI::IsMember({"spmv", "spmm"}));
  kernels->add_option("--layout", k->layout, "Only SpMM of this layout: row or col")
      ->check(CLI::IsMember({"row", "col"}));
  kernels->add_flag("--names", k->names, "One comma-separated line of names (for spx bench --kernels)");
  kernels->callback([k] { run_kernels(*k); });

  CLI::App* val =
      cmd->add_subcommand("validate", "Replay the rule or model mode on recorded candidate timings");
  val->add_option("bench", o->inputs, "spx bench JSON with every candidate timed (scripts/planner-check)")
      ->required()
      ->type_name("JSON");
  val->add_option("--mode", o->mode, "rule or model")->capture_default_str();
  val->add_option("--profile", o->profile, "Profile file or device name, e.g. h200 (default: the H100's)")
      ->type_name("FILE|DEVICE");
  val->add_option("--expected-calls", o->expected_calls, "Products the setup is amortised over")
      ->transform(count_in(1, kMaxExpectedCalls, "calls"))
      ->capture_default_str();
  val->add_flag("--per-problem", o->per_problem, "Print every pick");
  val->callback([o] { run_validate(*o); });
  show->footer(R"(Examples:
  spx plan show cage11.mtx.gz --op spmm:8 --precision f32
  spx plan show stencil27:n=64 --mode rule --profile h200)");
  kernels->footer(R"(Examples:
  spx plan kernels --op spmv
  spx plan kernels --names)");
  val->footer(R"(Examples:
  spx plan validate planner.json.gz --mode model --expected-calls 1000000 --per-problem)");
  cmd->footer(R"(Examples:
  spx plan show cage11.mtx.gz --op spmm:8 --precision f32
  spx plan kernels
  spx plan validate planner.json.gz --mode model)");
}

}  // namespace spx::cli
