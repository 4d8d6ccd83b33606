// Where matrices come from: Matrix Market files, folders of them, and generator specs
// ("stencil27:n=64"). Every spx command takes either, so a benchmark needs no files on disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spx/generate.hpp"
#include "spx/io.hpp"
#include "spx/matrix.hpp"

namespace spx::bench {

struct MatrixSource {
  enum class Kind { File, Spec };
  Kind kind = Kind::File;
  std::string name;         // display name: file name without .mtx[.gz], the suite name, or the spec
  std::string location;     // the path (File) or the generator spec (Spec)
  int64_t approx_nnz = -1;  // known before loading (suite table, file header); -1 when unknown
  std::string description;  // what the matrix stands for (suite entries), may be empty
};

// True when `text` names a generator: "KIND" or "KIND:key=value,…" with KIND in gen::generators().
bool is_generator_spec(const std::string& text);

// One matrix: an existing file, else a generator spec. Throws spx::Error for anything else
// ("X: no such file, and not a generator spec (kinds: …)"), or for a folder.
MatrixSource resolve_matrix(const std::string& arg);

// Files, folders (every *.mtx and *.mtx.gz directly in it, sorted by name) and specs.
std::vector<MatrixSource> resolve_matrices(const std::vector<std::string>& args);

// Every *.mtx / *.mtx.gz directly in `folder`, sorted by name; approx_nnz from the headers.
std::vector<MatrixSource> matrices_in_folder(const std::string& folder);

// Reads or generates the matrix (canonical Csr; symmetric files expanded).
template <class T, class I>
Csr<T, I> load_matrix(const MatrixSource& source) {
  if (source.kind == MatrixSource::Kind::Spec) return gen::generate<T, I>(source.location);
  return read_matrix_market<T, I>(source.location);
}

}  // namespace spx::bench
