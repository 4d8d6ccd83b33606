// spx convert IN OUT : read Matrix Market (or generate), write Matrix Market.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <memory>
#include <string>

#include "bench/inputs.hpp"
#include "cli_common.hpp"
#include "spx/io.hpp"

namespace spx::cli {

namespace {

struct ConvertOptions {
  std::string input;
  std::string output;
  std::string precision = "f64";
};

template <class T>
void convert(const bench::MatrixSource& source, const std::string& output) {
  const auto start = std::chrono::steady_clock::now();
  const Csr<T, int32_t> A = bench::load_matrix<T, int32_t>(source);
  write_matrix_market(matrix_output_path(output), A);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(human_output(output), "wrote {}: {} x {}, {} nonzeros, {} values ({:.2f} s)\n",
             matrix_output_name(output), A.rows, A.cols, A.nnz(), sizeof(T) == 4 ? "f32" : "f64", seconds);
}

void run_convert(const ConvertOptions& options) {
  const bench::MatrixSource source = bench::resolve_matrix(options.input);
  if (options.precision == "f32") {
    convert<float>(source, options.output);
  } else {
    convert<double>(source, options.output);
  }
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto options = std::make_shared<ConvertOptions>();
  CLI::App* cmd =
      app.add_subcommand("convert", "Convert between Matrix Market variants (.mtx <-> .mtx.gz, ...)");
  cmd->add_option("input", options->input, "Matrix Market file or generator spec")
      ->required()
      ->type_name("IN");
  cmd->add_option("output", options->output,
                  "Output file; .gz at the end compresses it; '-': Matrix Market text on stdout")
      ->required()
      ->type_name("OUT");
  cmd->add_option("--precision", options->precision,
                  "Value precision of the written file (f32 rounds values)")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  cmd->footer(R"(The output is always 'coordinate real general', 1-based, sorted by row and column: symmetric
files are written expanded, pattern files with value 1, duplicates summed.

Examples:
  spx convert cage11.mtx.gz cage11.mtx
  spx convert big.mtx big.mtx.gz --precision f32
  spx convert stencil7:n=32 st7.mtx.gz
  spx convert cage11.mtx.gz - | head)");
  cmd->callback([options] { run_convert(*options); });
}

}  // namespace spx::cli
