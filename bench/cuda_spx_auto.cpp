// The front door in `spx bench`: spx_auto (spmv and spmm:L) plans through
// spx::cuda::SparseMatrix and times the planned product like any other entry, so the planner is
// measured in the same run as every candidate it chooses among (the per-matrix oracle) and
// cuSPARSE's best. Planning is untimed (prepare) and reported in the params beside the product:
// mode, the chosen kernel and whose it is, how it was decided, planning/features/setup µs, the
// predicted and measured µs of the winner, and the tuner's calls.
//
//   spx_auto          mode auto (the library's default)
//   spx_auto_default_calls  mode auto planned for the library's default expected calls (100)
//   ..._col           SpMM entries for column-major B and C (the others are row-major)
//   spx_auto_rule     mode rule      (study entries: --studies)
//   spx_auto_model    mode model
//   spx_auto_measure  mode measure
//   spx_auto_tune     mode tune: prepare runs products until the tuner freezes
//   spx_auto_tune_csr the tuner on csr_param alone (against spx tune's exhaustive search)
//   spx_auto_index64  mode auto on the matrix held with 64-bit row offsets (against spx_auto's 32
//                     bits in the same run: what a matrix past 2^31 nonzeros pays for its width)
//   rcm_sell_c16      a catalogue row with no format entry of its own, timed through the front door
//                     with the planner restricted to it (its setup in prepare, untimed)
// Parameters: expected_calls (default 1000000, the steady state the oracle is measured in),
// measure_top, vendor (0/1), deterministic (0/1), mode (rule|model|measure|tune|auto, overrides the
// entry's), tuning_cache (a file), explain (0/1: the plan's explain() text as param "plan").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "bench/cuda_support.hpp"
#include "bench/registry.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/error.hpp"

