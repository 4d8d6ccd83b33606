// spx tune FILE|SPEC... [--suite NAME] : the exhaustive search behind the CSR fixed rule
// (Reguly & Giles §5.4). For each matrix and precision it times the parametrised CSR SpMV at every
// (coop, block_size, repeat) of the grid, the fixed rule's plan, CSR-scalar, CSR-vector and
// cuSPARSE CSR ALG1/ALG2, all warm medians of CUDA-event-timed runs (spx::cuda::time_kernel);
// prints the best, the rule's pick and its fraction of the best; writes everything as JSON, which
// tools/fit_csr_rule.py reads to refit the rule table (docs/spmv-csr.md).
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench/check.hpp"
#include "bench/inputs.hpp"
#include "bench/provenance.hpp"
#include "bench/report.hpp"
#include "bench/suites.hpp"
#include "cli_common.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmv.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/error.hpp"
#include "spx/stats.hpp"

namespace spx::cli {

void add_tune_command(CLI::App& app);

namespace {

using json = nlohmann::ordered_json;

struct TuneOptions {
  std::vector<std::string> inputs;
  std::vector<std::string> suites;
  std::string precisions = "f64";
  std::string coops = "1,2,4,8,16,32";
  std::string blocks = "128,256,512,1024";
  std::string repeats = "1,2,4,8,16";
  int warmup = 2;
  int min_runs = 5;
  double min_time = 0.001;
  std::string max_nnz;
  std::string json_path;
  bool quiet = false;
};

#ifdef SPX_HAVE_CUDA

std::vector<int> parse_int_list(const std::string& text, const std::string& option) {
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    if (!item.empty()) {
      const int v = static_cast<int>(parse_count(item, option, 1, kMaxIndex));
      out.push_back(v);
    }
    start = comma + 1;
  }
  if (out.empty()) throw Error(fmt::format("{}: empty list", option));
  return out;
}

// Reguly & Giles' minimum traffic: every nonzero and column index once, the row pointer, x and y
// once each (y written; beta = 0 never reads it).
template <class T>
double minimum_bytes(const MatrixStats& s) {
  const double st = sizeof(T), si = sizeof(int32_t);
  return static_cast<double>(s.nnz) * (st + si) + static_cast<double>(s.rows + 1) * si +
         static_cast<double>(s.cols) * st + static_cast<double>(s.rows) * st;
}

json params_json(const cuda::CsrSpmvParams& p) {
  return json{{"block_size", p.block_size}, {"coop", p.coop}, {"repeat", p.repeat}};
}

json rule_table_json(const plan::CsrRuleTable& t) {
  json coop = json::array(), repeat = json::array();
  for (const auto& s : t.coop_steps)
    coop.push_back(
        json{{"avg_row_below", std::isfinite(s.avg_row_below) ? json(s.avg_row_below) : json(nullptr)},
             {"coop", s.coop}});
  for (const auto& s : t.repeat_steps)
    repeat.push_back(
        json{{"rows_per_resident_group_from", s.rows_per_resident_group_from}, {"repeat", s.repeat}});
  return json{{"coop_steps", coop},
              {"block_size", t.block_size},
              {"repeat_steps", repeat},
              {"long_row_min_iterations", t.long_row_min_iterations},
              {"long_row_share", t.long_row_share},
              {"halve_coop_rows_per_group", t.halve_coop_rows_per_group},
              {"halve_coop_avg_below", t.halve_coop_avg_below}};
}

// Totals over the matrices, for the closing lines.
struct Summary {
  int matrices = 0;
  double log_rule_fraction = 0, sum_rule_fraction = 0;
  double log_rule_speedup = 0, log_best_speedup = 0;
  int with_cusparse = 0;
  int failed = 0;
};

template <class T>
std::vector<T> tune_x(int64_t n) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<T> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = static_cast<T>(d(rng));  // never zero-filled: zeros can time faster
  return x;
}

