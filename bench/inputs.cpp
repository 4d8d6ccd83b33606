#include "bench/inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "spx/error.hpp"

namespace spx::bench {

namespace fs = std::filesystem;

namespace {

bool has_suffix(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_matrix_market_name(const std::string& name) {
  return has_suffix(name, ".mtx") || has_suffix(name, ".mtx.gz");
}

std::string display_name(const fs::path& path) {
  std::string name = path.filename().string();
  for (std::string_view suffix : {".mtx.gz", ".mtx"}) {
    if (has_suffix(name, suffix)) return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

std::string generator_kinds() {
  std::string kinds;
  for (const auto& g : gen::generators()) kinds += (kinds.empty() ? "" : ", ") + g.kind;
  return kinds;
}

MatrixSource file_source(const fs::path& path) {
  MatrixSource s;
  s.kind = MatrixSource::Kind::File;
  s.name = display_name(path);
  s.location = path.string();
  return s;
}

}  // namespace

bool is_generator_spec(const std::string& text) {
  const std::string kind = text.substr(0, text.find(':'));
  const auto& all = gen::generators();
  return std::any_of(all.begin(), all.end(), [&](const gen::GeneratorInfo& g) { return g.kind == kind; });
}

MatrixSource resolve_matrix(const std::string& arg) {
  std::error_code ec;
  if (fs::is_directory(arg, ec)) {
    throw Error(fmt::format("{}: is a folder (give a Matrix Market file or a generator spec)", arg));
  }
  if (fs::exists(arg, ec)) return file_source(arg);
  if (is_generator_spec(arg)) {
    MatrixSource s;
    s.kind = MatrixSource::Kind::Spec;
    s.name = arg;
    s.location = arg;
    return s;
  }
  if (arg.find(':') != std::string::npos) {
    throw Error(
        fmt::format("{}: no such file, and '{}' is not a generator kind (kinds: {}; see spx gen --list)", arg,
                    arg.substr(0, arg.find(':')), generator_kinds()));
  }
  throw Error(fmt::format("{}: no such file (nor a generator spec such as stencil27:n=64)", arg));
}

std::vector<MatrixSource> matrices_in_folder(const std::string& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw Error(fmt::format("{}: no such folder", folder));
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.is_regular_file(ec) && is_matrix_market_name(entry.path().filename().string())) {
      paths.push_back(entry.path());
    }
  }
  if (ec) throw Error(fmt::format("{}: cannot list folder: {}", folder, ec.message()));
  std::sort(paths.begin(), paths.end());
  std::vector<MatrixSource> out;
  for (const auto& p : paths) {
    MatrixSource s = file_source(p);
    try {
      // Symmetric files expand to up to twice their entries; the header is enough to skip a big
      // file under --max-nnz without reading it.
      MatrixMarketHeader h = read_matrix_market_header(s.location);
      s.approx_nnz = h.symmetry == MatrixMarketHeader::Symmetry::General ? h.entries : 2 * h.entries;
    } catch (const std::exception&) {
      // a malformed header is reported when the file is loaded
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<MatrixSource> resolve_matrices(const std::vector<std::string>& args) {
  std::vector<MatrixSource> out;
  for (const auto& arg : args) {
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      auto folder = matrices_in_folder(arg);
      if (folder.empty()) throw Error(fmt::format("{}: no .mtx or .mtx.gz files in this folder", arg));
      out.insert(out.end(), folder.begin(), folder.end());
    } else {
      out.push_back(resolve_matrix(arg));
    }
  }
  return out;
}

}  // namespace spx::bench
