// spx spmm FILE|SPEC --cols L : one sparse x dense product C = A*B on the GPU, checked against
// spx::ref and timed by the benchmark engine (bench/), as spx spmv and spx bench are. Device-resident
// by default: spx's kernel for --kernel and --layout beside cuSPARSE's CSR algorithms on the same B,
// the speedup over the best of them, --csr-config variants of the CSR kernel. --host-resident: B and
// C stay in host memory and stream through the GPU in column chunks (the spmm_host_* entries;
// FastSpMM* with --streams 1, FastSpMM with more; --compare runs both with the same L_GPU and prints
// the paper's Table 4 columns and the acceleration factor). The JSON is spx bench's. With --index 64,
// or under --index auto on a matrix past 2^31 - 1 nonzeros: the planned product on a matrix read
// with 64-bit indices (wide_product.hpp; the engine loads 32-bit matrices).
// docs/cli.md, docs/spmm-streaming.md.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "bench/engine.hpp"
#include "bench/report.hpp"
#include "cli_common.hpp"
#include "spx/cuda/device.hpp"
#include "spx/error.hpp"
#include "spx/plan.hpp"
#include "spx/version.hpp"
#include "wide_product.hpp"

namespace spx::cli {

void add_spmm_command(CLI::App& app);

namespace {

struct SpmmOptions {
  std::string input;
  int64_t cols = 0;
  std::string precision = "f64";
  std::string layout = "row";
  std::string kernel = "auto";
  bool host_resident = false;
  int streams = 2;
  int64_t chunk_cols = 0;
  std::string device_memory_limit;
  std::string transfer = "auto";
  bool compare = false;
  bool pinned_host = false;
  int repeat = 0;
  std::string json_path;
  std::vector<std::string> csr_configs;  // --csr-config, each timed beside the rule's choice
  PlannedOptions planned;                // the front door (--kernel auto)
  std::string index = "auto";            // auto, 32 or 64 (plan::IndexWidth)
  // Set by CLI11: whether the host-resident-only options were given.
  bool streams_given = false, chunk_given = false, limit_given = false, transfer_given = false;
};

// --csr-config's keys and the CSR entries' parameters they set (bench/cuda_spmm_spx.cpp): G threads
// per row, V columns per lane, BS block size, Lc columns per pass, tile items per tile (0 = row-split
// mode), long the long-row threshold.
constexpr std::pair<std::string_view, std::string_view> kCsrConfigKeys[] = {
    {"G", "threads_per_row"}, {"V", "cols_per_lane"}, {"BS", "block_size"},
    {"Lc", "cols_per_pass"},  {"tile", "tile_items"}, {"long", "long_row_nnz"}};

// One --csr-config "G=16,V=2,BS=128" as a variant of `kernel`: its syntax is checked here, before
// anything is loaded; the merged configuration by the entry, before anything runs.
bench::KernelParams parse_csr_config(const std::string& text, const std::string& kernel) {
  bench::KernelParams variant{kernel, fmt::format("--csr-config '{}'", text), {}};
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const auto* known = std::find_if(std::begin(kCsrConfigKeys), std::end(kCsrConfigKeys),
                                     [&](const auto& k) { return k.first == key; });
    if (eq == std::string::npos || known == std::end(kCsrConfigKeys)) {
      std::string names;
      for (const auto& k : kCsrConfigKeys) names += fmt::format("{}{}", names.empty() ? "" : ", ", k.first);
      throw Error(
          fmt::format("--csr-config '{}': '{}' is not KEY=VALUE with KEY one of {}", text, item, names));
    }
    const std::string value = item.substr(eq + 1);
    const int64_t v = parse_count(value, fmt::format("--csr-config '{}': {}", text, key), 0, kMaxIndex);
    variant.params.push_back({std::string(known->second), v});
    start = comma + 1;
  }
  return variant;
}

// Option combinations that make no sense are refused before any device or file is touched, so the
// message is the same in every build.
void check_options(const SpmmOptions& o) {
  if (o.cols < 1) throw Error(fmt::format("--cols {}: B needs at least one column", o.cols));
  if (!o.host_resident) {
    const char* needs = o.streams_given    ? "--streams"
                        : o.chunk_given    ? "--chunk-cols"
                        : o.limit_given    ? "--device-memory-limit"
                        : o.transfer_given ? "--transfer"
                        : o.compare        ? "--compare"
                        : o.pinned_host    ? "--pinned-host"
                                           : nullptr;
    if (needs != nullptr) throw Error(fmt::format("{} only applies with --host-resident", needs));
  }
  const bool planned = o.kernel == "auto" && !o.host_resident;
  if (!planned && o.planned.asks_for_plan())
    throw Error(
        "--explain and --tuning-cache belong to the planned product (--kernel auto, device-resident)");
  if (o.host_resident && o.kernel == "cusparse")
    throw Error("--kernel cusparse runs device-resident only (drop --host-resident)");
  if (o.kernel == "set-spmvs" && o.layout != "col")
    throw Error("--kernel set-spmvs multiplies column by column: it needs --layout col");
  if (!o.csr_configs.empty()) {
    if (o.host_resident)
      throw Error("--csr-config times device-resident products only (drop --host-resident)");
    if (o.kernel != "rule" && o.kernel != "csr")
      throw Error(fmt::format("--csr-config configures the CSR kernel: it needs --kernel rule or csr, not {}",
                              o.kernel));
  }
  if (o.streams < 1 || o.streams > 16) throw Error(fmt::format("--streams {}: must be 1..16", o.streams));
  if (o.compare && o.streams < 2) throw Error("--compare runs --streams 1 against --streams N: give N >= 2");
  if (o.limit_given &&
      parse_count(o.device_memory_limit, "--device-memory-limit", 0, kMaxCount, "bytes") == 0)
    throw Error("--device-memory-limit 0: give the bytes the product may use (e.g. 2e9)");
}

// The registry entry of spx's kernel for --kernel and --layout ("" for --kernel cusparse).
std::string our_kernel(const SpmmOptions& o) {
  if (o.host_resident) return "spmm_host_" + o.layout;
  if (o.kernel == "cusparse") return "";
  if (o.kernel == "auto") return "spx_auto";
  const char* base = o.kernel == "ellr"        ? "spmm_ellr_t_"
                     : o.kernel == "csr"       ? "spmm_csr_"
                     : o.kernel == "set-spmvs" ? "spmm_set_spmvs_"
                                               : "spx_spmm_";
  return base + o.layout;
}

// The host-resident options as the spmm_host_* entries' parameters (bench/cuda_spmm_host.cpp).
bench::KernelParams streaming_params(const SpmmOptions& o, const std::string& kernel) {
  bench::KernelParams p{kernel,
                        fmt::format("--host-resident --streams {} --transfer {}", o.streams, o.transfer),
                        {{"streams", int64_t{o.streams}},
                         {"chunk_cols", o.chunk_cols},
                         {"transfer", o.transfer},
                         {"pinned_host", o.pinned_host},
                         {"product", o.kernel}}};
  if (o.chunk_given) p.text += fmt::format(" --chunk-cols {}", o.chunk_cols);
  if (o.limit_given) {
    p.params.push_back({"device_memory_limit",
                        parse_count(o.device_memory_limit, "--device-memory-limit", 0, kMaxCount, "bytes")});
    p.text += " --device-memory-limit " + o.device_memory_limit;
  }
  if (o.pinned_host) p.text += " --pinned-host";
  if (o.kernel != "auto") p.text += " --kernel " + o.kernel;
  return p;
}

bench::BenchOptions engine_options(const SpmmOptions& o) {
  bench::BenchOptions b;
  b.backend = "cuda";
  b.matrices = {bench::resolve_matrix(o.input)};
  b.ops = {bench::OpSpec{bench::OpKind::Spmm, o.cols}};
  b.precisions = {bench::parse_precision(o.precision)};
  b.layouts = {o.layout == "col" ? Layout::ColMajor : Layout::RowMajor};
  b.studies = true;  // the entries are named: column-major and host-resident ones are study entries
  if (o.repeat > 0) b.timing.fixed_runs = o.repeat;
  const std::string ours = our_kernel(o);
  if (!ours.empty()) b.kernels.push_back(ours);
  if (o.host_resident) {
    b.params.push_back(streaming_params(o, ours));
    // --compare: FastSpMM* (one stream) with the L_GPU the streamed run resolves, as the paper has it.
    if (o.compare)
      b.variants.push_back({ours,
                            "--compare (FastSpMM*: --streams 1 at FastSpMM's L_GPU)",
                            {{"streams", int64_t{1}}, {"chunk_cols_as_streams", int64_t{o.streams}}}});
  } else {
    // cuSPARSE's CSR algorithms on the same B and C: the vendor baseline of the speedup.
    b.kernels.push_back("cusparse_spmm_csr_alg*_" + o.layout);
    for (const std::string& text : o.csr_configs) b.variants.push_back(parse_csr_config(text, ours));
    if (ours == "spx_auto") b.params.push_back(planned_params(ours, o.planned));
  }
  return b;
}

std::string check_text(const bench::Result& r) {
  if (r.checked)
    return fmt::format(
        "ok, matches spx::ref (worst error {:.2g} of the rounding-error bound, max |error| {:.2g})",
        r.check_ratio, r.max_error);
  return fmt::format("FAILED against spx::ref (worst error {:.3g} times the bound; see the notes)",
                     r.check_ratio);
}

void print_device_resident(std::ostream& out, const SpmmOptions& o, const bench::BenchReport& report) {
  fmt::print(out, "device-resident C = A*B, L = {}, {}, {}-major; copy bandwidth {:.0f} GB/s\n", o.cols,
             o.precision, o.layout, report.device.copy_gbs);
  // spx's runs first (the registry lists cuSPARSE's entries before them), then the baselines.
  std::vector<const bench::Result*> order;
  for (const bench::Result& r : report.results) order.push_back(&r);
  std::stable_partition(order.begin(), order.end(), [](const bench::Result* r) { return !r->vendor; });
  for (const bench::Result* result : order) {
    const bench::Result& r = *result;
    const auto [shown, plan_text] = split_plan_text(r.params);
    const std::string params =
        r.vendor ? "vendor"
        : r.kernel == "spx_auto"
            ? fmt::format("{} ({}), decided by {}", bench::param_text(r.params, "chosen", "?"),
                          bench::param_text(r.params, "config", ""),
                          bench::param_text(r.params, "decided_by", "?"))
            : bench::param_text(r.params, "config", bench::to_string(shown));
    fmt::print(out,
               "{:<28}{:9.4f} ms median ({:.4f}..{:.4f}, {} runs)  {:8.1f} GFLOP/s  {:7.1f} GB/s eff.  "
               "{:5.1f}% of copy bw (min traffic)  [{}]\n",
               r.kernel, r.timing.median_ms, r.timing.min_ms, r.timing.max_ms, r.timing.runs, r.gflops, r.gbs,
               report.device.copy_gbs > 0 ? 100 * r.gbs_min / report.device.copy_gbs : 0.0, params);
    fmt::print(out, "{:<28}{}\n", "", check_text(r));
    if (!plan_text.empty()) fmt::print(out, "{}", plan_text);
  }
  const auto ours = std::find_if(report.results.begin(), report.results.end(),
                                 [&](const bench::Result& r) { return r.kernel == our_kernel(o); });
  if (ours != report.results.end() && ours->speedup > 0)
    fmt::print(out, "speedup over cuSPARSE's best ({}): {:.2f}x\n", ours->baseline, ours->speedup);
}

// The paper's Table 4 columns, FastSpMM* first; --compare's acceleration factor.
double print_host_resident(std::ostream& out, const SpmmOptions& o, const bench::BenchReport& report) {
  std::vector<const bench::Result*> runs;
  for (const bench::Result& r : report.results) runs.push_back(&r);
  std::sort(runs.begin(), runs.end(), [](const auto* a, const auto* b) {
    return bench::param_number(a->params, "streams") < bench::param_number(b->params, "streams");
  });
  const bench::Params& first = runs.front()->params;
  auto number = [](const bench::Result* r, const char* key) { return bench::param_number(r->params, key); };
  fmt::print(out, "host-resident C = A*B, L = {}, {}, {}-major, {} host memory, kernel {} [{}]\n", o.cols,
             o.precision, o.layout, bench::param_text(first, "host_memory"),
             bench::param_text(first, "product"), bench::param_text(first, "config"));
  fmt::print(
      out, "pinned PCIe bandwidth: H2D {:.1f} GB/s, D2H {:.1f} GB/s alone; {:.1f} / {:.1f} GB/s at once\n",
      number(runs.front(), "pcie_h2d_gbs"), number(runs.front(), "pcie_d2h_gbs"),
      number(runs.front(), "pcie_h2d_concurrent_gbs"), number(runs.front(), "pcie_d2h_concurrent_gbs"));
  fmt::print(out, "{:<11}{:>7}{:>7}{:>8}{:>11}{:>10}{:>10}{:>10}{:>8}{:>10}{:>10}{:>8}{:>10}\n", "mode",
             "chunks", "L_GPU", "streams", "transfer", "PT ms", "CT ms", "stage ms", "% Com", "Runt ms",
             "PCIe ms", "% PCIe", "GFLOP/s");
  for (const bench::Result* r : runs) {
    fmt::print(
        out,
        "{:<11}{:>7}{:>7}{:>8}{:>11}{:>10.3f}{:>10.3f}{:>10.3f}{:>8.1f}{:>10.3f}{:>10.3f}{:>8.1f}{:>10.1f}\n",
        number(r, "streams") == 1 ? "FastSpMM*" : "FastSpMM", number(r, "chunks"), number(r, "chunk_cols"),
        number(r, "streams"), bench::param_text(r->params, "transfer"), number(r, "processing_ms"),
        number(r, "communication_ms"), number(r, "staging_ms"), number(r, "percent_communication"),
        r->timing.median_ms, number(r, "pcie_bound_ms"), 100 * number(r, "pcie_fraction"), r->gflops);
  }
  const bool all_checked = std::all_of(runs.begin(), runs.end(), [](const auto* r) { return r->checked; });
  if (all_checked)
    fmt::print(out, "check      ok, every run matches spx::ref within the rounding-error bound\n");
  for (const bench::Result* r : runs)
    if (!r->checked) fmt::print(out, "{:<11}{}\n", r->kernel, check_text(*r));
  if (!o.compare || runs.size() < 2) return 0;
  const double af = runs[0]->timing.median_ms / runs[1]->timing.median_ms;
  fmt::print(
      out,
      "acceleration factor FastSpMM / FastSpMM*: {:.2f}x (FastSpMM* communication {:.1f}% of its runtime)\n",
      af, number(runs[0], "percent_communication"));
  return af;
}

// The 64-bit path: the planned product, device-resident with row-major B and C; what picks another
// kernel, layout or residency is refused.
void run_wide_spmm(const SpmmOptions& o, bench::MatrixSource source, plan::IndexWidth width) {
  if (o.kernel != "auto") refuse_beside_wide("--kernel " + o.kernel, width);
  if (o.host_resident) refuse_beside_wide("--host-resident", width);
  if (o.layout == "col") refuse_beside_wide("--layout col", width);
  if (!o.csr_configs.empty()) refuse_beside_wide("--csr-config", width);
  check_options(o);
  WideProduct w;
  w.command = "spmm";
  w.source = std::move(source);
  w.width = width;
  w.precision = o.precision;
  w.dense_cols = o.cols;
  w.repeat = o.repeat;
  w.planned = o.planned;
  w.json_path = o.json_path;
  run_wide_product(w);
}

void run_spmm(const SpmmOptions& given) {
  SpmmOptions o = given;
  // --index: decided before anything loads (a file's header, a spec's size).
  const plan::IndexWidth width = plan::parse_index_width(o.index);
  bench::MatrixSource source = bench::resolve_matrix(o.input);
  if (reads_wide_indices(source, width, "spmm")) return run_wide_spmm(o, std::move(source), width);
  // --kernel auto is the planned product for row-major B and C; with --layout col or --csr-config
  // (which configure spx's own CSR kernel) it is the format rule's kernel, as before the planner.
  if (o.kernel == "auto" && !o.host_resident && (o.layout == "col" || !o.csr_configs.empty()))
    o.kernel = "rule";
  check_options(o);
  bench::BenchOptions options = engine_options(o);  // parses --csr-config before anything loads
  const std::string cpu_kernels = " (the CPU kernels: spx bench --backend cpu --ops spmm:L)";
  if (!spx::built_with_cuda())
    throw Error("spx spmm runs on a GPU, and this spx was built without CUDA" + cpu_kernels);
  if (cuda::device_count() == 0)
    throw Error("spx spmm runs on a GPU: " + cuda::gpu_unavailable_reason() + cpu_kernels);

  const bench::BenchReport report = bench::run_bench(options, bench::default_registry());
  if (!report.input_errors.empty()) throw Error(report.input_errors.front());
  // Nothing ran (a refused configuration, a product too large, a kernel that could not prepare):
  // the first note says why.
  const std::string ours = our_kernel(o);
  const bool ours_ran =
      ours.empty() || std::any_of(report.results.begin(), report.results.end(),
                                  [&](const bench::Result& r) { return r.kernel.rfind(ours, 0) == 0; });
  if (report.results.empty() || !ours_ran) {
    const auto about_ours = std::find_if(report.notes.begin(), report.notes.end(), [&](const std::string& n) {
      return !ours.empty() && n.find(ours) != std::string::npos;
    });
    throw Error(about_ours != report.notes.end() ? *about_ours
                : report.notes.empty()           ? std::string("nothing ran")
                                                 : report.notes.front());
  }

  std::ostream& out = human_output(o.json_path);
  const bench::MatrixInfo& m = report.matrices.front();
  fmt::print(out, "{:<11}{}  {} x {}, {} nonzeros (row length {}/{:.1f}/{} min/avg/max) on {} ({} SMs)\n",
             "matrix", m.name, m.rows, m.cols, m.nnz, m.stats->min_row, m.stats->avg_row, m.stats->max_row,
             report.device.name, report.device.sm_count);
  const double af = o.host_resident ? print_host_resident(out, o, report) : 0;
  if (!o.host_resident) print_device_resident(out, o, report);
  for (const std::string& note : report.notes) fmt::print(out, "note       {}\n", note);
  if (!o.json_path.empty()) {
    nlohmann::ordered_json doc = bench::to_json(report);
    if (af > 0) doc["acceleration_factor"] = af;
    bench::write_json(o.json_path, doc);
  }
  if (report.failed_checks > 0)
    throw Error(
        fmt::format("{} run(s) failed: the result does not match spx::ref or the kernel failed (see the "
                    "check lines and notes above)",
                    report.failed_checks));
}

}  // namespace

