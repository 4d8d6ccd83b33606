// spx model calibrate | predict | validate: the performance model (spx/model.hpp, docs/model.md).
//
//   calibrate  times the calibration suite's generated matrices on this GPU through the benchmark
//              engine, fits every modelled kernel and writes the device profile (JSON).
//   predict    a matrix's features and every modelled kernel's predicted time from a profile, with
//              the measured time beside it where a GPU is usable; or Guo & Wang's cross-GPU step
//              (--from REF.json --measured BENCH.json --to TARGET.json).
//   validate   predictions against the times in bench JSON files (matrices the fit never saw):
//              errors per kernel, L2-resident and DRAM-bound apart, the model's pick against the
//              fastest measured, and, with --from, the cross-GPU prediction beside the naive one.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bench/engine.hpp"
#include "bench/model_data.hpp"
#include "bench/provenance.hpp"
#include "bench/report.hpp"
#include "bench/suites.hpp"
#include "cli_common.hpp"
#include "common/median.hpp"
#include "profiles.hpp"
#include "spx/cuda/device.hpp"
#ifdef SPX_HAVE_CUDA
#include "spx/cuda/context.hpp"
#include "spx/cuda/features.hpp"
#include "spx/cuda/formats.hpp"
#endif
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/model.hpp"

namespace spx::cli {

void add_model_command(CLI::App& app);

namespace {

using json = nlohmann::ordered_json;

std::string gpu_needed(const bench::Registry& registry, const char* what) {
  if (bench::backend_unavailable_reason(registry, "cuda").empty()) return {};
  return fmt::format("spx model {} times kernels on a GPU: {}", what, cuda::gpu_unavailable_reason());
}

// Runs the benchmark engine on the cuda backend over `matrices` for the model's kernels; with
// `features`, the report carries each matrix's features (what a fit needs).
bench::BenchReport run_model_bench(const bench::Registry& registry, std::vector<bench::MatrixSource> matrices,
                                   const std::string& ops, const std::string& precisions, double min_time,
                                   int64_t max_nnz, bool quiet, bool features) {
  bench::BenchOptions o;
  o.features = features;
  o.backend = "cuda";
  o.matrices = std::move(matrices);
  o.ops = bench::parse_ops(ops);
  o.precisions = bench::parse_precisions(precisions);
  o.kernels = bench::model_kernel_patterns();
  o.timing.min_seconds = min_time;
  o.max_nnz = max_nnz;
  bench::validate_options(registry, o);
  ProgressLine progress(!quiet, stderr_is_terminal());
  bench::BenchCallbacks callbacks;
  callbacks.progress = [&](int done, int total, const std::string& w) { progress.show(done, total, w); };
  bench::BenchReport report = bench::run_bench(o, registry, callbacks);
  progress.clear();
  return report;
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

struct ErrorStats {
  std::vector<double> errors;  // |predicted - measured| / measured
  void add(double predicted, double measured) { errors.push_back(std::abs(predicted - measured) / measured); }
  double mean() const {
    return errors.empty()
               ? 0
               : std::accumulate(errors.begin(), errors.end(), 0.0) / static_cast<double>(errors.size());
  }
  double median() const { return spx::median(errors); }
  double worst() const { return errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end()); }
  json to_json() const {
    return json{{"n", errors.size()}, {"mean", mean()}, {"median", median()}, {"worst", worst()}};
  }
};

// Whether a matrix's CSR working set (A, x, y in f64) fits in the L2: the model's two regimes.
bool l2_resident(const MatrixFeatures& f, int64_t l2_bytes) {
  const double bytes = static_cast<double>(f.nnz) * 12 + static_cast<double>(f.rows + f.cols) * 8;
  return bytes <= static_cast<double>(l2_bytes);
}

// A steady measurement: its median within kSteadyRatio of its minimum. 1.2 is the 99th percentile
// of median/min over the 1130 products of the H200's calibration run (bench/results/h200/model/);
// a median further above its minimum was disturbed while it ran (docs/model.md, "Cross-GPU").
constexpr double kSteadyRatio = 1.2;
bool steady(const bench::ModelMeasurement& m) { return m.us_min > 0 && m.us <= kSteadyRatio * m.us_min; }

// --- calibrate ---------------------------------------------------------------------------------

// The fit's table (on stdout, or stderr when the profile goes to stdout) and the profile itself.
void write_profile(const model::Profile& profile, const std::string& path, double seconds) {
  std::ostream& out = human_output(path.empty() ? "-" : path);
  fmt::print(out, "{}: copy {:.0f} GB/s, L2 {:.0f} GB/s, {} SMs, {:.0f} MiB L2{}\n", profile.device.name,
             profile.device.copy_gbs, profile.device.l2_gbs, profile.device.sm_count,
             static_cast<double>(profile.device.l2_bytes) / (1 << 20),
             seconds > 0 ? fmt::format("; calibrated in {:.0f} s", seconds) : std::string());
  fmt::print(out, "{:<34}{:>8}{:>10}{:>10}\n", "kernel (fit on its samples)", "samples", "mean err", "worst");
  for (const model::KernelFit& f : profile.fits)
    fmt::print(out, "{:<34}{:>8}{:>9.1f}%{:>9.1f}%\n", f.key.label(), f.samples, 100 * f.mean_abs_error,
               100 * f.max_abs_error);
  if (profile.fits.empty()) throw Error("no kernel had enough timed samples to fit");
  const std::string text = model::to_json(profile);
  if (path.empty() || path == "-")
    fmt::print("{}", text);
  else
    bench::write_json(path, json::parse(text));
}

struct CalibrateOptions {
  std::string profile_path;
  std::string bench_json;
  std::string suite = "calibration";
  std::string ops = "spmv,spmm:8,spmm:32";
  std::string precisions = "f32,f64";
  double min_time = 0.02;
  std::string max_nnz;
  bool quiet = false;
};

void run_calibrate(const CalibrateOptions& c) {
  const bench::Registry& registry = bench::default_registry();
  if (const std::string why = gpu_needed(registry, "calibrate"); !why.empty()) throw Error(why);
  const auto start = std::chrono::steady_clock::now();
  const bench::BenchReport report = run_model_bench(
      registry, bench::suite_sources(c.suite), c.ops, c.precisions, c.min_time,
      c.max_nnz.empty() ? -1 : parse_count(c.max_nnz, "--max-nnz", 0, kMaxCount, "nonzeros"), c.quiet,
      /*features=*/true);
  const json doc = bench::to_json(report);
  if (!c.bench_json.empty()) bench::write_json(c.bench_json, doc);
  const bench::ModelData data = bench::model_data(doc, "the calibration run");
  model::Profile profile = model::fit(report.device, data.samples());
  profile.commit = report.commit;
  profile.date = report.date;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  write_profile(profile, c.profile_path, seconds);
  std::ostream& out = human_output(c.profile_path);
  for (const std::string& note : report.notes) fmt::print(out, "note: {}\n", note);
  if (report.failed_checks > 0)
    throw Error(fmt::format("{} kernel run(s) failed their check (see the notes)", report.failed_checks));
}

// --- fit ---------------------------------------------------------------------------------------

struct FitOptions {
  std::vector<std::string> bench_files;
  std::string profile_path;
};

// The fit alone, from committed calibration measurements (spx model calibrate --bench-json): the
// script-free way to refit a profile after the model's terms change.
void run_fit(const FitOptions& f) {
  std::vector<model::Sample> samples;
  std::optional<bench::ModelData> first;
  for (const std::string& file : f.bench_files) {
    bench::ModelData d = bench::load_model_data(file);
    if (first && d.device.name != first->device.name)
      throw Error(fmt::format("{} was measured on {}, {} on {}: fit one GPU at a time", file, d.device.name,
                              f.bench_files.front(), first->device.name));
    const std::vector<model::Sample> s = d.samples();
    samples.insert(samples.end(), s.begin(), s.end());
    if (!first) first = std::move(d);
  }
  model::Profile profile = model::fit(first->device, samples);
  profile.commit = first->commit;
  profile.date = first->date;
  write_profile(profile, f.profile_path, 0);
}

// --- validate ----------------------------------------------------------------------------------

struct ValidateOptions {
  std::vector<std::string> bench_files;
  std::string profile;
  std::string from_profile;
  std::vector<std::string> from_bench;
  std::string json_path;
  bool per_matrix = false;
  std::string terms_csv;
};

using ProblemKey = std::tuple<std::string, int, int64_t>;  // matrix, value bytes, L

void run_validate(const ValidateOptions& v) {
  if (v.profile.empty()) throw Error("--profile: the target GPU's profile is needed");
  if (v.from_profile.empty() != v.from_bench.empty())
    throw Error("--from and --measured go together: the reference GPU's profile and its bench JSON");
  const model::Profile target = load_named_profile(v.profile).profile;
  std::optional<model::Profile> ref;
  if (!v.from_profile.empty()) ref = load_named_profile(v.from_profile).profile;
  // The reference's measured times, by (matrix, kernel key).
  std::map<std::pair<std::string, std::string>, bench::ModelMeasurement> ref_us;
  double ref_copy_gbs = 0;
  for (const std::string& file : v.from_bench) {
    const bench::ModelData d = bench::load_model_data(file);
    ref_copy_gbs = d.device.copy_gbs;
    for (const auto& m : d.measurements) ref_us[{m.matrix, m.key.label()}] = m;
  }

  std::map<std::string, std::map<std::string, ErrorStats>> same;  // key label -> class -> stats
  std::map<std::string, std::map<std::string, ErrorStats>> cross, naive;
  struct Run {
    std::string kernel;
    double predicted, measured;
    bool steady;
  };
  std::map<ProblemKey, std::vector<Run>> picks;
  std::unique_ptr<std::ofstream> csv;
  if (!v.terms_csv.empty()) {
    csv = std::make_unique<std::ofstream>(v.terms_csv);
    if (!*csv) throw Error(fmt::format("{}: cannot open for writing", v.terms_csv));
    *csv << "matrix,kernel,value_bytes,cols_dense,measured_us";
    for (const char* t : model::kTermNames) *csv << ',' << t;
    *csv << '\n';
  }
  for (const std::string& file : v.bench_files) {
    const bench::ModelData d = bench::load_model_data(file);
    for (const bench::ModelMeasurement& m : d.measurements) {
      const auto f = d.features.find(m.matrix);
      if (f == d.features.end()) continue;
      const std::string cls = l2_resident(f->second, target.device.l2_bytes) ? "l2" : "dram";
      const std::string label = m.key.label();
      if (csv) {
        *csv << m.matrix << ',' << m.key.kernel << ',' << m.key.value_bytes << ',' << m.key.cols_dense << ','
             << fmt::format("{}", m.us);
        for (double x : model::terms(m.key, f->second, target.device).x) *csv << ',' << fmt::format("{}", x);
        *csv << '\n';
      }
      if (const auto p = model::predict_us(target, m.key, f->second)) {
        if (v.per_matrix)
          fmt::print("{:<24} {:<30} {:<4} predicted {:>10.2f} us measured {:>10.2f} us {:>+7.1f}%\n",
                     m.matrix, label, cls, *p, m.us, 100 * (*p - m.us) / m.us);
        same[label][cls].add(*p, m.us);
        same[label]["all"].add(*p, m.us);
        if (steady(m)) same[label]["steady"].add(*p, m.us);
        picks[{m.matrix, m.key.value_bytes, m.key.cols_dense}].push_back({m.key.kernel, *p, m.us, steady(m)});
      }
      if (ref) {
        const auto r = ref_us.find({m.matrix, label});
        if (r == ref_us.end()) continue;
        const double ref_time = r->second.us;
        if (const auto p = model::predict_cross_us(*ref, ref_time, target, m.key, f->second)) {
          cross[label][cls].add(*p, m.us);
          cross[label]["all"].add(*p, m.us);
          const double scaled = ref_time * ref_copy_gbs / d.device.copy_gbs;
          if (steady(m) && steady(r->second)) {
            cross[label]["steady"].add(*p, m.us);
            naive[label]["steady"].add(scaled, m.us);
          }
          if (v.per_matrix)
            fmt::print(
                "{:<24} {:<30} {:<4} cross     {:>10.2f} us measured {:>10.2f} us {:>+7.1f}% (ref "
                "{:.2f} us, naive {:+.1f}%)\n",
                m.matrix, label, cls, *p, m.us, 100 * (*p - m.us) / m.us, ref_time,
                100 * (scaled - m.us) / m.us);
          naive[label][cls].add(scaled, m.us);
          naive[label]["all"].add(scaled, m.us);
        }
      }
    }
  }
  std::ostream& out = human_output(v.json_path);
  auto print_table = [&](const char* title, const std::map<std::string, std::map<std::string, ErrorStats>>& t,
                         const std::map<std::string, std::map<std::string, ErrorStats>>* beside) {
    fmt::print(out, "\n{}\n{:<30}{:>5}{:>8}{:>8}{:>8}{:>10}{:>10}{:>9}{:>13}{}\n", title, "kernel", "n",
               "mean", "median", "worst", "L2 mean", "DRAM mean", "steady", "steady mean",
               beside ? "   naive mean  naive steady" : "");
    for (const auto& [label, by] : t) {
      const ErrorStats& all = by.at("all");
      auto mean_of = [&](const std::map<std::string, ErrorStats>& m, const char* c) {
        const auto it = m.find(c);
        return it == m.end() || it->second.errors.empty() ? std::string("-")
                                                          : fmt::format("{:.1f}%", 100 * it->second.mean());
      };
      const auto st = by.find("steady");
      fmt::print(out, "{:<30}{:>5}{:>7.1f}%{:>7.1f}%{:>7.1f}%{:>10}{:>10}{:>9}{:>13}", label,
                 all.errors.size(), 100 * all.mean(), 100 * all.median(), 100 * all.worst(),
                 mean_of(by, "l2"), mean_of(by, "dram"), st == by.end() ? 0 : st->second.errors.size(),
                 mean_of(by, "steady"));
      if (beside != nullptr)
        fmt::print(out, "{:>13}{:>14}", mean_of(beside->at(label), "all"),
                   mean_of(beside->at(label), "steady"));
      fmt::print(out, "\n");
    }
  };
  print_table(fmt::format("same GPU ({}): predicted against measured", target.device.name).c_str(), same,
              nullptr);
  if (ref)
    print_table(
        fmt::format("cross-GPU: measured on {}, predicted for {}", ref->device.name, target.device.name)
            .c_str(),
        cross, &naive);
  // Ranking: the kernel the model predicts fastest, as a fraction of the fastest measured.
  struct Pick {
    double fraction;
    std::string problem, picked, fastest;
  };
  std::vector<Pick> worst;
  std::vector<double> fractions, steady_fractions;  // the latter: problems with every run steady
  for (const auto& [problem, runs] : picks) {
    if (runs.size() < 2) continue;
    const auto pick = std::min_element(runs.begin(), runs.end(),
                                       [](auto& a, auto& b) { return a.predicted < b.predicted; });
    const auto best =
        std::min_element(runs.begin(), runs.end(), [](auto& a, auto& b) { return a.measured < b.measured; });
    fractions.push_back(best->measured / pick->measured);
    if (std::all_of(runs.begin(), runs.end(), [](const Run& r) { return r.steady; }))
      steady_fractions.push_back(fractions.back());
    worst.push_back({fractions.back(),
                     fmt::format("{} {}{}", std::get<0>(problem), std::get<1>(problem) == 4 ? "f32" : "f64",
                                 std::get<2>(problem) > 0 ? fmt::format(" L={}", std::get<2>(problem)) : ""),
                     fmt::format("{} ({:.1f} us)", pick->kernel, pick->measured),
                     fmt::format("{} ({:.1f} us)", best->kernel, best->measured)});
  }
  std::sort(worst.begin(), worst.end(), [](const Pick& a, const Pick& b) { return a.fraction < b.fraction; });
  fmt::print(
      out, "\nthe model's pick: {:.1f}% of the fastest measured kernel (geomean over {} problems); worst:\n",
      100 * geomean(fractions), fractions.size());
  fmt::print(out, "  ({:.1f}% over the {} problems whose every measurement is steady)\n",
             100 * geomean(steady_fractions), steady_fractions.size());
  for (std::size_t i = 0; i < std::min<std::size_t>(5, worst.size()); ++i)
    fmt::print(out, "  {:>5.1f}%  {:<28} picked {:<34} fastest {}\n", 100 * worst[i].fraction,
               worst[i].problem, worst[i].picked, worst[i].fastest);
  if (!v.json_path.empty()) {
    auto tables = [](const std::map<std::string, std::map<std::string, ErrorStats>>& t) {
      json j = json::object();
      for (const auto& [label, by] : t)
        for (const auto& [cls, s] : by) j[label][cls] = s.to_json();
      return j;
    };
    json doc = {{"target", target.device.name},
                {"profile", v.profile},
                {"bench", v.bench_files},
                {"same_gpu", tables(same)},
                {"pick_fraction_geomean", geomean(fractions)},
                {"pick_problems", fractions.size()},
                {"pick_fraction_geomean_steady", geomean(steady_fractions)},
                {"pick_problems_steady", steady_fractions.size()},
                {"steady_ratio", kSteadyRatio}};
    if (ref) {
      doc["reference"] = ref->device.name;
      doc["cross_gpu"] = tables(cross);
      doc["naive"] = tables(naive);
    }
    bench::write_json(v.json_path, doc);
  }
}

// --- predict -----------------------------------------------------------------------------------

struct PredictOptions {
  std::string input;
  std::string profile;
  std::string ops = "spmv,spmm:8,spmm:32";
  std::string precisions = "f64";
  bool measure = true;
  std::string from_profile, measured, to_profile;
  std::string json_path;
};

// The features computed on the GPU from the device copy of A: equal to the host's, and their cost
// (the second call: the first loads the module) beside one csr_param SpMV of this matrix in f64.
void print_device_features(std::ostream& out, const Csr<double, int32_t>& A, const MatrixFeatures& host,
                           const std::map<std::string, double>& measured_us) {
#ifdef SPX_HAVE_CUDA
  cuda::Context ctx(0);
  const cuda::DeviceCsr<double, int32_t> dA = cuda::upload(ctx, A);
  double ms = 0;
  (void)cuda::features(ctx, dA, &ms);
  const MatrixFeatures device = cuda::features(ctx, dA, &ms);
  const auto spmv = measured_us.find(model::KernelKey{"csr_param", 8, 0}.label());
  fmt::print(out, "features on the GPU in {:.1f} us{}: {} the host's\n", 1e3 * ms,
             spmv == measured_us.end()
                 ? std::string()
                 : fmt::format(" = {:.2f} csr_param f64 SpMVs", 1e3 * ms / spmv->second),
             device == host ? "equal to" : "DIFFERENT FROM");
  if (!(device == host)) throw Error("the GPU's features differ from the host's: a bug, please report it");
#else
  (void)out, (void)A, (void)host, (void)measured_us;
#endif
}

void run_predict(const PredictOptions& p) {
  const bench::Registry& registry = bench::default_registry();
  const bench::MatrixSource source = bench::resolve_matrix(p.input);
  const Csr<double, int32_t> A = bench::load_matrix<double, int32_t>(source);
  const auto t0 = std::chrono::steady_clock::now();
  const MatrixFeatures f = spx::features(A);
  const double host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::ostream& out = human_output(p.json_path);
  fmt::print(out, "{}: {} x {}, {} nonzeros; features on the host in {:.1f} ms\n", source.name, A.rows,
             A.cols, A.nnz(), host_ms);

  if (!p.from_profile.empty() || !p.to_profile.empty() || !p.measured.empty()) {
    if (p.from_profile.empty() || p.to_profile.empty() || p.measured.empty())
      throw Error(
          "the cross-GPU prediction needs all of --from REF.json, --measured BENCH.json and --to "
          "TARGET.json");
    const model::Profile ref = load_named_profile(p.from_profile).profile,
                         tar = load_named_profile(p.to_profile).profile;
    const bench::ModelData d = bench::load_model_data(p.measured);
    fmt::print(out, "measured on {} ({}), predicted for {}\n{:<30}{:>12}{:>12}\n", ref.device.name,
               p.measured, tar.device.name, "kernel", "ref us", "target us");
    json rows = json::array();
    for (const bench::ModelMeasurement& m : d.measurements) {
      if (m.matrix != source.name) continue;
      const auto t = model::predict_cross_us(ref, m.us, tar, m.key, f);
      if (!t) continue;
      fmt::print(out, "{:<30}{:>12.2f}{:>12.2f}\n", m.key.label(), m.us, *t);
      rows.push_back({{"kernel", m.key.label()}, {"reference_us", m.us}, {"predicted_us", *t}});
    }
    if (rows.empty())
      throw Error(fmt::format("{} has no measurement of matrix '{}' (name as spx bench reports it)",
                              p.measured, source.name));
    if (!p.json_path.empty()) bench::write_json(p.json_path, json{{"matrix", source.name}, {"cross", rows}});
    return;
  }

  const bool gpu = bench::backend_unavailable_reason(registry, "cuda").empty();
  std::string profile_path = p.profile;
  std::string device_name;
  std::optional<bench::BenchReport> measured;
  if (gpu && p.measure) {
    // The features are already computed above: the engine need not compute them again.
    measured = run_model_bench(registry, {source}, p.ops, p.precisions, 0.05, -1, true, /*features=*/false);
    device_name = measured->device.name;
  }
#ifdef SPX_HAVE_CUDA
  if (gpu && device_name.empty()) device_name = cuda::query_device(0).name;  // --no-measure
#endif
  if (profile_path.empty() && !device_name.empty()) {
    const auto found = model::find_profile(device_name);
    if (!found) throw Error(fmt::format("no committed profile for {}: run spx model calibrate", device_name));
    profile_path = *found;
  }
  if (profile_path.empty()) {
    // No GPU to name one: predict for the default device, as spx plan show does, and say so.
    profile_path = kDefaultProfileDevice;
    fmt::print(out,
               "note: {}: predicting for the {} profile (--profile NAME|FILE for another; committed: {})\n",
               "no GPU here", kDefaultProfileDevice, fmt::join(committed_profile_names(), ", "));
  }
  const NamedProfile named = load_named_profile(profile_path);
  const model::Profile& profile = named.profile;
  profile_path = named.path;
  std::map<std::string, double> measured_us;
  if (measured) {
    const bench::ModelData d = bench::model_data(bench::to_json(*measured), "the measurement");
    for (const auto& m : d.measurements) measured_us[m.key.label()] = m.us;
  }
  if (gpu) print_device_features(out, A, f, measured_us);
  fmt::print(out, "profile {} ({})\n{:<30}{:>12}{:>12}{:>9}\n", profile_path, profile.device.name, "kernel",
             "predicted us", "measured us", "error");
  json rows = json::array();
  for (const bench::OpSpec& op : bench::parse_ops(p.ops)) {
    for (bench::Precision prec : bench::parse_precisions(p.precisions)) {
      const int bytes = prec == bench::Precision::F32 ? 4 : 8;
      const auto& kernels = op.op == bench::OpKind::Spmv ? model::spmv_kernels() : model::spmm_kernels();
      for (const std::string& k : kernels) {
        const model::KernelKey key{k, bytes, op.op == bench::OpKind::Spmm ? op.size : 0};
        const auto t = model::predict_us(profile, key, f);
        if (!t) continue;
        const auto m = measured_us.find(key.label());
        json row = {{"kernel", key.label()}, {"predicted_us", *t}};
        if (m != measured_us.end()) {
          fmt::print(out, "{:<30}{:>12.2f}{:>12.2f}{:>8.1f}%\n", key.label(), *t, m->second,
                     100 * (*t - m->second) / m->second);
          row["measured_us"] = m->second;
        } else {
          fmt::print(out, "{:<30}{:>12.2f}{:>12}{:>9}\n", key.label(), *t, "-", "");
        }
        rows.push_back(row);
      }
    }
  }
  if (!p.json_path.empty())
    bench::write_json(p.json_path,
                      json{{"matrix", source.name}, {"profile", profile_path}, {"predictions", rows}});
}

}  // namespace

void add_model_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("model", "The performance model: calibrate, fit, predict, validate");
  cmd->require_subcommand(1);

