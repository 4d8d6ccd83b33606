// spx info FILE|SPEC... : header and row-length statistics of matrices.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/inputs.hpp"
#include "bench/report.hpp"
#include "cli_common.hpp"
#include "spx/io.hpp"
#include "spx/stats.hpp"

namespace spx::cli {

namespace {

struct InfoOptions {
  std::vector<std::string> inputs;
  std::string json;
};

std::string_view name_of(MatrixMarketHeader::Format f) {
  return f == MatrixMarketHeader::Format::Coordinate ? "coordinate" : "array";
}
std::string_view name_of(MatrixMarketHeader::Field f) {
  switch (f) {
    case MatrixMarketHeader::Field::Real:
      return "real";
    case MatrixMarketHeader::Field::Integer:
      return "integer";
    case MatrixMarketHeader::Field::Pattern:
      return "pattern";
    case MatrixMarketHeader::Field::Complex:
      return "complex";
  }
  return "?";
}
std::string_view name_of(MatrixMarketHeader::Symmetry s) {
  switch (s) {
    case MatrixMarketHeader::Symmetry::General:
      return "general";
    case MatrixMarketHeader::Symmetry::Symmetric:
      return "symmetric";
    case MatrixMarketHeader::Symmetry::SkewSymmetric:
      return "skew-symmetric";
    case MatrixMarketHeader::Symmetry::Hermitian:
      return "hermitian";
  }
  return "?";
}

bool is_gzip(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  file.read(reinterpret_cast<char*>(magic), 2);
  return file.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

// One matrix: prints its block and returns its JSON object.
nlohmann::ordered_json describe(const std::string& arg, std::ostream& out) {
  const bench::MatrixSource source = bench::resolve_matrix(arg);
  nlohmann::ordered_json j;
  j["name"] = source.name;
  j["source"] = source.location;
  j["kind"] = source.kind == bench::MatrixSource::Kind::File ? "file" : "spec";
  std::string header_line, origin_line;
  // A pipe, FIFO or /dev/stdin can be read only once (and has no size): only the matrix is read.
  std::error_code ec;
  const bool stream = source.kind == bench::MatrixSource::Kind::File &&
                      !std::filesystem::is_regular_file(source.location, ec);
  if (stream) {
    origin_line = fmt::format("{} (a stream: read once, header not shown)", source.location);
  } else if (source.kind == bench::MatrixSource::Kind::File) {
    const MatrixMarketHeader h = read_matrix_market_header(source.location);
    const uint64_t size = std::filesystem::file_size(source.location);
    const bool gz = is_gzip(source.location);
    origin_line = fmt::format("{} ({}{})", source.location, human_bytes(size), gz ? ", gzip" : "");
    header_line = fmt::format("{} {} {}, {} x {}, {} entries in the file", name_of(h.format),
                              name_of(h.field), name_of(h.symmetry), h.rows, h.cols, h.entries);
    j["file_bytes"] = size;
    j["gzip"] = gz;
    j["header"] = {{"format", name_of(h.format)},
                   {"field", name_of(h.field)},
                   {"symmetry", name_of(h.symmetry)},
                   {"rows", h.rows},
                   {"cols", h.cols},
                   {"entries", h.entries}};
  }
  const auto start = std::chrono::steady_clock::now();
  const auto A = bench::load_matrix<double, int32_t>(source);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const MatrixStats s = stats(A);
  if (origin_line.empty())
    origin_line = fmt::format("generated from {} in {:.2f} s", source.location, seconds);

  fmt::print(out, "{}\n", source.name);
  fmt::print(out, "  {:<18}{}\n", "source", origin_line);
  if (!header_line.empty()) fmt::print(out, "  {:<18}{}\n", "header", header_line);
  // spx::to_string gives "name: value" lines; indent them under the matrix name.
  std::istringstream lines(to_string(s));
  for (std::string line; std::getline(lines, line);) fmt::print(out, "  {}\n", line);
  j["rows"] = s.rows;
  j["cols"] = s.cols;
  j["nnz"] = s.nnz;
  j["stats"] = bench::to_json(s);
  j["load_seconds"] = seconds;
  return j;
}

void run_info(const InfoOptions& options) {
  std::ostream& out = human_output(options.json);
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  int failures = 0;
  for (std::size_t i = 0; i < options.inputs.size(); ++i) {
    if (i > 0) out << "\n";
    try {
      all.push_back(describe(options.inputs[i], out));
    } catch (const std::bad_alloc&) {
      print_error(options.inputs[i] + ": out of memory");
      ++failures;
    } catch (const std::exception& e) {
      // Keep going: one bad file in `spx info *.mtx.gz` should not hide the others.
      print_error(e.what());
      ++failures;
    }
    out.flush();
  }
  if (!options.json.empty()) bench::write_json(options.json, all);
  if (failures > 0) throw ExitStatus{1};
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand("info", "Print a matrix's header and row-length statistics");
  cmd->add_option("matrices", options->inputs, "Matrix Market files (.mtx, .mtx.gz) or generator specs")
      ->required()
      ->type_name("FILE|SPEC");
  cmd->add_option("--json", options->json, "Also write the statistics as JSON to FILE ('-': stdout)")
      ->type_name("FILE|-");
  cmd->footer(R"(Symmetric files are expanded: nnz counts both triangles, as the products use them.

Examples:
  spx info cage11.mtx.gz
  spx info ../shared/matrices/*.mtx.gz --json stats.json
  spx info stencil27:n=64 rmat:scale=16 --json -)");
  cmd->callback([options] { run_info(*options); });
}

}  // namespace spx::cli
