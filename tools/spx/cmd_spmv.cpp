// spx spmv FILE|SPEC : time and check one SpMV kernel. It runs through the benchmark engine and
// its kernel registry, so every kernel `spx bench` knows (CPU now, CUDA once registered) is
// reachable here without code in this file. With --index 64, or under --index auto on a matrix past
// 2^31 - 1 nonzeros, the planned product runs on a matrix read with 64-bit indices instead
// (wide_product.hpp: the engine loads 32-bit matrices).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <memory>
#include <string>
#include <utility>

#include "bench/engine.hpp"
#include "bench/host_device.hpp"
#include "bench/report.hpp"
#include "cli_common.hpp"
#include "spx/error.hpp"
#include "spx/plan.hpp"
#include "wide_product.hpp"

namespace spx::cli {

namespace {

struct SpmvOptions {
  std::string input;
  std::string backend = "auto";  // as spx bench: the GPU when one is usable
  std::string format;            // empty: csr, or any format when --kernel is given
  std::string precision = "f64";
  int repeat = 0;
  int threads = 0;
  std::string kernel;
  std::string json;
  std::string index = "auto";  // auto, 32 or 64 (plan::IndexWidth)
  PlannedOptions planned;      // the front door (GPU)
};

// Our own kernel first, then a vendor library's, then the reference.
std::string preferred_kernel(const bench::Registry& registry, const bench::BenchOptions& options) {
  const bench::KernelEntry* best = nullptr;
  auto rank = [](const bench::KernelEntry* k) { return k->reference ? 2 : k->vendor ? 1 : 0; };
  for (const bench::KernelEntry* k :
       bench::select_kernels(registry, options, bench::OpKind::Spmv, options.precisions.front())) {
    if (best == nullptr || rank(k) < rank(best)) best = k;
  }
  if (best == nullptr) {
    throw Error(fmt::format("no {} SpMV kernel for format {} in {}", options.backend,
                            bench::to_string(options.formats.front()),
                            bench::to_string(options.precisions.front())));
  }
  return best->name;
}

void print_result(std::ostream& out, const bench::BenchReport& report, const bench::Result& r) {
  const bench::MatrixInfo& m = report.matrices.front();
  fmt::print(out, "{:<11}{}  {} x {}, {} nonzeros", "matrix", m.name, m.rows, m.cols, m.nnz);
  if (m.stats)
    fmt::print(out, " (row length {}/{:.1f}/{} min/avg/max)", m.stats->min_row, m.stats->avg_row,
               m.stats->max_row);
  const auto [shown, plan_text] = split_plan_text(r.params);
  fmt::print(out, "\n{:<11}{}  ({}, {}, {}{}{})\n", "kernel", r.kernel, r.backend, bench::to_string(r.format),
             bench::to_string(r.precision), r.reference ? ", reference kernel" : "",
             shown.empty() ? "" : ", " + bench::to_string(shown));
  if (!plan_text.empty()) fmt::print(out, "{}", plan_text);
  fmt::print(out,
             "{:<11}{:.4f} ms median, {:.4f} min, {:.4f} max over {} runs (setup {:.1f} ms, not timed)\n",
             "time", r.timing.median_ms, r.timing.min_ms, r.timing.max_ms, r.timing.runs, r.prepare_ms);
  fmt::print(out, "{:<11}{:.2f} GB/s effective (Reguly-Giles eq. 2), {:.2f} GB/s minimum traffic (eq. 4)",
             "bandwidth", r.gbs, r.gbs_min);
  if (report.device.copy_gbs > 0) {
    fmt::print(out, " = {:.0f}% of the measured copy bandwidth {:.1f} GB/s",
               100 * r.gbs_min / report.device.copy_gbs, report.device.copy_gbs);
  }
  fmt::print(out, "\n{:<11}{:.3f} GFLOP/s (2 flops per nonzero)\n", "compute", r.gflops);
  fmt::print(out, "{:<11}{}: worst error {:.2g} of the rounding-error bound, relative error {:.2g}\n",
             "check", r.checked ? "ok, matches spx::ref" : "FAILED against spx::ref", r.check_ratio,
             r.rel_error);
}

// The 64-bit path: the planned product on the GPU, so what picks another kernel or the CPU is refused.
void run_wide_spmv(const SpmvOptions& options, const CLI::App& cmd, bench::MatrixSource source,
                   plan::IndexWidth width) {
  if (!options.kernel.empty()) refuse_beside_wide("--kernel", width);
  if (!options.format.empty()) refuse_beside_wide("--format", width);
  if (options.backend == "cpu") refuse_beside_wide("--backend cpu", width);
  warn_not_applied(cmd, {"--threads"}, "at 64-bit indices (the planned product on the GPU)");
  WideProduct w;
  w.command = "spmv";
  w.source = std::move(source);
  w.width = width;
  w.precision = options.precision;
  w.repeat = options.repeat;
  w.planned = options.planned;
  w.json_path = options.json;
  run_wide_product(w);
}

void run_spmv(const SpmvOptions& options, const CLI::App& cmd) {
  // --index: decided before anything loads (a file's header, a spec's size).
  const plan::IndexWidth width = plan::parse_index_width(options.index);
  bench::MatrixSource source = bench::resolve_matrix(options.input);
  if (reads_wide_indices(source, width, "spmv")) return run_wide_spmv(options, cmd, std::move(source), width);
  const bench::Registry& registry = bench::default_registry();
  bench::BenchOptions o;
  o.backend = bench::resolve_backend(registry, options.backend);
  // Fail on an unusable backend before spending time on the matrix.
  if (std::string why = bench::backend_unavailable_reason(registry, o.backend); !why.empty()) {
    throw Error(fmt::format("--backend {}: {}", o.backend, why));
  }
  o.ops = {bench::OpSpec{}};
  o.precisions = {bench::parse_precision(options.precision)};
  // On the GPU without --kernel or --format: the front door's planned product.
  const bool planned = o.backend == "cuda" && options.kernel.empty() && options.format.empty();
  if (!planned && options.planned.asks_for_plan())
    throw Error("--explain and --tuning-cache belong to the planned product (GPU, no --kernel or --format)");
  if (o.backend == "cuda") warn_not_applied(cmd, {"--threads"}, "on the cuda backend (CPU kernels only)");
  if (!planned)
    warn_not_applied(cmd, {"--plan", "--expected-calls"},
                     "without the planned product (GPU, no --kernel or --format)");
  if (!options.format.empty() || (options.kernel.empty() && !planned)) {
    o.formats = {bench::parse_format(options.format.empty() ? "csr" : options.format)};
  }
  o.kernels = {planned                  ? std::string("spx_auto")
               : options.kernel.empty() ? preferred_kernel(registry, o)
                                        : options.kernel};
  if (planned) o.params.push_back(planned_params("spx_auto", options.planned));
  o.matrices = {std::move(source)};
  if (options.repeat > 0) o.timing.fixed_runs = options.repeat;
  if (options.threads > 0) bench::set_host_threads(options.threads);

  const bench::BenchReport report = bench::run_bench(o, registry);
  if (!report.input_errors.empty()) throw Error(report.input_errors.front());
  if (report.results.empty()) {
    throw Error(report.notes.empty() ? std::string("the kernel produced no result") : report.notes.front());
  }
  const bench::Result& r = report.results.front();
  print_result(human_output(options.json), report, r);
  if (!options.json.empty()) bench::write_json(options.json, bench::to_json(report));
  if (!r.checked) {
    throw Error(fmt::format("{}: the result does not match spx::ref (worst error {:.3g} times the bound)",
                            r.kernel, r.check_ratio));
  }
}

}  // namespace

void add_spmv_command(CLI::App& app) {
  auto options = std::make_shared<SpmvOptions>();
  CLI::App* cmd = app.add_subcommand("spmv", "Time one SpMV kernel (y = A*x) and check it against spx::ref");
  cmd->add_option("matrix", options->input, "Matrix Market file or generator spec")
      ->required()
      ->type_name("FILE|SPEC");
  cmd->add_option("--backend", options->backend,
                  "Where to run: cpu, cuda, or auto (cuda when a GPU is usable)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  cmd->add_option("--format", options->format, "Storage format: csr, coo, ell, ellr, hyb (default csr)")
      ->check(CLI::IsMember({"csr", "coo", "ell", "ellr", "hyb"}));
  cmd->add_option("--precision", options->precision, "Value precision: f32 or f64")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  cmd->add_option("--repeat", options->repeat,
                  "Timed runs (default: adaptive, at least 10 runs and 0.2 s, after one checked warm-up run)")
      ->transform(count_in(1, kMaxRuns, "runs", "leave it out for adaptive timing"));
  cmd->add_option("--threads", options->threads, "OpenMP threads of the CPU kernels (default: all)")
      ->transform(thread_count());
  cmd->add_option("--kernel", options->kernel, "Run this registered kernel (see spx bench --list)");
  cmd->add_option("--json", options->json, "Also write the result as bench JSON to FILE ('-': stdout)")
      ->type_name("FILE|-");
  add_planned_options(cmd, options->planned, "GPU, planned product");
  cmd->add_option("--index", options->index,
                  "Index width: auto (64-bit where the matrix passes 2^31 - 1 nonzeros; a file's header or a "
                  "spec's size decides before reading), 32, or 64 (the planned product on the GPU at 64-bit "
                  "row offsets, sampled rows checked)")
      ->check(CLI::IsMember({"auto", "32", "64"}))
      ->capture_default_str();
  cmd->footer(R"(--backend auto (the default) runs on the GPU when one is usable, else on the CPU. On the GPU,
without --kernel or --format, the planned product runs (spx_auto: the front door chooses among
spx's kernels and cuSPARSE's; --plan, --explain). With --format, spx's own kernel for the format
runs (a vendor one where spx has none). On the CPU, csr runs
the OpenMP kernel (omp_csr); the other formats run the single-thread reference kernels (ref_coo,
ref_ell, ...), named so in the output. Format conversion is not timed. At 64-bit indices (--index 64,
or auto past 2^31 - 1 nonzeros) the matrix is read with int64 indices and the planned product runs on
the GPU with 64-bit row offsets; the first, last and 2048 random rows are checked against spx::ref.

Examples:
  spx spmv cage11.mtx.gz
  spx spmv cage11.mtx.gz --plan measure --explain
  spx spmv stencil27:n=64 --format ellr --precision f32 --repeat 50
  spx spmv G3_circuit.mtx.gz --backend cpu --threads 1 --json -
  spx spmv stencil27:n=200 --index 64 --explain)");
  cmd->callback([options, cmd] { run_spmv(*options, *cmd); });
}

}  // namespace spx::cli
