// Memory estimates (bench/footprint.hpp) with made-up sizes and "available" numbers, the shapes
// they start from against the generators themselves, and the engine skipping what cannot fit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "bench/engine.hpp"
#include "bench/footprint.hpp"
#include "bench/inputs.hpp"
#include "spx/generate.hpp"

namespace spx::test {
namespace {

using namespace spx::bench;

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(BenchFootprint, ShapesFromSpecsMatchTheGenerators) {
  struct Case {
    const char* spec;
    double low, high;  // estimate / actual nonzeros
  };
  for (const Case& c :
       {Case{"stencil2d:nx=31,ny=17", 1, 1}, Case{"stencil7:n=9", 1, 1},
        Case{"stencil27:nx=7,ny=8,nz=9", 1, 1}, Case{"fem:rows=3000,len=30", 0.9, 1.1},
        Case{"banded:n=5000,bw=12,density=0.6", 0.95, 1.05}, Case{"powerlaw:n=20000,avg=6", 0.95, 1.05},
        Case{"rmat:scale=12,ef=8", 1, 1.6}, Case{"blockdense:n=2048,block=16,per_row=3", 0.95, 1.05},
        Case{"longrows:rows=5000,cols=7000,long=2,len=3000,empty=0.4,short=5", 0.95, 1.05},
        Case{"dense:rows=40,cols=70", 1, 1}, Case{"random:n=3000,len=9", 1, 1}, Case{"fem", 0.9, 1.1},
        Case{"stencil27", 1, 1}}) {
    SCOPED_TRACE(c.spec);
    const auto shape = estimate_shape(resolve_matrix(c.spec));
    ASSERT_TRUE(shape.has_value());
    const auto A = gen::generate<double, int32_t>(c.spec);
    EXPECT_EQ(shape->rows, A.rows);
    EXPECT_EQ(shape->cols, A.cols);
    const double ratio = static_cast<double>(shape->nnz) / static_cast<double>(A.nnz());
    EXPECT_GE(ratio, c.low);
    EXPECT_LE(ratio, c.high);
  }
  // A value that is no number: no estimate (generate() reports the spec itself).
  EXPECT_FALSE(estimate_shape(resolve_matrix("stencil27:n=lots")).has_value());
}

TEST(BenchFootprint, ShapesFromFileHeadersCountSymmetricEntriesTwice) {
  const auto dir = std::filesystem::temp_directory_path() / ("spx_footprint_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "g.mtx")
        << "%%MatrixMarket matrix coordinate real general\n4 5 3\n1 1 1\n2 3 2\n4 5 3\n";
    std::ofstream(dir / "s.mtx") << "%%MatrixMarket matrix coordinate real symmetric\n4 4 2\n2 1 1\n3 3 2\n";
  }
  const auto general = estimate_shape(resolve_matrix((dir / "g.mtx").string()));
  ASSERT_TRUE(general.has_value());
  EXPECT_EQ(general->rows, 4);
  EXPECT_EQ(general->cols, 5);
  EXPECT_EQ(general->nnz, 3);
  const auto symmetric = estimate_shape(resolve_matrix((dir / "s.mtx").string()));
  ASSERT_TRUE(symmetric.has_value());
  EXPECT_EQ(symmetric->nnz, 4);
  std::filesystem::remove_all(dir);
}

KernelEntry entry(const char* name, const char* backend, Format format, Layout layout, bool host_resident) {
  KernelEntry e;
  e.name = name;
  e.backend = backend;
  e.op = OpKind::Spmm;
  e.format = format;
  e.layout = layout;
  e.host_resident = host_resident;
  return e;
}

// stencil27:n=300 --cols 512 in f64: 27M rows, 730M nonzeros, B and C of 110 GB each.
Problem big_spmm() {
  Problem p;
  p.matrix = "stencil27:n=300";
  p.op = OpKind::Spmm;
  p.precision = Precision::F64;
  p.rows = p.cols = 27'000'000;
  p.nnz = 729'000'000;
  p.cols_dense = 512;
  return p;
}

TEST(BenchFootprint, SpmmCountsBAndEachKernelsOwnArrays) {
  const Problem p = big_spmm();
  const uint64_t dense = 27'000'000ull * 512 * 8;  // B or C
  const uint64_t csr = 729'000'000ull * 12 + 27'000'001ull * 4;

  const KernelEntry cpu = entry("omp_csr", "cpu", Format::Csr, Layout::ColMajor, false);
  Footprint f = problem_footprint(p, {&cpu});
  EXPECT_EQ(f.host_bytes(), 2 * dense);  // B and C
  EXPECT_EQ(f.device_bytes(), 0u);

  const KernelEntry device = entry("spx_spmm_row", "cuda", Format::Csr, Layout::RowMajor, false);
  f = problem_footprint(p, {&device});
  // Device: A, B (row-major, 512 doubles need no padding) and C. Host: B, its row-major copy for the
  // upload and C staged back for the check.
  EXPECT_EQ(f.device_bytes(), csr + 2 * dense);
  EXPECT_EQ(f.host_bytes(), 3 * dense);

  const KernelEntry streamed = entry("spmm_host_row", "cuda", Format::Csr, Layout::RowMajor, true);
  f = problem_footprint(p, {&streamed});
  EXPECT_EQ(f.device_bytes(), csr);  // B and C stream through chunks sized to what is free
  EXPECT_EQ(f.host_bytes(), 3 * dense);

  // With B made row-major (spx spmm --layout row), neither copies B on the host.
  Problem row = p;
  row.b_layout = Layout::RowMajor;
  EXPECT_EQ(problem_footprint(row, {&streamed}).host_bytes(), 2 * dense);
  EXPECT_EQ(problem_footprint(row, {&device}).host_bytes(), 2 * dense);
  row.cols_dense = 5;  // 5 doubles: the device's row-major B pads its ld to 6, from a host copy
  EXPECT_EQ(problem_footprint(row, {&device}).host_bytes(), 27'000'000ull * (5 + 6 + 6) * 8);

  // Kernels run one at a time: two add only the larger private part; shared copies count once.
  const KernelEntry vendor =
      entry("cusparse_spmm_csr_alg2_row", "cuda", Format::Csr, Layout::RowMajor, false);
  f = problem_footprint(p, {&device, &vendor});
  EXPECT_EQ(f.device_bytes(), csr + 2 * dense);
}

TEST(BenchFootprint, RefusalsNameTheNumbers) {
  const KernelEntry device = entry("spx_spmm_row", "cuda", Format::Csr, Layout::RowMajor, false);
  const Footprint need = problem_footprint(big_spmm(), {&device});
  EXPECT_EQ(memory_refusal(need, {1024 * kGiB, 1024 * kGiB}), "");
  EXPECT_EQ(memory_refusal(need, {0, 0}), "");  // unknown: not checked

  const std::string host = memory_refusal(need, {120 * kGiB, 1024 * kGiB});
  EXPECT_EQ(host.rfind("needs about 309.0 GiB of host memory (B 103.0 GiB, ", 0), 0u) << host;
  EXPECT_NE(host.find("120.0 GiB available"), std::string::npos) << host;
  EXPECT_EQ(host.find("device"), std::string::npos) << host;

  const std::string device_too = memory_refusal(need, {1024 * kGiB, 79 * kGiB});
  EXPECT_EQ(device_too.rfind("needs about 214.2 GiB of device memory (", 0), 0u) << device_too;
  EXPECT_NE(device_too.find("79.0 GiB free on the GPU"), std::string::npos) << device_too;

  const std::string both = memory_refusal(need, {120 * kGiB, 79 * kGiB});
  EXPECT_NE(both.find("host memory"), std::string::npos);
  EXPECT_NE(both.find("; and needs about 214.2 GiB of device memory"), std::string::npos) << both;
}

TEST(BenchFootprint, GemmCommandOf60000NeedsMoreThanAnH100) {
  // spx gemm 60000 (f64): A, B and C of 28.8 GB each; the OOM killer used to end it silently.
  const Footprint f = gemm_command_footprint(60000, 60000, 60000, 0, 8, false, false);
  EXPECT_EQ(f.device_bytes(), 3ull * 60000 * 60000 * 8);
  EXPECT_EQ(f.host_bytes(), 4ull * 60000 * 60000 * 8);  // A, B, C0 and C read back
  const std::string why = memory_refusal(f, {120 * kGiB, 79 * kGiB});
  EXPECT_NE(why.find("of device memory (A 26.8 GiB, B 26.8 GiB, C 26.8 GiB)"), std::string::npos) << why;
  // Transposes add op(A)/op(B) copies for the reference, padding widens every leading dimension.
  const Footprint t = gemm_command_footprint(100, 50, 30, 2, 4, true, true);
  EXPECT_EQ(t.device_bytes(), (32ull * 100 + 52ull * 30 + 102ull * 50) * 4);
  EXPECT_EQ(t.host_bytes(), t.device_bytes() + 102ull * 50 * 4 + (100ull * 30 + 30ull * 50) * 4);
}

TEST(BenchFootprint, HostMemoryAvailableIsRead) { EXPECT_GT(host_memory_available(), 0u); }

// In the engine: a matrix none of whose kernels could fit is skipped before it is generated; a
// kernel whose own arrays cannot fit is skipped while the others run.
TEST(BenchFootprint, TheEngineSkipsWhatCannotFit) {
  Registry registry;
  registry.add_backend(*default_registry().backend("cpu"));
  registry.add(*default_registry().kernel("ref_csr", OpKind::Spmv));
  KernelEntry ell = *default_registry().kernel("ref_ell", OpKind::Spmv);
  ell.skip_reason = nullptr;  // its padding limit would skip it first
  registry.add(ell);

  BenchOptions o;
  o.timing.fixed_runs = 1;
  // 10^12 rows: far beyond any machine (and int32 indices): refused before generating.
  o.matrices = resolve_matrices({"stencil2d:n=1000000"});
  BenchReport report = run_bench(o, registry);
  EXPECT_TRUE(report.results.empty());
  EXPECT_TRUE(report.input_errors.empty());
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("stencil2d:n=1000000: skipped: spmv f64 ref_csr: needs about"),
            std::string::npos)
      << report.notes[0];

  // One row of 10^6 among 10^6 rows: ELL would pad to 10^12 slots (12 TB); CSR runs.
  o.matrices = resolve_matrices({"longrows:rows=1000000,long=1,len=1000000,empty=0.99,short=1"});
  report = run_bench(o, registry);
  ASSERT_EQ(report.results.size(), 1u);
  EXPECT_EQ(report.results[0].kernel, "ref_csr");
  EXPECT_EQ(report.failed_checks, 0);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("ref_ell: skipped: needs about"), std::string::npos) << report.notes[0];
}

}  // namespace
}  // namespace spx::test