  auto c = std::make_shared<CalibrateOptions>();
  CLI::App* cal = cmd->add_subcommand(
      "calibrate",
      "Time the calibration suite on this GPU, fit every modelled kernel, write the device profile");
  cal->add_option("--json", c->profile_path, "Write the profile to FILE ('-' or none: stdout)")
      ->type_name("FILE");
  cal->add_option("--bench-json", c->bench_json,
                  "Also write the calibration run's bench JSON (the fit's data)")
      ->type_name("FILE");
  cal->add_option("--suite", c->suite, "The matrices to fit on")->capture_default_str();
  cal->add_option("--ops", c->ops, "Operations to model")->capture_default_str();
  cal->add_option("--precision", c->precisions, "Precisions")->capture_default_str();
  cal->add_option("--min-time", c->min_time, "Seconds of warm runs per kernel")
      ->check(real_in(0, kMaxBenchSeconds, "seconds"))
      ->capture_default_str();
  cal->add_option("--max-nnz", c->max_nnz, "Skip matrices with more nonzeros")->type_name("N");
  cal->add_flag("-q,--quiet", c->quiet, "No progress on stderr");
  cal->callback([c] { run_calibrate(*c); });

  auto p = std::make_shared<PredictOptions>();
  CLI::App* pre = cmd->add_subcommand("predict", "Predict every modelled kernel's time on a matrix");
  pre->add_option("matrix", p->input, "Matrix Market file or generator spec")
      ->required()
      ->type_name("FILE|SPEC");
  pre->add_option("--profile", p->profile,
                  "Profile file or device name, e.g. h200 (default: this GPU's committed one; without a GPU "
                  "the H100's)")
      ->type_name("FILE|DEVICE");
  pre->add_option("--ops", p->ops, "Operations")->capture_default_str();
  pre->add_option("--precision", p->precisions, "Precisions")->capture_default_str();
  pre->add_flag("!--no-measure", p->measure, "Do not time the kernels on this GPU");
  pre->add_option("--from", p->from_profile, "Cross-GPU: the reference GPU's profile")->type_name("FILE");
  pre->add_option("--measured", p->measured, "Cross-GPU: bench JSON measured on the reference GPU")
      ->type_name("FILE");
  pre->add_option("--to", p->to_profile, "Cross-GPU: the target GPU's profile")->type_name("FILE");
  pre->add_option("--json", p->json_path, "Also write the predictions as JSON")->type_name("FILE|-");
  pre->callback([p] { run_predict(*p); });

