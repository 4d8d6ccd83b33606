// spx: the command-line tool. One file per subcommand (cmd_*.cpp); this file only assembles them
// and turns every failure into one "spx: error: …" line and a non-zero exit status.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <new>

#include "bench/provenance.hpp"
#include "cli_common.hpp"
#include "openmp_wait_policy.hpp"
#include "spx/version.hpp"

namespace spx::cli {
void add_tune_command(CLI::App& app);   // cmd_tune.cpp
void add_spmm_command(CLI::App& app);   // cmd_spmm.cpp
void add_gemm_command(CLI::App& app);   // cmd_gemm.cpp
void add_model_command(CLI::App& app);  // cmd_model.cpp
void add_plan_command(CLI::App& app);   // cmd_plan.cpp
void add_cg_command(CLI::App& app);     // cmd_cg.cpp
void add_dist_command(CLI::App& app);   // cmd_dist.cpp
}  // namespace spx::cli

namespace {

constexpr const char* kFooter =
    R"(Every FILE may also be a generator spec, e.g. stencil27:n=64 (see spx gen --list).

Examples:
  spx info cage11.mtx.gz                    row-length statistics of a matrix
  spx gen stencil27:n=64 -o st64.mtx.gz     write a generated matrix
  spx spmv cage11.mtx.gz --format ell       time and check one SpMV kernel
  spx bench --suite small                   the benchmark table (GPU when present, else CPU)
  spx bench --suite shared --ops spmv,spmm:8 --precision f32,f64 --json out.json
  spx dist stencil27:n=64 --ranks 4          how the matrix would split over 4 GPUs

Run 'spx COMMAND --help' for a command's options.)";

std::string version_text() {
  return fmt::format("spx {} ({}; commit {})", spx::kVersionString,
                     spx::built_with_cuda() ? "with CUDA" : "CPU only, built without CUDA",
                     spx::bench::source_commit());
}

int run(int argc, char** argv) {
  CLI::App app("spx: fast sparse and dense matrix products on NVIDIA GPUs, with a CPU backend.", "spx");
  app.set_version_flag("--version", version_text(), "Print the version and exit");
  app.require_subcommand(1);
  spx::cli::add_info_command(app);
  spx::cli::add_gen_command(app);
  spx::cli::add_convert_command(app);
  spx::cli::add_spmv_command(app);
  spx::cli::add_bench_command(app);
  spx::cli::add_tune_command(app);
  spx::cli::add_spmm_command(app);
  spx::cli::add_gemm_command(app);
  spx::cli::add_model_command(app);
  spx::cli::add_plan_command(app);
  spx::cli::add_cg_command(app);
  spx::cli::add_dist_command(app);
  // After the commands: CLI11 copies a parent's footer into the subcommands added after it, and
  // each command's help shows its own examples only.
  app.footer(kFooter);

  if (argc <= 1) {
    std::cout << app.help();
    return 0;
  }
  // CLI11 would call an unknown command a missing one ("A subcommand is required"): name it.
  if (const std::string first = argv[1]; !first.empty() && first[0] != '-') {
    try {
      [[maybe_unused]] const CLI::App* known = app.get_subcommand(first);
    } catch (const CLI::OptionNotFound&) {
      spx::cli::print_error(
          fmt::format("unknown command '{}' (commands: info, gen, convert, spmv, spmm, gemm, bench, tune, "
                      "model, plan, cg, dist; "
                      "run 'spx --help')",
                      first));
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const auto selected = app.get_subcommands();
    const std::string command = selected.empty() ? "spx" : "spx " + selected.front()->get_name();
    spx::cli::print_error(fmt::format("{} (run '{} --help')", e.what(), command));
    return e.get_exit_code();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  spx::cli::restart_with_passive_openmp_waiting(argc, argv);
  try {
    return run(argc, argv);
  } catch (const spx::cli::ExitStatus& status) {
    return status.code;
  } catch (const std::bad_alloc&) {
    spx::cli::print_error("out of memory");
  } catch (const std::exception& e) {
    spx::cli::print_error(e.what());
  } catch (...) {
    spx::cli::print_error("unexpected failure");
  }
  return 1;
}