template <class T>
json check_product(cuda::Context& ctx, const Csr<T, int32_t>& A, std::span<const T> x,
                   cuda::DeviceBuffer<T>& dy, const std::function<void()>& launch) {
  std::vector<T> nan(dy.size(), std::numeric_limits<T>::quiet_NaN());
  cuda::copy_to_device_sync(ctx, dy.data(), nan.data(), dy.bytes());
  launch();
  ctx.synchronize();
  const std::vector<T> got = cuda::to_host(ctx, dy);
  const bench::CheckResult r = bench::check_spmv(A, x, bench::OutputView(std::span<const T>(got)));
  return json{{"passed", r.passed}, {"rel_error", r.relative_error}, {"check_ratio", r.worst_ratio}};
}

struct Grid {
  std::vector<int> coops, blocks, repeats;
};

template <class T>
json tune_matrix(cuda::Context& ctx, const bench::MatrixSource& source, const std::string& suite,
                 const Grid& grid, const cuda::TimingOptions& timing, double copy_gbs, std::ostream& out,
                 Summary& summary) {
  const Csr<T, int32_t> A = bench::load_matrix<T, int32_t>(source);
  const MatrixStats st = stats(A);
  const char* precision = sizeof(T) == 4 ? "f32" : "f64";
  const auto dA = cuda::upload(ctx, A);
  const std::vector<T> hx = tune_x<T>(A.cols);
  auto dx = cuda::to_device(ctx, hx, "x");
  cuda::DeviceBuffer<T> dy(static_cast<std::size_t>(A.rows), "y");
  const std::span<const T> x(dx.span());
  const std::span<T> y(dy.span());
  auto time = [&](const std::function<void()>& launch) { return cuda::time_kernel(ctx, launch, timing); };
  const double bytes = minimum_bytes<T>(st);
  auto gbs = [&](double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; };

  fmt::print(out, "{} {}  {} x {}, {} nonzeros, rows {}/{:.1f}/{} min/avg/max\n", source.name, precision,
             A.rows, A.cols, A.nnz(), st.min_row, st.avg_row, st.max_row);

  // The grid: one plan per coop (its long-row threshold depends on coop), params swapped in.
  json configs = json::array();
  cuda::CsrSpmvParams best{};
  double best_ms = std::numeric_limits<double>::infinity();
  json per_coop = json::object();
  for (int coop : grid.coops) {
    cuda::CsrSpmvPlan plan =
        cuda::plan_csr_spmv(ctx, dA, A, cuda::CsrSpmvParams{grid.blocks.front(), coop, 1});
    double coop_best = std::numeric_limits<double>::infinity();
    cuda::CsrSpmvParams coop_best_params{};
    for (int block : grid.blocks) {
      for (int repeat : grid.repeats) {
        plan.params = cuda::CsrSpmvParams{block, coop, repeat};
        const Timing t = time([&] { cuda::spmv_csr(ctx, plan, dA, x, y); });
        configs.push_back(json{{"block_size", block},
                               {"coop", coop},
                               {"repeat", repeat},
                               {"ms", t.median_ms},
                               {"ms_min", t.min_ms},
                               {"runs", t.runs},
                               {"long_rows", plan.long_rows.size()},
                               {"long_row_threshold", plan.long_row_threshold}});
        if (t.median_ms < coop_best) {
          coop_best = t.median_ms;
          coop_best_params = plan.params;
        }
        if (t.median_ms < best_ms) {
          best_ms = t.median_ms;
          best = plan.params;
        }
      }
    }
    per_coop[std::to_string(coop)] = json{{"params", params_json(coop_best_params)}, {"ms", coop_best}};
    fmt::print(out, "  coop {:>2}: best {:<34} {:9.4f} ms  (long rows: {} over {} nonzeros)\n", coop,
               cuda::to_string(coop_best_params), coop_best, plan.long_rows.size(), plan.long_row_threshold);
  }

  // The fixed rule exactly as a user gets it (its own plan and long-row threshold).
  cuda::CsrSpmvPlan rule_plan = cuda::plan_csr_spmv(ctx, dA, A);
  const Timing rule = time([&] { cuda::spmv_csr(ctx, rule_plan, dA, x, y); });
  const double fraction = rule.median_ms > 0 ? best_ms / rule.median_ms : 1.0;

  // Baselines.
  json baselines = json::object();
  const Timing scalar = time([&] { cuda::spmv_csr_scalar(ctx, dA, x, y); });
  baselines["csr_scalar"] = scalar.median_ms;
  const Timing vector = time([&] { cuda::spmv_csr_vector(ctx, dA, x, y); });
  baselines["csr_vector"] = vector.median_ms;
  double cusparse_best = std::numeric_limits<double>::infinity();
  for (auto alg : {cuda::CusparseSpmvAlg::CsrAlg1, cuda::CusparseSpmvAlg::CsrAlg2}) {
    cuda::CusparseSpmv<T, int32_t> op(ctx, dA, alg, x, y);
    const Timing t = time([&] { op.run(); });
    baselines[cuda::kernel_name(alg)] = t.median_ms;
    cusparse_best = std::min(cusparse_best, t.median_ms);
  }

  // Correctness of the two configurations the report leans on.
  const std::span<const T> host_x(hx);
  cuda::CsrSpmvPlan best_plan = cuda::plan_csr_spmv(ctx, dA, A, best);
  json checks{{"rule", check_product(ctx, A, host_x, dy, [&] { cuda::spmv_csr(ctx, rule_plan, dA, x, y); })},
              {"best", check_product(ctx, A, host_x, dy, [&] { cuda::spmv_csr(ctx, best_plan, dA, x, y); })}};
  const bool passed = checks["rule"]["passed"].get<bool>() && checks["best"]["passed"].get<bool>();

  fmt::print(out, "  best   {:<34} {:9.4f} ms  {:7.1f} GB/s min traffic{}\n", cuda::to_string(best), best_ms,
             gbs(best_ms),
             copy_gbs > 0 ? fmt::format(" ({:.0f}% of copy)", 100 * gbs(best_ms) / copy_gbs) : "");
  fmt::print(out, "  rule   {:<34} {:9.4f} ms  {:5.1f}% of best; long rows {} (threshold {})\n",
             cuda::to_string(rule_plan.params), rule.median_ms, 100 * fraction, rule_plan.long_rows.size(),
             rule_plan.long_row_threshold);
  fmt::print(
      out,
      "  others csr_scalar {:.4f}, csr_vector {:.4f}, cusparse_csr_alg1 {:.4f}, cusparse_csr_alg2 {:.4f} ms; "
      "rule vs best cuSPARSE {:.2f}x{}\n\n",
      scalar.median_ms, vector.median_ms, baselines["cusparse_csr_alg1"].get<double>(),
      baselines["cusparse_csr_alg2"].get<double>(), cusparse_best / rule.median_ms,
      passed ? "" : "  CHECK FAILED against spx::ref");

  ++summary.matrices;
  summary.log_rule_fraction += std::log(fraction);
  summary.sum_rule_fraction += fraction;
  if (std::isfinite(cusparse_best) && cusparse_best > 0 && rule.median_ms > 0 && best_ms > 0) {
    ++summary.with_cusparse;
    summary.log_rule_speedup += std::log(cusparse_best / rule.median_ms);
    summary.log_best_speedup += std::log(cusparse_best / best_ms);
  }
  if (!passed) ++summary.failed;

  return json{{"name", source.name},
              {"source", source.kind == bench::MatrixSource::Kind::Spec ? "spec" : "file"},
              {"location", source.location},
              {"suite", suite},
              {"precision", precision},
              {"rows", A.rows},
              {"cols", A.cols},
              {"nnz", A.nnz()},
              {"stats", bench::to_json(st)},
              {"minimum_bytes", bytes},
              {"configs", configs},
              {"best_per_coop", per_coop},
              {"best", json{{"params", params_json(best)}, {"ms", best_ms}, {"gbs_min", gbs(best_ms)}}},
              {"rule", json{{"params", params_json(rule_plan.params)},
                            {"ms", rule.median_ms},
                            {"fraction_of_best", fraction},
                            {"gbs_min", gbs(rule.median_ms)},
                            {"long_rows", rule_plan.long_rows.size()},
                            {"long_row_nnz", rule_plan.long_row_nnz},
                            {"long_row_threshold", rule_plan.long_row_threshold}}},
              {"baselines", baselines},
              {"cusparse_best_ms", cusparse_best},
              {"rule_speedup_vs_cusparse", cusparse_best / rule.median_ms},
              {"checks", checks}};
}

