// The benchmark engine's contract with kernel entries, on a registry of made-up CPU entries: the
// layout filter, parameters for an entry's own run and its variants ("name#1", with the JSON's
// `override`), parameters refused before anything of the problem runs, and a wrong kernel caught by
// the check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "bench/engine.hpp"
#include "bench/inputs.hpp"
#include "bench/registry.hpp"
#include "bench/report.hpp"
#include "spx/cpu.hpp"
#include "spx/error.hpp"

namespace spx::test {
namespace {

using namespace spx::bench;

// C = scale * A * B with spx::ref, B and C column-major: right only for scale 1.
class ScaledSpmm final : public Instance {
 public:
  ScaledSpmm(const Problem& p, double scale)
      : A_(*p.f64.A), B_(*p.f64.B), C_(p.rows, p.cols_dense, Layout::ColMajor), scale_(scale) {}
  void run() override { ref::spmm(A_, B_, C_, scale_, 0.0); }
  void poison_output() override { std::fill(C_.data.begin(), C_.data.end(), std::nan("")); }
  OutputView output() override { return OutputView(C_); }
  Params params() const override {
    return {{"scale", scale_}, {"b_layout", B_.layout == Layout::RowMajor ? "row" : "col"}};
  }

 private:
  const Csr<double, int32_t>& A_;
  const Dense<double>& B_;
  Dense<double> C_;
  double scale_;
};

KernelEntry scaled_entry(const std::string& name, Layout layout, bool takes_params) {
  KernelEntry e;
  e.name = name;
  e.backend = "cpu";
  e.op = OpKind::Spmm;
  e.f32 = false;
  e.layout = layout;
  if (takes_params) {
    e.check_params = [](const Problem& p, const Params& params) -> std::string {
      EXPECT_EQ(p.f64.B, nullptr);  // asked before the inputs exist
      for (const Param& given : params) {
        if (given.key != "scale") return "only 'scale'";
        if (param_number(params, "scale") <= 0) return "scale must be positive";
      }
      return {};
    };
  }
  e.prepare = [](const Problem& p) -> std::unique_ptr<Instance> {
    return std::make_unique<ScaledSpmm>(p, param_number(p.params, "scale", 1.0));
  };
  return e;
}

Registry test_registry() {
  Registry r;
  BackendEntry cpu;
  cpu.name = "cpu";
  cpu.describe = [] {
    model::DeviceBasics d;
    d.name = "test CPU";
    d.sm_count = 1;
    d.l2_bytes = 0;
    d.copy_gbs = 1.0;
    return d;
  };
  r.add_backend(cpu);
  r.add(scaled_entry("scaled_row", Layout::RowMajor, true));
  r.add(scaled_entry("scaled_col", Layout::ColMajor, false));
  return r;
}

BenchOptions spmm_options() {
  BenchOptions o;
  o.matrices = resolve_matrices({"stencil2d:n=9"});
  o.ops = parse_ops("spmm:3");
  o.timing.fixed_runs = 1;
  return o;
}

// The device object is the backend's model::DeviceBasics: the CPU writes only what it measures.
TEST(BenchEngine, CpuDeviceObjectHoldsTheMeasuredFieldsOnly) {
  BenchOptions o = spmm_options();
  o.backend = "cpu";
  const BenchReport report = run_bench(o, test_registry());
  const auto device = to_json(report)["device"];
  EXPECT_EQ(device["name"], "test CPU");
  EXPECT_EQ(device["sm_count"], 1);
  EXPECT_EQ(device["kind"], "cpu");
  EXPECT_FALSE(device.contains("l2_gbs"));
  EXPECT_FALSE(device.contains("threads_per_sm"));
}

TEST(BenchEngine, LayoutsSelectSpmmEntries) {
  const Registry registry = test_registry();
  BenchOptions o = spmm_options();
  EXPECT_EQ(select_kernels(registry, o, OpKind::Spmm, Precision::F64).size(), 2u);
  o.layouts = {Layout::ColMajor};
  const auto selected = select_kernels(registry, o, OpKind::Spmm, Precision::F64);
  ASSERT_EQ(selected.size(), 1u);
  EXPECT_EQ(selected[0]->name, "scaled_col");
}

TEST(BenchEngine, ParamsAndVariantsAreRunsOfTheirEntry) {
  const Registry registry = test_registry();
  BenchOptions o = spmm_options();
  o.layouts = {Layout::RowMajor};
  o.params = {{"scaled_row", "--own scale=1", {{"scale", 1.0}}}};
  o.variants = {{"scaled_row", "--scale 2", {{"scale", 2.0}}}, {"scaled_row", "--again", {}}};
  const BenchReport report = run_bench(o, registry);
  ASSERT_EQ(report.results.size(), 3u);
  EXPECT_EQ(report.results[0].kernel, "scaled_row");
  EXPECT_EQ(report.results[0].override, "--own scale=1");
  EXPECT_TRUE(report.results[0].checked);
  EXPECT_EQ(param_text(report.results[0].params, "b_layout"), "row");  // B made in the one layout asked
  // The variant's parameter replaces the entry's: a wrong product, caught by the check.
  EXPECT_EQ(report.results[1].kernel, "scaled_row#1");
  EXPECT_EQ(report.results[1].override, "--own scale=1 --scale 2");
  EXPECT_EQ(param_number(report.results[1].params, "scale"), 2.0);
  EXPECT_FALSE(report.results[1].checked);
  EXPECT_GT(report.results[1].check_ratio, 1.0);
  // A variant without parameters of its own runs the entry's.
  EXPECT_EQ(report.results[2].kernel, "scaled_row#2");
  EXPECT_TRUE(report.results[2].checked);
  EXPECT_EQ(report.failed_checks, 1);
}

TEST(BenchEngine, RefusedParamsFailTheProblemBeforeAnythingRuns) {
  const Registry registry = test_registry();
  BenchOptions o = spmm_options();
  o.variants = {{"scaled_row", "--scale 3", {{"scale", 3.0}}},
                {"scaled_row", "--scale -1", {{"scale", -1.0}}}};
  const BenchReport report = run_bench(o, registry);
  EXPECT_TRUE(report.results.empty());
  EXPECT_EQ(report.failed_checks, 1);
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes[0].find("scaled_row#2: FAILED: --scale -1: scale must be positive"),
            std::string::npos)
      << report.notes[0];
}

TEST(BenchEngine, ParamsForAKernelThatTakesNoneAreAnOptionError) {
  const Registry registry = test_registry();
  BenchOptions o = spmm_options();
  o.params = {{"scaled_col", "--x", {{"scale", 1.0}}}};
  EXPECT_THROW(validate_options(registry, o), Error);
  o.params = {{"scaled_row", "--a", {}}, {"scaled_row", "--b", {}}};
  EXPECT_THROW(validate_options(registry, o), Error);
}

}  // namespace
}  // namespace spx::test
