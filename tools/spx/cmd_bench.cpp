// spx bench : the benchmark. Matrices (files, folders, specs, suites) × ops × precisions × every
// registered kernel of the backend; a table per matrix for people and JSON for plots and models.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "bench/engine.hpp"
#include "bench/host_device.hpp"
#include "bench/multigpu.hpp"
#include "bench/report.hpp"
#include "bench/suites.hpp"
#include "cli_common.hpp"
#include "mpi_ranks.hpp"
#include "spx/error.hpp"

namespace spx::cli {

namespace {

struct BenchCliOptions {
  std::vector<std::string> inputs;
  std::vector<std::string> suites;
  std::string ops = "spmv";
  std::string precisions = "f64";
  std::string backend = "auto";
  std::vector<std::string> kernels;
  std::vector<std::string> formats;
  int repeat = 0;
  double min_time = 0.2;
  std::string max_nnz;
  int threads = 0;
  std::string json;
  bool list = false;
  bool studies = false;
  bool quiet = false;
  std::string gpus;                // team sizes: the multi-GPU benchmark
  bool dist = false;               // this MPI job's ranks, on CPUs or GPUs (mpi_ranks.hpp)
  std::string partition = "rows";  // --dist: rows or metis
  std::string halo = "auto";       // --dist --backend cuda: auto, nccl or mpi
  std::string halo_chunks =
      "0";                     // --gpus, --dist --backend cuda: DistOptions::halo_chunks (a list with --gpus)
  std::string index = "auto";  // auto, 32 or 64 (plan::IndexWidth): each matrix's index width
};

void print_list(const bench::Registry& registry, bool studies) {
  fmt::print("backends:\n");
  for (const char* name : {"cpu", "cuda"}) {
    const std::string why = bench::backend_unavailable_reason(registry, name);
    fmt::print("  {:<6}{}\n", name, why.empty() ? "available" : "unavailable: " + why);
  }
  std::size_t width = 20;
  for (const auto& k : registry.kernels()) width = std::max(width, k.name.size());
  fmt::print("\nkernels:\n  {:<{}} {:<5} {:<5} {:<6} {:<8} {}\n", "name", width, "back", "op", "format",
             "prec", "");
  int hidden = 0;
  for (const auto& k : registry.kernels()) {
    if (k.study && !studies) {
      ++hidden;
      continue;
    }
    const std::string prec = k.f32 && k.f64 ? "f32,f64" : k.f32 ? "f32" : "f64";
    fmt::print("  {:<{}} {:<5} {:<5} {:<6} {:<8} {}{}{}\n", k.name, width, k.backend, bench::to_string(k.op),
               bench::to_string(k.format), prec, k.vendor ? "[vendor] " : "", k.study ? "[study] " : "",
               k.summary);
  }
  if (hidden > 0)
    fmt::print(
        "  (and {} study entries: forced modes and fixed parameters behind the docs; --list --studies)\n",
        hidden);
  auto print_suite = [](const char* name, const std::vector<bench::SuiteMatrix>& suite) {
    fmt::print("\nsuite {}:\n", name);
    for (const auto& m : suite) {
      const std::string nnz = fmt::format("~{:.2f}M", static_cast<double>(m.approx_nnz) / 1e6);
      fmt::print("  {:<16} {:>8} nnz  {:<44} {}\n", m.name, nnz, m.spec, m.what);
    }
  };
  print_suite("small", bench::small_suite());
  print_suite("standard", bench::standard_suite());
  print_suite("calibration", bench::calibration_suite());
  print_suite("validation", bench::validation_suite());
  print_suite("planner", bench::planner_suite());
  print_suite("formats", bench::formats_suite());
  fmt::print("\nsuite shared:\n  every .mtx/.mtx.gz in {} (SPX_SHARED_MATRICES overrides)\n",
             bench::shared_matrices_folder());
}

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items)
    for (auto& part : split_list(item)) out.push_back(std::move(part));
  return out;
}

