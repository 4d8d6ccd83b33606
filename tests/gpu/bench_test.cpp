// The CUDA entries of `spx bench` end to end: every registered CUDA kernel runs through the engine
// (prepare, poison, run, download, check against spx::ref, time) on small matrices with empty
// rows, a long row and odd sizes, in f32 and f64, and the results carry what the JSON promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "bench/engine.hpp"
#include "bench/inputs.hpp"
#include "bench/registry.hpp"
#include "gpu_test_support.hpp"

namespace spx::test {
namespace {

std::string notes_of(const bench::BenchReport& report) {
  std::string all;
  for (const auto& n : report.notes) all += n + "\n";
  return all;
}

TEST(GpuBench, EveryCudaKernelMatchesRefThroughTheEngine) {
  SPX_REQUIRE_GPU();
  const bench::Registry& registry = bench::default_registry();
  ASSERT_EQ(bench::resolve_backend(registry, "auto"), "cuda");

  bench::BenchOptions o;
  o.backend = "cuda";
  // Long rows among empty and short ones, a non-square shape; L = 3 makes every row-major
  // operand's leading dimension need padding to 16 bytes; N = 67 is no multiple of a tile.
  o.matrices = bench::resolve_matrices(
      {"longrows:rows=3001,cols=2999,long=2,len=2500,empty=0.4,short=5", "stencil27:n=13,shuffle=3",
       "blockfem:nx=7,ny=5,nz=3,b=3"});  // BSR's entries refuse matrices without blocks
  o.ops = bench::parse_ops("spmv,spmm:3,gemm:67");
  o.precisions = {bench::Precision::F32, bench::Precision::F64};
  o.timing.fixed_runs = 3;
  o.studies = true;  // every entry, the study ones too
  const bench::BenchReport report = bench::run_bench(o, registry);

  EXPECT_EQ(report.failed_checks, 0) << notes_of(report);
  EXPECT_EQ(report.backend, "cuda");
  EXPECT_GT(report.device.sm_count, 0);
  EXPECT_GT(report.device.l2_bytes, 0);
  EXPECT_GT(report.device.copy_gbs, 100);

  std::set<std::string> ran;
  for (const auto& r : report.results) {
    SCOPED_TRACE(r.matrix + " " + r.kernel + " " + std::string(bench::to_string(r.precision)));
    ran.insert(r.kernel + "/" + std::string(bench::to_string(r.op)) + "/" +
               std::string(bench::to_string(r.precision)));
    EXPECT_EQ(r.backend, "cuda");
    EXPECT_TRUE(r.checked);
    EXPECT_EQ(r.timing.runs, 3);
    EXPECT_GT(r.timing.median_ms, 0);
    EXPECT_FALSE(r.params.empty());
    // Working sets of a few MB fit in L2: every device-resident kernel was also timed cold. The
    // host-resident ones time the whole streamed call (PCIe included), warm only.
    EXPECT_EQ(r.cold.has_value(), r.kernel.rfind("spmm_host_", 0) != 0);
    // Speedups are over the best vendor kernel of the same problem.
    ASSERT_FALSE(r.baseline.empty());
    const bench::KernelEntry* baseline = registry.kernel(r.baseline, r.op);
    ASSERT_NE(baseline, nullptr);
    EXPECT_TRUE(baseline->vendor);
  }
  // Every CUDA kernel ran in every precision it supports, on every matrix of its op, except SELL
  // on the long-row matrix, whose padding the entry refuses, and BSR on the two without blocks
  // (notes, not failures).
  for (const auto& k : registry.kernels()) {
    if (k.backend != "cuda") continue;
    for (auto p : {bench::Precision::F32, bench::Precision::F64}) {
      if (!k.supports(p)) continue;
      EXPECT_TRUE(ran.count(k.name + "/" + std::string(bench::to_string(k.op)) + "/" +
                            std::string(bench::to_string(p))))
          << k.name << " " << bench::to_string(p) << " did not run\n"
          << notes_of(report);
    }
  }
  const auto sell_on_longrows = std::count_if(
      report.results.begin(), report.results.end(),
      [](const auto& r) { return r.kernel == "cusparse_sell_alg1" && r.matrix.rfind("longrows", 0) == 0; });
  EXPECT_EQ(sell_on_longrows, 0) << "SELL should refuse 2500-long rows among rows of 5";
}

// Host-resident streaming through the engine (spx spmm --host-resident): the options as parameters,
// --compare's FastSpMM* as a variant sized like the FastSpMM run, the Table 4 report in params.
TEST(GpuBench, HostResidentEntriesStreamThroughTheEngine) {
  SPX_REQUIRE_GPU();
  const bench::Registry& registry = bench::default_registry();
  bench::BenchOptions o;
  o.backend = "cuda";
  o.studies = true;
  o.matrices = bench::resolve_matrices({"stencil27:n=11", "longrows:rows=2001,long=2,len=1500,empty=0.3"});
  o.ops = bench::parse_ops("spmm:19");
  o.precisions = {bench::Precision::F32, bench::Precision::F64};
  o.kernels = {"spmm_host_*", "cusparse_spmm_csr_alg1_*"};
  o.timing.fixed_runs = 2;
  o.params = {
      {"spmm_host_row", "--streams 3 --chunk-cols 4", {{"streams", int64_t{3}}, {"chunk_cols", int64_t{4}}}},
      {"spmm_host_col",
       "--streams 2 --transfer registered --pinned-host",
       {{"streams", int64_t{2}}, {"transfer", "registered"}, {"pinned_host", true}}}};
  o.variants = {
      {"spmm_host_row", "--compare", {{"streams", int64_t{1}}, {"chunk_cols_as_streams", int64_t{3}}}},
      {"spmm_host_col", "--kernel set-spmvs", {{"product", "set-spmvs"}}}};
  const bench::BenchReport report = bench::run_bench(o, registry);
  EXPECT_EQ(report.failed_checks, 0) << notes_of(report);
  int host = 0;
  for (const auto& r : report.results) {
    SCOPED_TRACE(r.matrix + " " + r.kernel + " " + std::string(bench::to_string(r.precision)));
    EXPECT_TRUE(r.checked);
    if (r.kernel.rfind("spmm_host_", 0) != 0) continue;
    ++host;
    EXPECT_EQ(r.timing.runs, 2);
    EXPECT_FALSE(r.override.empty());
    EXPECT_GT(bench::param_number(r.params, "processing_ms"), 0);
    EXPECT_GT(bench::param_number(r.params, "communication_ms"), 0);
    EXPECT_GT(bench::param_number(r.params, "pcie_bound_ms"), 0);
    if (r.kernel.rfind("spmm_host_row", 0) == 0) {
      EXPECT_EQ(bench::param_number(r.params, "chunk_cols"), 4);
      EXPECT_EQ(bench::param_number(r.params, "chunks"), 5);  // 19 columns in chunks of 4
      EXPECT_EQ(bench::param_text(r.params, "mode"),
                r.kernel == "spmm_host_row" ? "fastspmm" : "fastspmm_star");
    } else {
      EXPECT_EQ(bench::param_text(r.params, "host_memory"), "pinned");
      EXPECT_EQ(bench::param_text(r.params, "transfer"), "registered");
      if (r.kernel == "spmm_host_col#1") EXPECT_EQ(bench::param_text(r.params, "product"), "set-spmvs");
    }
  }
  EXPECT_EQ(host, 2 * 2 * 4);  // 2 matrices x 2 precisions x (2 entries + 2 variants)
  // Parameters the entry refuses fail the problem before it runs.
  o.variants = {{"spmm_host_row", "--kernel set-spmvs", {{"product", "set-spmvs"}}}};
  const bench::BenchReport refused = bench::run_bench(o, registry);
  EXPECT_TRUE(refused.results.empty());
  EXPECT_GT(refused.failed_checks, 0);
}

}  // namespace
}  // namespace spx::test
