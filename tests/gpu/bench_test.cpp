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
      {"longrows:rows=3001,cols=2999,long=2,len=2500,empty=0.4,short=5", "stencil27:n=13"});
  o.ops = bench::parse_ops("spmv,spmm:3,gemm:67");
  o.precisions = {bench::Precision::F32, bench::Precision::F64};
  o.timing.fixed_runs = 3;
  const bench::BenchReport report = bench::run_bench(o, registry);

  EXPECT_EQ(report.failed_checks, 0) << notes_of(report);
  EXPECT_EQ(report.device.kind, "cuda");
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
    // Working sets of a few MB fit in L2: every kernel was also timed cold.
    EXPECT_TRUE(r.cold.has_value());
    // Speedups are over the best vendor kernel of the same problem.
    ASSERT_FALSE(r.baseline.empty());
    const bench::KernelEntry* baseline = registry.kernel(r.baseline, r.op);
    ASSERT_NE(baseline, nullptr);
    EXPECT_TRUE(baseline->vendor);
  }
  // Every CUDA kernel ran in every precision it supports, on every matrix of its op, except SELL
  // on the long-row matrix, whose padding the entry refuses (a note, not a failure).
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

}  // namespace
}  // namespace spx::test