void run_bench_command(const BenchCliOptions& cli, const CLI::App& cmd) {
  const bench::Registry& registry = bench::default_registry();
  if (cli.list) {
    print_list(registry, cli.studies);
    return;
  }
  bench::BenchOptions o;
  o.backend = bench::resolve_backend(registry, cli.backend);
  o.ops = bench::parse_ops(cli.ops);
  o.precisions = bench::parse_precisions(cli.precisions);
  o.kernels = split_commas(cli.kernels);
  o.studies = cli.studies;
  for (const auto& f : split_commas(cli.formats)) o.formats.push_back(bench::parse_format(f));
  if (cli.repeat > 0) o.timing.fixed_runs = cli.repeat;
  o.timing.min_seconds = cli.min_time;
  o.index = plan::parse_index_width(cli.index);
  if (!cli.max_nnz.empty()) o.max_nnz = parse_count(cli.max_nnz, "--max-nnz", 0, kMaxCount, "nonzeros");
  if (cli.threads > 0) bench::set_host_threads(cli.threads);

  std::ostream& out = human_output(cli.json);
  const bool sparse_ops = std::any_of(o.ops.begin(), o.ops.end(),
                                      [](const bench::OpSpec& op) { return op.op != bench::OpKind::Gemm; });
  std::vector<std::string> suites = split_commas(cli.suites);
  if (sparse_ops && cli.inputs.empty() && suites.empty()) {
    fmt::print(out, "no matrices given: running --suite small\n");
    suites.push_back("small");
  }
  if (sparse_ops) {
    for (const auto& s : suites) {
      auto sources = bench::suite_sources(s);
      o.matrices.insert(o.matrices.end(), sources.begin(), sources.end());
    }
    auto sources = bench::resolve_matrices(cli.inputs);
    o.matrices.insert(o.matrices.end(), sources.begin(), sources.end());
  }
  // The distributed products cut their ranks into 32-bit slices.
  if (o.index == plan::IndexWidth::Bits64 && (cli.dist || !cli.gpus.empty()))
    throw Error(fmt::format("--index 64: {} runs with 32-bit indices; drop --index 64 (or {})",
                            cli.dist ? "--dist" : "--gpus", cli.dist ? "--dist" : "--gpus"));
  if (cli.dist) {
    if (!cli.gpus.empty())
      throw Error("--dist runs CPU ranks under MPI; --gpus one process's GPUs: give one");
    MpiBenchOptions m;
    m.gpu = cli.backend == "cuda";
    if (m.gpu) {
      warn_not_applied(cmd, {"--formats", "--repeat", "--max-nnz", "--studies", "--threads"},
                       "with --dist --backend cuda (each rank's planned SpMV; --kernels restricts the plan)");
      m.kernels = cli.kernels;
      m.halo = cli.halo;
      m.halo_chunks = static_cast<int>(parse_count(cli.halo_chunks, "--halo-chunks", 0, 64, "chunks"));
    } else {
      warn_not_applied(cmd,
                       {"--kernels", "--formats", "--repeat", "--max-nnz", "--studies", "--threads", "--halo",
                        "--halo-chunks"},
                       "with --dist on CPUs (omp::spmv on each rank; OMP_NUM_THREADS sets its threads)");
    }
    m.matrices = o.matrices;
    for (const auto& op : o.ops)
      if (op.op != bench::OpKind::Spmv) throw Error("--dist: only --ops spmv runs on MPI ranks");
    for (const auto& p : split_list(cli.precisions)) m.precisions.push_back(p);
    m.min_seconds = cli.min_time;
    m.json = cli.json;
    m.partition = cli.partition;
    run_mpi_bench(m);
    return;
  }
  warn_not_applied(cmd, {"--halo"}, "without --dist");
  if (cli.gpus.empty()) warn_not_applied(cmd, {"--halo-chunks"}, "without --gpus or --dist --backend cuda");
  if (cli.gpus.empty()) warn_not_applied(cmd, {"--partition"}, "without --dist or --gpus");
  if (!cli.gpus.empty()) {
    warn_not_applied(cmd, {"--kernels", "--formats", "--repeat", "--max-nnz", "--studies"},
                     "with --gpus (the distributed products)");
    bench::MultiGpuOptions m;
    m.matrices = o.matrices;
    m.ops = o.ops;
    m.precisions = o.precisions;
    for (const auto& g : split_list(cli.gpus))
      m.gpus.push_back(static_cast<int>(parse_count(g, "--gpus", 0, kMaxRanks, "GPUs")));
    m.min_seconds = cli.min_time;
    m.partition = cli.partition;
    m.halo_chunks.clear();
    for (const auto& c : split_list(cli.halo_chunks))
      m.halo_chunks.push_back(static_cast<int>(parse_count(c, "--halo-chunks", 0, 64, "chunks")));
    const auto j = bench::run_multigpu(m, out);
    out.flush();
    if (!cli.json.empty()) bench::write_json(cli.json, j);
    return;
  }
  bench::validate_options(registry, o);  // fail before the copy-bandwidth measurement
  if (o.backend == "cuda") warn_not_applied(cmd, {"--threads"}, "on the cuda backend (CPU kernels only)");

  ProgressLine progress(!cli.quiet, stderr_is_terminal());
  bench::BenchCallbacks callbacks;
  callbacks.progress = [&](int done, int total, const std::string& what) {
    progress.show(done, total, what);
  };
  bool first = true;
  callbacks.matrix_done = [&](const bench::BenchReport& report, const bench::MatrixInfo& matrix) {
    progress.clear();
    if (first) bench::print_device_line(out, report);
    first = false;
    bench::print_matrix_table(out, report, matrix);
    out.flush();
    // The results so far, marked partial, after every matrix: a run killed by a time limit keeps
    // what it measured (the file is replaced whole, never half written).
    if (!cli.json.empty() && cli.json != "-") {
      nlohmann::ordered_json j = bench::to_json(report);
      j["partial"] = true;
      bench::write_json(cli.json, j);
    }
  };
  const bench::BenchReport report = bench::run_bench(o, registry, callbacks);
  progress.clear();
  if (first) bench::print_device_line(out, report);
  bench::print_footer(out, report);
  out.flush();
  if (!cli.json.empty()) bench::write_json(cli.json, bench::to_json(report));

  if (report.failed_checks > 0 || report.failed_inputs > 0) {
    std::string what;
    if (report.failed_checks > 0)
      what = fmt::format("{} kernel run(s) failed their check", report.failed_checks);
    if (report.failed_inputs > 0) {
      what += fmt::format("{}{} matrix input(s) could not be loaded", what.empty() ? "" : " and ",
                          report.failed_inputs);
    }
    throw Error(what + " (see the notes above)");
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchCliOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Benchmark every registered kernel on matrices, with checks");
  cmd->add_option("matrices", o->inputs, "Matrix Market files, folders of them, or generator specs")
      ->type_name("FILE|DIR|SPEC");
  cmd->add_option("--suite", o->suites,
                  fmt::format("Named matrix set: {} (repeatable)", fmt::join(bench::suite_names(), ", ")))
      ->type_name("NAME");
  cmd->add_option("--ops", o->ops, "Operations: spmv, spmm:L (L dense columns), gemm:N")
      ->type_name("LIST")
      ->capture_default_str();
  cmd->add_option("--precision", o->precisions, "Precisions: f32, f64 or f32,f64")
      ->type_name("LIST")
      ->capture_default_str();
  cmd->add_option("--backend", o->backend, "cpu, cuda, or auto (cuda when a GPU is usable, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  cmd->add_option("--kernels", o->kernels, "Only these kernels (names or patterns like 'omp_*'; see --list)")
      ->type_name("LIST");
  cmd->add_option("--formats", o->formats, "Only kernels on these formats (csr,coo,ell,ellr,hyb,sell,dense)")
      ->type_name("LIST");
  cmd->add_option("--repeat", o->repeat, "Exactly N timed runs per kernel (default: adaptive)")
      ->transform(count_in(1, kMaxRuns, "runs", "leave it out for adaptive timing"));
  cmd->add_option("--min-time", o->min_time, "Adaptive timing: at least this many seconds per kernel")
      ->check(real_in(0, kMaxBenchSeconds, "seconds"))
      ->capture_default_str();
  cmd->add_option("--max-nnz", o->max_nnz, "Skip matrices with more nonzeros (e.g. 2e6)")->type_name("N");
  cmd->add_option("--threads", o->threads, "OpenMP threads of the CPU kernels (default: all)")
      ->transform(thread_count());
  cmd->add_option("--index", o->index,
                  "Index width each matrix is read with: auto (64-bit past 2^31 - 1 nonzeros, from a file's "
                  "header or a spec's size), 32, or 64 (only kernels with a 64-bit path run: the spx_auto "
                  "entries, omp_csr, ref_csr; the others are skipped with the reason)")
      ->check(CLI::IsMember({"auto", "32", "64"}))
      ->capture_default_str();
  cmd->add_option("--json", o->json, "Write all results as JSON to FILE ('-': stdout, tables go to stderr)")
      ->type_name("FILE|-");
  cmd->add_option(
         "--gpus", o->gpus,
         "Team sizes for the distributed products over NCCL, e.g. 1,2,4: each matrix split over that "
         "many GPUs, timed whole and by piece (local, halo, remote), checked (spmv, spmm:L)")
      ->type_name("N[,N...]");
  cmd->add_flag(
      "--dist", o->dist,
      "SpMV on this MPI job's ranks, one process per rank (mpirun -np N spx bench FILE --dist): rows "
      "split by nonzeros; on CPUs (checked bitwise against one process) or, with --backend cuda, "
      "one GPU per rank (checked against the CPU)");
  cmd->add_option(
         "--partition", o->partition,
         "--dist or --gpus: rows (contiguous, balanced by nonzeros), metis (METIS parts), rcm (blocks of "
         "RCM's numbering) or auto (the one whose halo repays its cost); metis and rcm renumber the matrix "
         "on "
         "one host (rank 0)")
      ->check(CLI::IsMember({"rows", "metis", "rcm", "auto"}))
      ->capture_default_str();
  cmd->add_option(
         "--halo", o->halo,
         "--dist --backend cuda: how the x halo moves between GPU ranks: nccl (a GPU per rank), mpi "
         "(staged through the host; ranks may share a GPU) or auto (nccl when no two ranks share one)")
      ->check(CLI::IsMember({"auto", "nccl", "mpi"}))
      ->capture_default_str();
  cmd->add_option(
         "--halo-chunks", o->halo_chunks,
         "--gpus or --dist --backend cuda: the chunks each product's halo moves in, each followed at "
         "once by the remote piece it feeds (0: by the halo's size); with --gpus a list, each run on "
         "the same split, e.g. 1,2,4")
      ->type_name("N[,N...]")
      ->capture_default_str();
  cmd->add_flag("--list", o->list, "List backends, kernels and suites, then exit");
  cmd->add_flag("--studies", o->studies,
                "Also run (and list) the study entries: forced modes and fixed parameters of kernels whose "
                "defaults choose for themselves");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress on stderr");
  cmd->footer(R"(Every kernel is checked against spx::ref on the same input (output poisoned with NaN first),
then timed: median, min and max of repeated warm runs. GB/s counts the Reguly-Giles effective bytes;
'GB/s min' the minimum traffic, shown as % of the copy bandwidth measured at the start of the run.
Exit status is non-zero when a check fails or a matrix cannot be loaded.

Examples:
  spx bench                                   the small generated suite on the GPU, else the CPU
  spx bench --suite shared --max-nnz 1e6 --precision f32,f64
  spx bench cage11.mtx.gz stencil27:n=64 --ops spmv,spmm:8 --kernels 'omp_*'
  spx bench --ops gemm:512 --precision f32,f64 --json gemm.json
  spx bench stencil27:n=64 --index 64 --ops spmv,spmm:8
  spx bench --list)");
  cmd->callback([o, cmd] { run_bench_command(*o, *cmd); });
}

}  // namespace spx::cli
