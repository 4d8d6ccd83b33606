// `spx bench --index 64` on a GPU: the spx_auto entries plan at 64-bit row offsets on the matrix the
// engine read with 64-bit indices (params offset_bits 64, checked against spx::ref on every row);
// the catalogue entries without a 64-bit path are skipped with the planner's reason, and
// rcm_sell_c16 (timed through the front door) with the planner's own refusal. Runs the spx binary
// (skips without a GPU or the tool).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cpu/cli_fixture.hpp"
#include "gpu/gpu_test_support.hpp"

namespace {

using spx::test::CliRun;
using spx::test::read_file;

class CliBenchIndexGpu : public spx::test::CliFixture {
 protected:
  void SetUp() override {
    SPX_REQUIRE_GPU();
    CliFixture::SetUp();
  }
};

TEST_F(CliBenchIndexGpu, SixtyFourBitsRunTheFrontDoorAndSkipTheRest) {
  const CliRun r =
      spx("bench stencil27:n=20 --backend cuda --index 64 --ops spmv,spmm:8 --precision f32,f64 "
          "--repeat 3 -q --json " +
          path("b.json"));
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(read_file(path("b.json")));
  int front_door = 0;
  for (const auto& e : j["results"]) {
    EXPECT_EQ(e["offset_bits"], 64) << e.dump();
    EXPECT_TRUE(e["checked"].get<bool>()) << e.dump();
    const std::string kernel = e["kernel"];
    EXPECT_EQ(kernel.rfind("spx_auto", 0), 0u) << kernel;
    for (const auto& p : e["params"].items())
      if (p.key() == "offset_bits") EXPECT_EQ(p.value(), 64) << kernel;
    ++front_door;
  }
  EXPECT_GE(front_door, 4);  // spx_auto (and spx_auto_col) on spmv and spmm:8, f32 and f64
  int skipped = 0;
  bool rcm = false;
  for (const auto& note : j["notes"]) {
    const std::string n = note;
    if (n.find("runs with 32-bit row offsets only; this matrix has 64-bit ones") == std::string::npos)
      continue;
    ++skipped;
    rcm = rcm || n.find("rcm_sell_c16: skipped: rcm_sell_c16 is not eligible") != std::string::npos;
  }
  EXPECT_TRUE(rcm) << j["notes"].dump();
  EXPECT_GT(skipped, 8) << j["notes"].dump();  // the catalogue's kernels and cuSPARSE's entries
}

TEST_F(CliBenchIndexGpu, AutoOnASmallMatrixStaysAtThirtyTwoBits) {
  const CliRun r =
      spx("bench stencil27:n=20 --backend cuda --kernels spx_auto --repeat 3 -q --json " + path("b.json"));
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(read_file(path("b.json")));
  ASSERT_FALSE(j["results"].empty());
  for (const auto& e : j["results"]) EXPECT_EQ(e["offset_bits"], 32) << e.dump();
}

}  // namespace
