// Helpers shared by the spx subcommands (one file per subcommand: cmd_*.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "bench/engine.hpp"  // KernelParams
#include "bench/inputs.hpp"
#include "bench/types.hpp"
#include "number_options.hpp"
#include "spx/plan.hpp"

namespace spx::cli {

// Each subcommand adds itself to the app; its callback runs the command and throws spx::Error
// (or any std::exception) on failure, which main() prints as one "spx: error: …" line.
void add_info_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_spmv_command(CLI::App& app);
void add_bench_command(CLI::App& app);

// Thrown by a command that already printed its errors and only needs a non-zero exit status.
struct ExitStatus {
  int code = 1;
};

// Human-readable output goes to stdout, or to stderr when the JSON goes to stdout ("--json -"),
// so `spx … --json - | jq` always receives clean JSON.
std::ostream& human_output(const std::string& json_path);

bool stderr_is_terminal();

// Where a command writes a matrix it was asked to write to OUT: "-" is stdout (Matrix Market text,
// as "--json -" is JSON on stdout), anything else the file. The command's own report then goes to
// stderr (human_output(OUT)).
std::string matrix_output_path(const std::string& out);
// The name a report gives OUT: "stdout" for "-".
std::string matrix_output_name(const std::string& out);

// "2.3 MiB", "512 B"
std::string human_bytes(uint64_t bytes);

// Prints "spx: error: MESSAGE" on one line (newlines in MESSAGE become spaces).
void print_error(const std::string& message);
// Prints "spx: warning: MESSAGE" on one line: something the user asked for that does not happen,
// while the command still runs. In an MPI job only rank 0 prints it (the others would repeat it).
void print_warning(const std::string& message);
// Warns, in one line, about those of `options` (long names, e.g. "--baseline") that were given on
// `cmd`'s command line but do not apply here: "spx: warning: --baseline, --spmv-timing do not apply
// WHERE: ignored". Nothing when none was given.
void warn_not_applied(const CLI::App& cmd, const std::vector<std::string>& options, const std::string& where);

// The exit status of a command whose run finished but whose answer is not the one asked for:
// spx cg stopped before the tolerance (iteration cap or stagnation); its report is still written.
constexpr int kExitNotConverged = 3;

// "a,b,,c" → {"a", "b", "c"}: the comma lists options take (--precision f32,f64, --gpus 1,2,4).
std::vector<std::string> split_list(const std::string& text);

// --index auto|32|64 (spx cg, spmv, spmm): bench::reads_wide_indices, a refusal naming
// `spx COMMAND --index 64`.
bool reads_wide_indices(const bench::MatrixSource& source, plan::IndexWidth width,
                        const std::string& command);

// The planned product's options (spx spmv on the GPU, spx spmm --kernel auto): the front door's
// planning mode, amortisation, explain, tuning cache.
struct PlannedOptions {
  std::string plan = "auto";
  int64_t expected_calls = 100;
  bool explain = false;
  std::string tuning_cache;
  bool asks_for_plan() const { return explain || !tuning_cache.empty(); }
};
// Adds --plan, --expected-calls, --explain, --tuning-cache; `context` prefixes their help ("GPU").
void add_planned_options(CLI::App* cmd, PlannedOptions& o, const std::string& context);
// The spx_auto entry's parameters for them (bench/cuda_spx_auto.cpp).
bench::KernelParams planned_params(const std::string& kernel, const PlannedOptions& o);

// The planned product's result parameters split for people: the explain() text (param "plan", given
// with explain = 1) apart from the rest, which one line shows.
struct PlannedParams {
  bench::Params shown;
  std::string plan_text;
};
PlannedParams split_plan_text(const bench::Params& params);

// Where stderr is not a terminal (a log), at most one progress line per interval.
inline constexpr std::chrono::seconds kProgressLogInterval{10};

// "[ 3/40] stencil27_40 f64 spmv omp_csr" on stderr, for the commands that run the benchmark
// engine. On a terminal one line, rewritten at every step. Elsewhere (a log, as on a GPU machine's
// batch run) a plain line at most every 10 s, so a long suite's log still shows where it is
// without one line per kernel.
class ProgressLine {
 public:
  ProgressLine(bool enabled, bool terminal) : enabled_(enabled), terminal_(terminal) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  void show(int done, int total, const std::string& what);
  void clear();

 private:
  bool enabled_;
  bool terminal_;
  bool shown_ = false;
  bool logged_ = false;
  std::chrono::steady_clock::time_point last_log_;
};

}  // namespace spx::cli