void run_tune(const TuneOptions& o) {
  const Grid grid{parse_int_list(o.coops, "--coop"), parse_int_list(o.blocks, "--block"),
                  parse_int_list(o.repeats, "--repeat")};
  for (int c : grid.coops)
    for (int b : grid.blocks)
      for (int r : grid.repeats) cuda::validate(cuda::CsrSpmvParams{b, c, r}, "spx tune grid");
  std::vector<std::string> precisions;
  for (std::size_t start = 0; start <= o.precisions.size();) {
    std::size_t comma = o.precisions.find(',', start);
    if (comma == std::string::npos) comma = o.precisions.size();
    const std::string p = o.precisions.substr(start, comma - start);
    if (p != "f32" && p != "f64")
      throw Error(fmt::format("--precision {}: use f32, f64 or f32,f64", o.precisions));
    precisions.push_back(p);
    start = comma + 1;
  }
  const int64_t max_nnz =
      o.max_nnz.empty() ? -1 : parse_count(o.max_nnz, "--max-nnz", 0, kMaxCount, "nonzeros");

  // (source, suite it came from)
  std::vector<std::pair<bench::MatrixSource, std::string>> sources;
  for (const auto& s : o.suites)
    for (auto& m : bench::suite_sources(s)) sources.emplace_back(std::move(m), s);
  for (auto& m : bench::resolve_matrices(o.inputs)) sources.emplace_back(std::move(m), "");
  if (sources.empty()) throw Error("no matrices given (FILE, SPEC or --suite NAME)");
  if (cuda::device_count() == 0) throw Error("spx tune needs a GPU: " + cuda::gpu_unavailable_reason());

  std::ostream& out = human_output(o.json_path);
  cuda::Context ctx;
  const cuda::CopyBandwidth copy = cuda::measure_copy_bandwidth(ctx);
  const cuda::DeviceProps& props = ctx.props();
  fmt::print(out, "spx tune: {}; copy bandwidth {:.0f} GB/s; grid coop {} x block {} x repeat {}\n\n",
             props.summary(), copy.gbs, fmt::join(grid.coops, ","), fmt::join(grid.blocks, ","),
             fmt::join(grid.repeats, ","));

  cuda::TimingOptions timing;
  timing.warmup = o.warmup;
  timing.min_runs = o.min_runs;
  timing.min_seconds = o.min_time;

  json matrices = json::array();
  json errors = json::array();
  Summary summary;
  for (const auto& [source, suite] : sources) {
    if (max_nnz >= 0 && source.approx_nnz > max_nnz) {
      fmt::print(out, "{}: skipped, about {} nonzeros > --max-nnz {}\n\n", source.name, source.approx_nnz,
                 max_nnz);
      continue;
    }
    for (const std::string& p : precisions) {
      if (!o.quiet) fmt::print(std::cerr, "tuning {} {}\n", source.name, p);
      try {
        matrices.push_back(
            p == "f32" ? tune_matrix<float>(ctx, source, suite, grid, timing, copy.gbs, out, summary)
                       : tune_matrix<double>(ctx, source, suite, grid, timing, copy.gbs, out, summary));
      } catch (const std::exception& e) {
        fmt::print(out, "{} {}: error: {}\n\n", source.name, p, e.what());
        errors.push_back(json{{"matrix", source.name}, {"precision", p}, {"error", e.what()}});
      }
      out.flush();
    }
  }

  if (summary.matrices > 0) {
    const double n = summary.matrices;
    fmt::print(out,
               "fixed rule: {:.1f}% of the exhaustive optimum (geometric mean), {:.1f}% (arithmetic) over {} "
               "matrix-precision pairs\n",
               100 * std::exp(summary.log_rule_fraction / n), 100 * summary.sum_rule_fraction / n,
               summary.matrices);
  }
  if (summary.with_cusparse > 0) {
    const double n = summary.with_cusparse;
    fmt::print(
        out,
        "speedup over the best cuSPARSE CSR (geometric mean): fixed rule {:.2f}x, exhaustive best {:.2f}x\n",
        std::exp(summary.log_rule_speedup / n), std::exp(summary.log_best_speedup / n));
  }

  if (!o.json_path.empty()) {
    json device{{"name", props.name},
                {"sm_count", props.sm_count},
                {"max_threads_per_sm", props.max_threads_per_sm},
                {"max_blocks_per_sm", props.max_blocks_per_sm},
                {"max_threads_per_block", props.max_threads_per_block},
                {"l2_bytes", props.l2_bytes},
                {"copy_gbs", copy.gbs}};
    json report{
        {"tool", "spx tune"},
        {"schema", 1},
        {"commit", bench::source_commit()},
        {"date", bench::utc_now_iso8601()},
        {"device", device},
        {"grid", json{{"coop", grid.coops}, {"block_size", grid.blocks}, {"repeat", grid.repeats}}},
        {"timing",
         json{{"warmup", timing.warmup}, {"min_runs", timing.min_runs}, {"min_seconds", timing.min_seconds}}},
        {"rule_table", rule_table_json(plan::default_csr_rule_table())},
        {"matrices", matrices},
        {"errors", errors}};
    bench::write_json(o.json_path, report);
  }
  if (!errors.empty() || summary.failed > 0) {
    throw Error(fmt::format("{} matrix run(s) failed and {} failed their check (see above)", errors.size(),
                            summary.failed));
  }
}

