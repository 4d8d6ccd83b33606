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

// Guo & Wang generate their benchmark matrices with uniform rows, varying the number of strips
// (rows) and the nonzeros per row. Hopper adds the x gather (scattered against banded columns),
// the L2 (working sets from a few MB to several hundred), irregular rows and long rows.
const std::vector<SuiteMatrix>& calibration_suite() {
  // Half of them small (L2-resident, launch- and latency-bound: most real matrices of a solver's
  // inner loops are), half DRAM-bound; nothing above ~35M nonzeros, so one GPU calibrates in about
  // two minutes.
  static const std::vector<SuiteMatrix> suite = {
      {"cal_random_1k_4", "random:rows=1024,len=4,seed=101", 4'096, "uniform rows of 4, scattered, 1K rows"},
      {"cal_random_4k_8", "random:rows=4096,len=8,seed=101", 32'768, "uniform rows of 8, scattered, 4K rows"},
      {"cal_random_16k_16", "random:rows=16384,len=16,seed=119", 262'144, "uniform rows of 16, scattered"},
      {"cal_random_64k_8", "random:rows=65536,len=8,seed=102", 524'288, "uniform rows of 8, scattered"},
      {"cal_random_256k_32", "random:rows=262144,len=32,seed=103", 8'388'608,
       "uniform rows of 32, scattered"},
      {"cal_random_1m_4", "random:rows=1048576,len=4,seed=104", 4'194'304, "uniform rows of 4, scattered"},
      {"cal_random_1m_16", "random:rows=1048576,len=16,seed=105", 16'777'216,
       "uniform rows of 16, scattered"},
      {"cal_random_4m_8", "random:rows=4194304,len=8,seed=107", 33'554'432,
       "uniform rows of 8, scattered, 4M rows"},
      {"cal_random_wide_x", "random:rows=524288,cols=8388608,len=8,seed=108", 4'194'304,
       "uniform rows of 8 over 8M columns: x (64 MB in f64) outside the L2"},
      {"cal_banded_4k_2", "banded:n=4096,bw=2,density=1,seed=120", 20'474, "band of 5, dense, 4K rows"},
      {"cal_banded_16k_4", "banded:n=16384,bw=4,density=1,seed=109", 147'436, "band of 9, dense"},
      {"cal_banded_64k_8", "banded:n=65536,bw=8,density=0.5,seed=121", 589'078, "band of 17, half full"},
      {"cal_banded_128k_16", "banded:n=131072,bw=16,density=0.5,seed=110", 2'228'692,
       "band of 33, half full"},
      {"cal_banded_1m_4", "banded:n=1048576,bw=4,density=1,seed=111", 9'437'164, "band of 9, dense, 1M rows"},
      {"cal_banded_2m_16", "banded:n=2097152,bw=16,density=0.5,seed=112", 35'650'534,
       "band of 33, half full"},
      {"cal_powerlaw_8k", "powerlaw:n=8192,avg=4,exp=2,seed=122", 33'697, "Zipf rows, mean 4"},
      {"cal_powerlaw_32k", "powerlaw:n=32768,avg=8,exp=2,seed=114", 267'657, "Zipf rows, mean 8"},
      {"cal_powerlaw_256k", "powerlaw:n=262144,avg=16,exp=2.5,seed=115", 4'171'327, "Zipf rows, mean 16"},
      {"cal_powerlaw_2m", "powerlaw:n=2097152,avg=8,exp=2,seed=116", 17'096'306,
       "Zipf rows, mean 8, 2M rows"},
      {"cal_longrows_32k", "longrows:rows=32768,cols=32768,long=1,len=8192,empty=0.2,short=6,seed=123",
       165'476, "a row of 8K among rows of 6"},
      {"cal_longrows_128k", "longrows:rows=131072,cols=131072,long=2,len=32768,empty=0.3,short=8,seed=117",
       799'528, "2 rows of 32K among short ones, 30% empty"},
      {"cal_longrows_1m", "longrows:rows=1048576,cols=1048576,long=4,len=262144,empty=0.5,short=4,seed=118",
       3'145'720, "4 rows of 256K, half the rows empty"},
      // Uniform long rows (a thread-per-row kernel's serial walk) and mildly spread graph-like rows
      // (ELLR-T still runs: padding ~10), added after the first fits never saw either.
      {"cal_random_2k_1024", "random:rows=2048,len=1024,seed=131", 2'097'152,
       "uniform rows of 1024, 2K rows"},
      {"cal_random_16k_256", "random:rows=16384,len=256,seed=132", 4'194'304, "uniform rows of 256"},
      {"cal_spread_16k", "longrows:rows=16384,cols=16384,long=64,len=60,empty=0,short=5,seed=133", 85'440,
       "64 rows of 60 among rows of 5 (ELL padding 11)"},
      {"cal_spread_64k", "longrows:rows=65536,cols=65536,long=256,len=40,empty=0.1,short=6,seed=134", 362'752,
       "256 rows of 40 among rows of 6, 10% empty (ELL padding 7)"},
  };
  return suite;
}

// The planner's validation set: structures and seeds no rule, model or threshold was fitted on
// (none of them in the standard, calibration or validation suites: rectangular stencils, FEM rows of
// 12 and 50, skewed R-MAT, power laws of exponent 2.2 and 2.5, rows of 3 and of 48 over a 4M-wide
// x, a narrow band, 8x8 tiles, 40 long rows among rows of 6, a tall dense block, two launch-bound
// matrices), seed 11 throughout.
const std::vector<SuiteMatrix>& planner_suite() {
  static const std::vector<SuiteMatrix> suite = {
      {"pv_stencil2d_3000x700", "stencil2d:nx=3000,ny=700,seed=11", 10'492'600,
       "2D 5-point, 3000 x 700 grid"},
      {"pv_stencil27_96x80x60", "stencil27:nx=96,ny=80,nz=60,seed=11", 12'116'104, "3D 27-point, 96x80x60"},
      {"pv_fem_30k_50", "fem:rows=30000,len=50,seed=11", 1'468'314, "FEM-like rows of ~50, L2-resident"},
      {"pv_fem_400k_12", "fem:rows=400000,len=12,seed=11", 4'784'140, "FEM-like rows of ~12"},
      {"pv_rmat_18_skew", "rmat:scale=18,ef=12,a=0.45,b=0.25,c=0.15,seed=11", 3'142'273,
       "R-MAT 256K, skewed"},
      {"pv_rmat_12", "rmat:scale=12,ef=20,seed=11", 64'937, "R-MAT 4K vertices (launch-bound)"},
      {"pv_powerlaw_2m_22", "powerlaw:n=2000000,avg=12,exp=2.2,seed=11", 23'657'552,
       "Zipf rows, exponent 2.2"},
      {"pv_powerlaw_60k_25", "powerlaw:n=60000,avg=20,exp=2.5,seed=11", 1'204'303, "Zipf rows, exponent 2.5"},
      {"pv_random_3m_3", "random:rows=3000000,len=3,seed=11", 9'000'000, "uniform rows of 3"},
      {"pv_random_wide_48", "random:rows=200000,cols=4000000,len=48,seed=11", 9'600'000,
       "rows of 48 over a 4M-wide x"},
      {"pv_banded_3m_3", "banded:n=3000000,bw=3,density=0.9,seed=11", 19'197'474, "band of 7, 90% full"},
      {"pv_blockdense_8", "blockdense:n=131072,block=8,per_row=6,seed=11", 6'291'456, "dense 8x8 tiles"},
      {"pv_longrows_40", "longrows:rows=500000,cols=500000,long=40,len=20000,empty=0.05,short=6,seed=11",
       3'649'772, "40 rows of 20000 among rows of 6"},
      {"pv_dense_30k_96", "dense:rows=30000,cols=96,seed=11", 2'880'000, "tall dense 30000 x 96"},
      {"pv_random_5k_7", "random:rows=5000,len=7,seed=11", 35'000, "uniform rows of 7 (launch-bound)"},
      {"pv_stencil7_24", "stencil7:n=24,seed=11", 93'312, "3D 7-point, 24^3 (launch-bound)"},
  };
  return suite;
}

// Never fitted on: other generators, and other seeds of the calibration's generators.
const std::vector<SuiteMatrix>& validation_suite() {
  static const std::vector<SuiteMatrix> suite = {
      {"val_stencil2d_2k", "stencil2d:n=2048", 20'963'328, "2D 5-point, 2048^2 grid"},
      {"val_stencil7_128", "stencil7:n=128", 14'581'760, "3D 7-point, 128^3 grid"},
      {"val_stencil27_64", "stencil27:n=64", 6'859'000, "3D 27-point, 64^3 grid"},
      {"val_stencil27_128", "stencil27:n=128", 55'742'968, "3D 27-point, 128^3 grid"},
      {"val_fem_200k_27", "fem:rows=200000,len=27,seed=7", 5'369'758, "FEM-like rows of ~27"},
      {"val_fem_1m_80", "fem:rows=1000000,len=80,seed=7", 79'240'300, "FEM-like rows of ~80"},
      {"val_rmat_16", "rmat:scale=16,ef=8,seed=7", 494'382, "R-MAT, 65K vertices"},
      {"val_rmat_20", "rmat:scale=20,ef=16,seed=7", 16'084'958, "R-MAT, 1M vertices"},
      {"val_blockdense_64k", "blockdense:n=65536,block=16,per_row=4,seed=7", 4'194'304, "dense 16x16 tiles"},
      {"val_blockdense_256k", "blockdense:n=262144,block=32,per_row=4,seed=7", 33'554'432,
       "dense 32x32 tiles"},
      {"val_dense_2048", "dense:rows=2048,cols=2048,seed=7", 4'194'304, "dense 2048x2048 as CSR"},
      {"val_powerlaw_1m", "powerlaw:n=1000000,avg=6,exp=1.8,seed=7", 6'111'599, "Zipf rows, exponent 1.8"},
      {"val_random_512k_24", "random:rows=524288,len=24,seed=7", 12'582'912, "uniform rows of 24"},
      {"val_banded_500k_64", "banded:n=500000,bw=64,density=0.3,seed=7", 19'695'584, "band of 129, 30% full"},
      {"val_longrows_2m", "longrows:rows=2000000,cols=2000000,long=3,len=500000,empty=0.2,short=10,seed=7",
       17'499'980, "3 rows of 500K among rows of 10"},
  };
  return suite;
}

// The SpMV formats' validation set (docs/spmv-formats-study): large matrices (>= 4M nonzeros) of
// both regimes -- streaming-bound (FEM with 2-6 unknowns per node, stencils in spatial order) and
// gather-bound (randomly numbered meshes and bands, graphs, power-law rows, a wide rectangle) --
// with seed 3 throughout; no format threshold, rule or model term was fitted on any of them.
const std::vector<SuiteMatrix>& formats_suite() {
  static const std::vector<SuiteMatrix> suite = {
      {"fmt_blockfem3_48", "blockfem:n=48,b=3,seed=3", 26'873'856, "3D FEM, 3 unknowns per node, 48^3 nodes"},
      {"fmt_blockfem2_800", "blockfem:nx=800,ny=800,nz=1,b=2,seed=3", 22'963'216,
       "2D FEM, 2 unknowns per node, 800^2 nodes"},
      {"fmt_blockfem4_400", "blockfem:nx=400,ny=400,nz=1,b=4,seed=3", 22'924'816,
       "2D FEM, 4 unknowns per node, 400^2 nodes"},
      {"fmt_blockfem6_24", "blockfem:n=24,b=6,seed=3", 12'759'696, "3D FEM, 6 unknowns per node, 24^3 nodes"},
      {"fmt_stencil27_100", "stencil27:n=100,seed=3", 26'463'592, "3D 27-point, 100^3, spatial order"},
      {"fmt_stencil7_160", "stencil7:n=160,seed=3", 28'518'400, "3D 7-point, 160^3, spatial order"},
      {"fmt_stencil2d_shuffled", "stencil2d:n=1500,shuffle=3", 11'244'000, "2D 5-point, randomly numbered"},
      {"fmt_stencil27_shuffled", "stencil27:n=80,shuffle=3", 13'481'272, "3D 27-point, randomly numbered"},
      {"fmt_banded_shuffled", "banded:n=2000000,bw=4,density=0.8,seed=3,shuffle=3", 14'400'000,
       "band of 9, 80% full, randomly numbered"},
      {"fmt_rmat_21", "rmat:scale=21,ef=8,seed=3", 16'000'000, "R-MAT graph, 2M vertices"},
      {"fmt_powerlaw_3m", "powerlaw:n=3000000,avg=5,exp=2.1,seed=3", 15'000'000, "Zipf rows, exponent 2.1"},
      {"fmt_random_wide", "random:rows=400000,cols=8000000,len=16,seed=3", 6'400'000,
       "rows of 16 over an 8M-wide x"},
  };
  return suite;
}

std::vector<std::string> suite_names() {
  return {"small", "standard", "shared", "calibration", "validation", "planner", "formats"};
}

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
  if (name == "calibration") return generated(calibration_suite());
  if (name == "validation") return generated(validation_suite());
  if (name == "planner") return generated(planner_suite());
  if (name == "formats") return generated(formats_suite());
  if (name == "shared") {
    const std::string folder = shared_matrices_folder();
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec)) {
      throw Error(fmt::format("suite shared: folder {} not found (set SPX_SHARED_MATRICES)", folder));
    }
    return matrices_in_folder(folder);
  }
  throw Error(fmt::format(
      "unknown suite '{}' (use small, standard, shared, calibration, validation, planner or formats)", name));
}

}  // namespace spx::bench