void add_spmm_command(CLI::App& app) {
  auto o = std::make_shared<SpmmOptions>();
  CLI::App* cmd =
      app.add_subcommand("spmm", "Time one SpMM (C = A*B, B with --cols columns) on the GPU and check it");
  cmd->add_option("matrix", o->input, "Matrix Market file or generator spec")
      ->required()
      ->type_name("FILE|SPEC");
  cmd->add_option("--cols", o->cols, "L: columns of B and C")
      ->required()
      ->transform(count_in(1, kMaxIndex, "columns", "B needs at least one column"));
  cmd->add_option("--precision", o->precision, "Value precision: f32 or f64")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  cmd->add_option("--layout", o->layout, "Layout of B and C: row (row-major) or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  cmd->add_option(
         "--kernel", o->kernel,
         "auto (the planned product: spx's and cuSPARSE's kernels, --plan), rule (spmm_format_rule), ellr "
         "(ELLR-T), csr, set-spmvs (one SpMV per column; --layout col), cusparse (device-resident only)")
      ->check(CLI::IsMember({"auto", "rule", "ellr", "csr", "set-spmvs", "cusparse"}))
      ->capture_default_str();
  add_planned_options(cmd, o->planned, "--kernel auto");
  cmd->add_option(
         "--index", o->index,
         "Index width: auto (64-bit where the matrix passes 2^31 - 1 nonzeros; a file's header or a "
         "spec's size decides before reading), 32, or 64 (the planned product, row-major B and C, at "
         "64-bit row offsets, sampled rows checked)")
      ->check(CLI::IsMember({"auto", "32", "64"}))
      ->capture_default_str();
  cmd->add_flag("--host-resident", o->host_resident,
                "Keep B and C in host memory and stream column chunks through the GPU (FastSpMM)");
  cmd->add_option("--streams", o->streams,
                  "Host-resident: 1 = FastSpMM* (serial chunks), >= 2 = FastSpMM (overlapped)")
      ->transform(count_in(1, kMaxStreams, "streams"))
      ->capture_default_str()
      ->each([o](const std::string&) { o->streams_given = true; });
  cmd->add_option("--chunk-cols", o->chunk_cols,
                  "Host-resident: L_GPU, columns per chunk (default: from free memory)")
      ->transform(count_in(1, kMaxIndex, "columns"))
      ->each([o](const std::string&) { o->chunk_given = true; });
  cmd->add_option(
         "--device-memory-limit", o->device_memory_limit,
         "Host-resident: device memory the product may use, A included (e.g. 2e9), to emulate a small card")
      ->type_name("BYTES")
      ->each([o](const std::string&) { o->limit_given = true; });
  cmd->add_option(
         "--transfer", o->transfer,
         "Host-resident: auto, staged (pinned staging), registered (cudaHostRegister B and C), direct")
      ->check(CLI::IsMember({"auto", "staged", "registered", "direct"}))
      ->capture_default_str()
      ->each([o](const std::string&) { o->transfer_given = true; });
  cmd->add_flag("--compare", o->compare,
                "Host-resident: run --streams 1 and --streams N with the same L_GPU (the paper's Table 4)");
  cmd->add_flag(
      "--pinned-host", o->pinned_host,
      "Host-resident: page-lock B and C before the runs (untimed), as a caller using cudaHostAlloc would");
  cmd->add_option(
         "--repeat", o->repeat,
         "Timed runs (device-resident default: adaptive, >= 10 runs; host-resident default 3, median)")
      ->transform(count_in(1, kMaxRuns, "runs", "leave it out for the default"));
  cmd->add_option("--csr-config", o->csr_configs,
                  "Device-resident: also time the CSR kernel with these fields of the rule's configuration "
                  "replaced, e.g. G=16,V=2,BS=128 (keys G, V, BS, Lc, tile, long); repeatable")
      ->type_name("KEY=N,...")
      ->allow_extra_args(false);
  cmd->add_option("--json", o->json_path, "Also write the results as spx bench JSON to FILE ('-': stdout)")
      ->type_name("FILE|-");
  cmd->footer(
      R"(B is the benchmark's deterministic input (uniform in [-1, 1)); alpha = 1, beta = 0; C is poisoned
with NaN before the checked run. It runs through the benchmark engine: kernels are the registry's
(spx_spmm_row, spmm_csr_col, spmm_host_row, ...; spx bench --list --studies), checked against spx::ref,
timed as in spx bench, and the JSON is spx bench's. Device-resident runs also time cuSPARSE's CSR
algorithms on the same data; --csr-config runs are named KERNEL#1, #2, ... Needs a GPU: without one
(or in a CPU-only build) it stops with one error line.

Examples:
  spx spmm cage11.mtx.gz --cols 32
  spx spmm stencil27:n=64 --cols 8 --precision f32 --kernel ellr
  spx spmm fem:rows=1000000,len=80 --cols 32 --csr-config V=4,G=8 --csr-config BS=256
  spx spmm fem:rows=1000000,len=100 --cols 256 --host-resident --streams 3 --compare
  spx spmm stencil27:n=96 --cols 64 --host-resident --device-memory-limit 2e9 --streams 1
  spx spmm stencil27:n=200 --cols 8 --index 64 --explain)");
  cmd->callback([o] { run_spmm(*o); });
}

}  // namespace spx::cli
