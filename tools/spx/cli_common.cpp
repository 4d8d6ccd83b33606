#include "cli_common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <string_view>

#include "bench/footprint.hpp"
#include "spx/error.hpp"

namespace spx::cli {

std::ostream& human_output(const std::string& json_path) { return json_path == "-" ? std::cerr : std::cout; }

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

std::string matrix_output_path(const std::string& out) {
  if (out != "-") return out;
  std::cout.flush();  // the writer opens stdout again: nothing buffered may come after it
  return "/dev/stdout";
}

std::string matrix_output_name(const std::string& out) { return out == "-" ? "stdout" : out; }

std::string human_bytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", b / (1u << 30));
  if (bytes >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", b / (1u << 20));
  if (bytes >= (uint64_t{1} << 10)) return fmt::format("{:.1f} KiB", b / (1u << 10));
  return fmt::format("{} B", bytes);
}

void print_error(const std::string& message) {
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::cout.flush();
  std::cerr << "spx: error: " << line << std::endl;
}

namespace {
// Whether a launcher started this process as a rank other than 0 of a job (Open MPI, PMIx, MPICH's
// PMI, Slurm): every rank parses the same command line and would print the same warning.
bool secondary_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(name); v && *v) return std::string_view(v) != "0";
  return false;
}
}  // namespace

void print_warning(const std::string& message) {
  if (secondary_rank()) return;  // rank 0 says it once for the job
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::cout.flush();
  std::cerr << "spx: warning: " << line << std::endl;
}

void warn_not_applied(const CLI::App& cmd, const std::vector<std::string>& options,
                      const std::string& where) {
  std::vector<std::string> given;
  for (const std::string& name : options)
    if (cmd.count(name) > 0) given.push_back(name);
  if (given.empty()) return;
  print_warning(fmt::format("{} {} not apply {}: ignored", fmt::join(given, ", "),
                            given.size() == 1 ? "does" : "do", where));
}

bool reads_wide_indices(const bench::MatrixSource& source, plan::IndexWidth width,
                        const std::string& command) {
  return bench::reads_wide_indices(source, width, fmt::format("spx {} --index 64", command));
}

void ProgressLine::show(int done, int total, const std::string& what) {
  if (!enabled_) return;
  if (what.empty()) return clear();
  const int width = static_cast<int>(std::to_string(total).size());
  std::string line = fmt::format("[{:>{}}/{}] {}", done, width, total, what);
  if (line.size() > 100) line.resize(100);
  if (terminal_) {
    std::cerr << "\r\033[K" << line << std::flush;
    shown_ = true;
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (logged_ && now - last_log_ < kProgressLogInterval) return;
  std::cerr << line << std::endl;
  logged_ = true;
  last_log_ = now;
}

void ProgressLine::clear() {
  if (enabled_ && terminal_ && shown_) std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

void add_planned_options(CLI::App* cmd, PlannedOptions& o, const std::string& context) {
  cmd->add_option("--plan", o.plan, context + ": planning mode, auto, rule, model, measure or tune")
      ->check(CLI::IsMember({"auto", "rule", "model", "measure", "tune"}))
      ->capture_default_str();
  cmd->add_option("--expected-calls", o.expected_calls,
                  context + ": products the plan amortises its setup (conversions) over")
      ->transform(count_in(1, kMaxExpectedCalls, "calls", "give the number of products you will run"))
      ->capture_default_str();
  cmd->add_flag("--explain", o.explain,
                context + ": print the plan (candidates, predicted/measured us, setup, why)");
  cmd->add_option("--tuning-cache", o.tuning_cache,
                  context + ": plans keyed by structure and device in FILE (also $SPX_TUNING_CACHE)")
      ->type_name("FILE");
}

bench::KernelParams planned_params(const std::string& kernel, const PlannedOptions& o) {
  bench::KernelParams k{kernel, fmt::format("--plan {}", o.plan), {}};
  k.params = {
      {"mode", o.plan}, {"expected_calls", o.expected_calls}, {"explain", int64_t{o.explain ? 1 : 0}}};
  if (!o.tuning_cache.empty()) k.params.push_back({"tuning_cache", o.tuning_cache});
  return k;
}

PlannedParams split_plan_text(const bench::Params& params) {
  PlannedParams out;
  for (const bench::Param& p : params) {
    if (p.key == "plan")
      out.plan_text = bench::to_string(p.value);
    else
      out.shown.push_back(p);
  }
  return out;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace spx::cli
