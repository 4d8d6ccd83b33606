// spx gen SPEC -o FILE : write a generated matrix; spx gen --list : the generators.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/io.hpp"

namespace spx::cli {

namespace {

struct GenOptions {
  std::vector<std::string> spec;  // "stencil27:n=64", or "stencil27" "n=64" as separate words
  std::string output;
  std::string index = "int32";
  bool list = false;
};

void print_generators() {
  std::size_t width = 4;
  for (const auto& g : gen::generators()) width = std::max(width, g.kind.size());
  for (const auto& g : gen::generators()) {
    fmt::print("{:<{}}  {}\n{:<{}}  keys: {}\n", g.kind, width, g.summary, "", width, g.keys);
  }
}

// "stencil27" "n=64" "seed=2" → "stencil27:n=64,seed=2"; a single word passes through.
std::string join_spec(const std::vector<std::string>& words) {
  std::string spec = words.front();
  for (std::size_t i = 1; i < words.size(); ++i) {
    spec += (i == 1 && spec.find(':') == std::string::npos) ? ":" : ",";
    spec += words[i];
  }
  return spec;
}

template <class I>
void generate_and_write(const std::string& spec, const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  const Csr<double, I> A = gen::generate<double, I>(spec);
  const double generate_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_matrix_market(matrix_output_path(path), A);
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(human_output(path),
             "wrote {}: {} x {}, {} nonzeros (generated in {:.2f} s, written in {:.2f} s)\n",
             matrix_output_name(path), A.rows, A.cols, A.nnz(), generate_s, total_s - generate_s);
}

void run_gen(const GenOptions& options) {
  if (options.list) {
    print_generators();
    return;
  }
  if (options.spec.empty()) throw Error("spx gen: give a generator spec (e.g. stencil27:n=64) or --list");
  if (options.output.empty()) throw Error("spx gen: give the output file with -o FILE (.mtx or .mtx.gz)");
  const std::string spec = join_spec(options.spec);
  if (options.index == "int64") {
    generate_and_write<int64_t>(spec, options.output);
  } else {
    generate_and_write<int32_t>(spec, options.output);
  }
}

}  // namespace

void add_gen_command(CLI::App& app) {
  auto options = std::make_shared<GenOptions>();
  CLI::App* cmd = app.add_subcommand("gen", "Generate a matrix and write it as Matrix Market");
  cmd->add_option("spec", options->spec, "KIND:key=value,... (or KIND key=value ...)")->type_name("SPEC");
  cmd->add_option("-o,--output", options->output, "Output file; .gz at the end compresses it; '-': stdout")
      ->type_name("FILE|-");
  cmd->add_option("--index", options->index, "Index type used to build the matrix (int64 for nnz >= 2^31)")
      ->check(CLI::IsMember({"int32", "int64"}))
      ->capture_default_str();
  cmd->add_flag("--list", options->list, "List the generators and their keys");
  cmd->footer(
      R"(Generators are deterministic: the same spec (including seed=) gives the same matrix everywhere.

Examples:
  spx gen --list
  spx gen stencil27:n=64 -o stencil27_64.mtx.gz
  spx gen rmat scale=18 ef=16 seed=3 -o rmat18.mtx)");
  cmd->callback([options] { run_gen(*options); });
}

}  // namespace spx::cli