#else

void run_tune(const TuneOptions&) {
  throw Error("spx tune needs a GPU: spx was built without CUDA (-DSPX_CUDA=OFF)");
}

#endif

}  // namespace

void add_tune_command(CLI::App& app) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tune",
      "Exhaustive search of the CSR SpMV parameters (coop, block size, repeat) against the fixed rule");
  cmd->add_option("matrices", o->inputs, "Matrix Market files, folders of them, or generator specs")
      ->type_name("FILE|DIR|SPEC");
  cmd->add_option("--suite", o->suites,
                  "Named matrix set: small, standard, shared, calibration or validation (repeatable)")
      ->type_name("NAME");
  cmd->add_option("--precision", o->precisions, "Precisions: f32, f64 or f32,f64")->capture_default_str();
  cmd->add_option("--coop", o->coops, "Threads per row to try")->type_name("LIST")->capture_default_str();
  cmd->add_option("--block", o->blocks, "Block sizes to try")->type_name("LIST")->capture_default_str();
  cmd->add_option("--repeat", o->repeats, "Row batches per block to try")
      ->type_name("LIST")
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Untimed runs before each configuration")
      ->transform(count_in(0, kMaxRuns, "runs"))
      ->capture_default_str();
  cmd->add_option("--runs", o->min_runs, "At least this many timed runs per configuration")
      ->transform(count_in(1, kMaxRuns, "runs"))
      ->capture_default_str();
  cmd->add_option("--min-time", o->min_time, "...and at least this many seconds of device time")
      ->check(real_in(0, kMaxTuneSeconds, "seconds"))
      ->capture_default_str();
  cmd->add_option("--max-nnz", o->max_nnz, "Skip matrices with more nonzeros (e.g. 2e7)")->type_name("N");
  cmd->add_option("--json", o->json_path, "Write every timing as JSON to FILE ('-': stdout)")
      ->type_name("FILE|-");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress on stderr");
  cmd->footer(R"(Times are warm medians (CUDA events, spx::cuda::time_kernel). 'GB/s min traffic' counts every
nonzero, column index, row pointer, x and y once (Reguly & Giles). The JSON feeds
tools/fit_csr_rule.py, which refits the rule table (docs/spmv-csr.md).

Examples:
  spx tune cage11.mtx.gz
  spx tune --suite shared --suite small --precision f32,f64 --json tune.json
  spx tune stencil27:n=128 --coop 4,8,16 --block 256 --repeat 1,4)");
  cmd->callback([o] { run_tune(*o); });
}

}  // namespace spx::cli