  auto fo = std::make_shared<FitOptions>();
  CLI::App* fit =
      cmd->add_subcommand("fit", "Fit a profile from calibration measurements (bench JSON) alone");
  fit->add_option("bench", fo->bench_files, "Bench JSON of one GPU (spx model calibrate --bench-json)")
      ->required()
      ->type_name("FILE");
  fit->add_option("--json", fo->profile_path, "Write the profile to FILE ('-' or none: stdout)")
      ->type_name("FILE");
  fit->callback([fo] { run_fit(*fo); });

  auto v = std::make_shared<ValidateOptions>();
  CLI::App* val =
      cmd->add_subcommand("validate", "Errors of the model against the times in bench JSON files");
  val->add_option("bench", v->bench_files, "Bench JSON (.json or .json.gz) measured on the target GPU")
      ->required()
      ->type_name("FILE");
  val->add_option("--profile", v->profile, "The target GPU's profile")->required()->type_name("FILE");
  val->add_option("--from", v->from_profile, "Cross-GPU: the reference GPU's profile")->type_name("FILE");
  val->add_option("--measured", v->from_bench, "Cross-GPU: bench JSON measured on the reference GPU")
      ->type_name("FILE");
  val->add_option("--json", v->json_path, "Also write the error tables as JSON")->type_name("FILE|-");
  val->add_flag("--per-matrix", v->per_matrix,
                "Print every prediction beside its measurement (with --from, the cross-GPU one too)");
  val->add_option(
         "--terms-csv", v->terms_csv,
         "Write every measurement with the model's terms on the target device (to study the model's form)")
      ->type_name("FILE");
  val->callback([v] { run_validate(*v); });
  cal->footer(R"(Examples:
  spx model calibrate --json my-gpu.json --bench-json calibration-my-gpu.json)");
  pre->footer(R"(Without a GPU (or with --no-measure) only the predictions are printed; without --profile and
without a GPU they are the H100's (a note says so).

Examples:
  spx model predict cage11.mtx.gz
  spx model predict stencil27:n=128 --profile h200 --no-measure --json -)");
  fit->footer(R"(Examples:
  spx model fit calibration-h100.json --json data/profiles/h100.json)");
  val->footer(R"(Examples:
  spx model validate bench-h100.json --profile h100 --per-matrix
  spx model validate bench-h200.json --profile h200 --from h100 --measured bench-h100.json)");
  cmd->footer(R"(Examples:
  spx model calibrate --json data/profiles/h100.json --bench-json calibration-h100.json
  spx model fit calibration-h100.json --json data/profiles/h100.json
  spx model predict cage11.mtx.gz
  spx model validate bench-h100.json --profile data/profiles/h100.json
  spx model validate bench-h200.json --profile h200.json --from h100.json --measured bench-h100.json)");
}

}  // namespace spx::cli