namespace spx::bench {
namespace {

constexpr int64_t kDefaultExpectedCalls = 1000000;
// The most products prepare runs for a plan still timing on real calls (a tuner's trials, a race).
constexpr int kMaxTrialCalls = 4096;

// What an entry plans with beyond its mode.
struct EntryPlan {
  plan::Mode mode = plan::Mode::Auto;
  std::string only;                                 // the candidates restricted to this kernel
  int64_t expected_calls = kDefaultExpectedCalls;   // the library's default: plan::Options{}
  Layout layout = Layout::RowMajor;                 // SpMM's B and C
  plan::IndexWidth width = plan::IndexWidth::Auto;  // the row offsets' width on the device
};

plan::Options options_of(const Params& params, const EntryPlan& how) {
  plan::Options o;
  o.mode = how.mode;
  if (!how.only.empty()) o.kernels = {how.only};
  o.expected_calls = how.expected_calls;
  o.tuning_cache.assign(1, '-');  // "-": a benchmark plans afresh unless a cache is named
  for (const Param& p : params) {
    const int64_t* i = std::get_if<int64_t>(&p.value);
    const std::string* s = std::get_if<std::string>(&p.value);
    if (p.key == "expected_calls" && i != nullptr && *i >= 1)
      o.expected_calls = *i;
    else if (p.key == "measure_top" && i != nullptr && *i >= 1 && *i <= 64)
      o.measure_top = static_cast<int>(*i);
    else if (p.key == "vendor" && i != nullptr && (*i == 0 || *i == 1))
      o.vendor = *i == 1;
    else if (p.key == "deterministic" && i != nullptr && (*i == 0 || *i == 1))
      o.deterministic_only = *i == 1;
    else if (p.key == "mode" && s != nullptr)
      o.mode = plan::mode_from_string(*s);
    else if (p.key == "tuning_cache" && s != nullptr)
      o.tuning_cache = *s;
    else if (p.key == "tune_calls" && i != nullptr && *i >= 1 && *i <= 1000)
      o.tune_calls = static_cast<int>(*i);
    else if (p.key == "explain" && i != nullptr && (*i == 0 || *i == 1))
      continue;  // report_params' business
    else
      throw Error(
          fmt::format("spx_auto has no parameter '{}' = {} (it takes expected_calls >= 1, measure_top 1..64, "
                      "vendor 0/1, deterministic 0/1, mode rule|model|measure|tune, tuning_cache FILE, "
                      "explain 0/1)",
                      p.key, to_string(p.value)));
  }
  return o;
}

// An entry restricted to one candidate times that candidate or nothing: the planner's reason for
// refusing it is the entry's skip reason.
void require_only(const plan::Report& r, const EntryPlan& how) {
  if (how.only.empty() || r.winner().kernel == how.only) return;
  for (const plan::Candidate& c : r.candidates)
    if (c.kernel == how.only) throw Error(fmt::format("{} is not eligible: {}", how.only, c.why_not));
  throw Error(fmt::format("{} is not a candidate of this problem", how.only));
}

bool wants_explain(const Params& params) {
  const ParamValue* v = find_param(params, "explain");
  return v != nullptr && std::get_if<int64_t>(v) != nullptr && *std::get_if<int64_t>(v) == 1;
}

// The plan in the params; with explain = 1 also its explain() text as "plan".
void report_params(const plan::Report& r, const Params& given, Params& out) {
  const plan::Candidate& w = r.winner();
  out.push_back({"mode", std::string(plan::to_string(r.mode))});
  out.push_back({"chosen", w.kernel});
  out.push_back({"owner", w.owner});
  out.push_back({"config", w.params});
  out.push_back({"decided_by", r.decided_by});
  out.push_back({"expected_calls", r.expected_calls});
  out.push_back({"planning_us", r.planning_us});
  out.push_back({"features_us", r.features_us});
  out.push_back({"extras_us", r.extras_us});
  out.push_back({"setup_us", r.setup_us});
  if (!std::isnan(w.predicted_us)) out.push_back({"predicted_us", w.predicted_us});
  if (!std::isnan(w.measured_us)) out.push_back({"measured_us", w.measured_us});
  out.push_back({"tuner_calls", r.tuner_calls});
  if (r.decided_by == "raced") {
    // What the race's calls lost against the winner: each contender ran tuner_calls / n calls.
    double excess = 0;
    int n = 0;
    for (const plan::Candidate& c : r.candidates)
      if (!std::isnan(c.measured_us)) ++n, excess += std::max(0.0, c.measured_us - w.measured_us);
    if (n > 0) out.push_back({"race_excess_us", excess * static_cast<double>(r.tuner_calls) / n});
  }
  int64_t eligible = 0;
  for (const plan::Candidate& c : r.candidates) eligible += c.eligible ? 1 : 0;
  out.push_back({"candidates", eligible});
  if (wants_explain(given)) out.push_back({"plan", r.explain()});
}

// The front door on the Problem's matrix as held: a matrix read with 64-bit indices (spx bench
// --index 64) stays at 64 bits on the device whatever the entry's width.
template <class T>
std::shared_ptr<cuda::SparseMatrix<T>> front_door(const Problem& p, const EntryPlan& how) {
  cuda::Context& ctx = bench_context();
  if (p.offset_bits == 64)
    return std::make_shared<cuda::SparseMatrix<T>>(ctx, *p.input<T>().A_wide, plan::IndexWidth::Bits64);
  return std::make_shared<cuda::SparseMatrix<T>>(ctx, *p.input<T>().A, how.width);
}

template <class T>
std::unique_ptr<Instance> auto_spmv(const Problem& p, const EntryPlan& how) {
  cuda::Context& ctx = bench_context();
  auto A = front_door<T>(p, how);
  auto x = device_x<T>(p);
  auto y = std::make_shared<cuda::DeviceBuffer<T>>(static_cast<std::size_t>(p.rows), "y");
  const plan::Report& r = A->plan_spmv(options_of(p.params, how));
  require_only(r, how);
  const auto launch = [A, x, y] {
    cuda::spmv(bench_context(), *A, std::span<const T>(x->span()), y->span());
  };
  // Tune and a race: the trials run on real products; the benchmark times the frozen plan.
  for (int i = 0; i < kMaxTrialCalls && !A->spmv_report()->frozen; ++i) {
    launch();
    ctx.synchronize();  // as a solver's loop between products: each trial's events are complete
  }
  ctx.synchronize();
  CudaInstanceParts parts;
  parts.launch = launch;
  parts.view = [y] { return staged_view(*y); };
  parts.output = y->data();
  parts.output_bytes = y->bytes();
  parts.working_set = A->device_bytes() + r.winner().extra_bytes + x->bytes() + y->bytes();
  report_params(*A->spmv_report(), p.params, parts.params);
  parts.params.push_back({"offset_bits", int64_t{A->offset_bits()}});
  return std::make_unique<CudaInstance>(std::move(parts));
}

template <class T>
std::unique_ptr<Instance> auto_spmm(const Problem& p, const EntryPlan& how) {
  cuda::Context& ctx = bench_context();
  auto A = front_door<T>(p, how);
  auto B = device_b<T>(p, how.layout);
  auto C = std::make_shared<cuda::DeviceDense<T>>(make_c<T>(p, how.layout));
  const cuda::DenseView<const T> b = cuda::view(*B);
  const cuda::DenseView<T> c = cuda::view(*C);
  const Layout layout = how.layout;
  (void)A->plan_spmm(p.cols_dense, layout, options_of(p.params, how));
  const auto launch = [A, B, C, b, c] { cuda::spmm(bench_context(), *A, b, c); };
  launch();  // the first call re-points the prepared operands (and rebuilds on another ld)
  for (int i = 0; i < kMaxTrialCalls && !A->spmm_report(p.cols_dense, layout)->frozen; ++i) {
    launch();
    ctx.synchronize();
  }
  ctx.synchronize();
  const plan::Report& r = *A->spmm_report(p.cols_dense, layout);
  CudaInstanceParts parts;
  parts.launch = launch;
  parts.view = [C] { return staged_view(*C); };
  parts.output = C->data.data();
  parts.output_bytes = C->bytes();
  parts.working_set = A->device_bytes() + r.winner().extra_bytes + B->bytes() + C->bytes();
  parts.params = {{"layout", std::string(how.layout == Layout::RowMajor ? "row" : "col")},
                  {"ld_b", B->ld},
                  {"ld_c", C->ld}};
  report_params(r, p.params, parts.params);
  parts.params.push_back({"offset_bits", int64_t{A->offset_bits()}});
  return std::make_unique<CudaInstance>(std::move(parts));
}

void add(Registry& registry, OpKind op, const std::string& name, const EntryPlan& how, bool study) {
  auto e = cuda_entry(
      name, op, Format::Csr, false,
      how.only.empty()
          ? fmt::format(
                "spx's front door (spx::cuda::SparseMatrix{}): planned in {} mode for {} expected calls "
                "over spx's and cuSPARSE's kernels; planning untimed, reported in params",
                how.width == plan::IndexWidth::Bits64 ? ", 64-bit row offsets" : "",
                plan::to_string(how.mode), how.expected_calls)
          : fmt::format("the planner's {} candidate through the front door (spx::cuda::SparseMatrix, "
                        "planned with only it allowed; its setup untimed, reported in params)",
                        how.only));
  e.study = study;
  e.offsets64 = true;  // the front door plans at either width (a candidate-restricted entry skips with
                       // the planner's reason)
  if (op == OpKind::Spmm) e.layout = how.layout;
  e.check_params = [how](const Problem&, const Params& params) -> std::string {
    try {
      (void)options_of(params, how);
      return {};
    } catch (const Error& err) {
      return err.what();
    }
  };
  e.prepare = [op, how](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      return op == OpKind::Spmv ? auto_spmv<T>(p, how) : auto_spmm<T>(p, how);
    });
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_spx_auto(Registry& registry) {
  const int64_t library_default = plan::Options{}.expected_calls;
  for (OpKind op : {OpKind::Spmv, OpKind::Spmm}) {
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
      if (op == OpKind::Spmv && layout == Layout::ColMajor) continue;
      const std::string col = layout == Layout::ColMajor ? "_col" : "";
      const auto plan_of = [&](plan::Mode mode, int64_t calls = kDefaultExpectedCalls) {
        return EntryPlan{mode, {}, calls, layout};
      };
      add(registry, op, "spx_auto" + col, plan_of(plan::Mode::Auto), false);  // the default a user gets
      // The same at the library's default expected calls (planning and races amortised over them).
      add(registry, op, "spx_auto_default_calls" + col, plan_of(plan::Mode::Auto, library_default), true);
      add(registry, op, "spx_auto_rule" + col, plan_of(plan::Mode::Rule), true);
      add(registry, op, "spx_auto_model" + col, plan_of(plan::Mode::Model), true);
      add(registry, op, "spx_auto_measure" + col, plan_of(plan::Mode::Measure), true);
      add(registry, op, "spx_auto_tune" + col, plan_of(plan::Mode::Tune), true);
      EntryPlan wide = plan_of(plan::Mode::Auto);
      wide.width = plan::IndexWidth::Bits64;
      add(registry, op, "spx_auto_index64" + col, wide, true);
    }
  }
  // The tuner alone on csr_param's knobs, to compare with spx tune's exhaustive search.
  add(registry, OpKind::Spmv, "spx_auto_tune_csr", EntryPlan{plan::Mode::Tune, "csr_param"}, true);
  // Catalogue rows timed through the front door: where the planner refuses the candidate (not
  // square, x gathered well) the entry reports its reason and times nothing.
  add(registry, OpKind::Spmv, "rcm_sell_c16", EntryPlan{plan::Mode::Rule, "rcm_sell_c16"}, false);
}

}  // namespace spx::bench
