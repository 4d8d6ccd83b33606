#include "bench/suites.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "spx/error.hpp"

#ifndef SPX_DEFAULT_SHARED_MATRICES
#define SPX_DEFAULT_SHARED_MATRICES "../shared/matrices"
#endif

namespace spx::bench {

const std::vector<SuiteMatrix>& small_suite() {
  static const std::vector<SuiteMatrix> suite = {
      {"stencil2d_160", "stencil2d:n=160", 127'360,
       "2D 5-point Laplacian, 160^2 grid: the most regular case"},
      {"stencil27_40", "stencil27:n=40", 1'643'032, "3D 27-point stencil, 40^3 grid: regular, 27 per row"},
      {"fem_rows30", "fem:rows=40000,len=30", 1'189'636,
       "FEM-like, ~30 per row in dense blocks near the diagonal"},
      {"powerlaw", "powerlaw:n=200000,avg=6,exp=2.1", 1'182'761, "Zipf row lengths, random columns"},
      {"rmat_16", "rmat:scale=16,ef=8", 494'453, "R-MAT graph, 65536 vertices: skewed and scattered"},
      {"longrows", "longrows:rows=200000,cols=200000,long=4,len=100000,empty=0.5,short=4", 799'992,
       "4 rows of 10^5 nonzeros, half the other rows empty, the rest 4 long"},
      {"banded", "banded:n=100000,bw=12,density=0.6", 1'538'414, "random banded, half bandwidth 12"},
      {"blockdense", "blockdense:n=32768,block=16,per_row=3", 1'572'864,
       "dense 16x16 tiles, 3 per block row"},
  };
  return suite;
}

const std::vector<SuiteMatrix>& standard_suite() {
  static const std::vector<SuiteMatrix> suite = {
      {"stencil27_128", "stencil27:n=128", 55'742'968, "3D 27-point stencil, 128^3 grid (2.1M rows)"},
      {"stencil7_256", "stencil7:n=256", 117'047'296, "3D 7-point Laplacian, 256^3 grid (16.8M rows)"},
      {"fem_rows30", "fem:rows=1000000,len=30", 29'913'088, "FEM-like, 1M rows of ~30 (P2-like elements)"},
      {"fem_rows80", "fem:rows=1000000,len=80", 79'242'820, "FEM-like, 1M rows of ~80 (P4-like elements)"},
      {"powerlaw_4m", "powerlaw:n=4000000,avg=8,exp=2.1", 31'656'362,
       "Zipf row lengths, 4M rows, random columns"},
      {"rmat_22", "rmat:scale=22,ef=16", 65'245'974, "R-MAT graph, 4.2M vertices, edge factor 16"},
      {"longrows_10m", "longrows:rows=10000000,cols=10000000,long=8,len=1000000,empty=0.6,short=6",
       31'999'982, "8 rows of 10^6 nonzeros, 60% empty rows, the rest 6 long"},
      {"blockdense_32", "blockdense:n=262144,block=32,per_row=4", 33'554'432,
       "dense 32x32 tiles, 4 per block row"},
      {"banded_4m", "banded:n=4000000,bw=16,density=0.6", 80'806'404,
       "random banded, 4M rows, half bandwidth 16"},
      // Not "dense_4096": that is the name of `gemm:4096`'s operands in the same report.
      {"dense_csr_4096", "dense:rows=4096,cols=4096", 16'777'216, "a dense 4096x4096 matrix stored as CSR"},
  };
  return suite;
}

std::vector<std::string> suite_names() { return {"small", "standard", "shared"}; }

std::string shared_matrices_folder() {
  if (const char* env = std::getenv("SPX_SHARED_MATRICES"); env != nullptr && *env != '\0') return env;
  return SPX_DEFAULT_SHARED_MATRICES;
}

std::vector<MatrixSource> suite_sources(std::string_view name) {
  auto generated = [](const std::vector<SuiteMatrix>& suite) {
    std::vector<MatrixSource> out;
    for (const auto& m : suite) {
      MatrixSource s;
      s.kind = MatrixSource::Kind::Spec;
      s.name = m.name;
      s.location = m.spec;
      s.approx_nnz = m.approx_nnz;
      s.description = m.what;
      out.push_back(std::move(s));
    }
    return out;
  };
  if (name == "small") return generated(small_suite());
  if (name == "standard") return generated(standard_suite());
  if (name == "shared") {
    const std::string folder = shared_matrices_folder();
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec)) {
      throw Error(fmt::format("suite shared: folder {} not found (set SPX_SHARED_MATRICES)", folder));
    }
    return matrices_in_folder(folder);
  }
  throw Error(fmt::format("unknown suite '{}' (use small, standard or shared)", name));
}

}  // namespace spx::bench
