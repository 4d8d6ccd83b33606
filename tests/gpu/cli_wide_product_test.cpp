// `spx spmv --index 64` and `spx spmm --index 64` on a GPU: the planned product at 64-bit row
// offsets on a matrix read with 64-bit indices, its sampled rows checked against spx::ref; the
// output and the JSON say the width. Runs the spx binary (skips without a GPU or the tool).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cpu/cli_fixture.hpp"
#include "gpu/gpu_test_support.hpp"

namespace {

using spx::test::CliRun;
using spx::test::read_file;

class CliWideProduct : public spx::test::CliFixture {
 protected:
  void SetUp() override {
    SPX_REQUIRE_GPU();
    CliFixture::SetUp();
  }
  void expect_wide_and_checked(const std::string& args) {
    SCOPED_TRACE("spx " + args);
    const CliRun r = spx(args);
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("64-bit row offsets"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("read with 64-bit indices"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check      ok, matches spx::ref"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("sampled rows (first, last, 2048 random)"), std::string::npos)
        << r.out;  // 8000 rows
  }
};

TEST_F(CliWideProduct, SpmvAtSixtyFourBitsIsChecked) {
  expect_wide_and_checked("spmv stencil27:n=20 --index 64 --repeat 5");
  expect_wide_and_checked("spmv stencil27:n=20 --index 64 --repeat 5 --precision f32");
  expect_wide_and_checked("spmv stencil27:n=20 --index 64 --repeat 5 --plan measure --explain");
}

TEST_F(CliWideProduct, SpmmAtSixtyFourBitsIsChecked) {
  expect_wide_and_checked("spmm stencil27:n=20 --cols 8 --index 64 --repeat 5");
  expect_wide_and_checked("spmm stencil27:n=20 --cols 8 --index 64 --repeat 5 --precision f32");
}

TEST_F(CliWideProduct, JsonSaysTheWidth) {
  const CliRun r = spx("spmv stencil27:n=20 --index 64 --repeat 3 --json " + path("wide.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(path("wide.json")));
  EXPECT_EQ(j["schema"], "spx-wide-product-1");
  EXPECT_EQ(j["matrix"]["offset_bits"], 64);
  EXPECT_EQ(j["matrix"]["nnz"], 58 * 58 * 58);  // (3n - 2)^3
  EXPECT_EQ(j["check"]["passed"], true);
  EXPECT_EQ(j["timing"]["runs"], 3);
  // Small matrices under auto still run the benchmark engine (its JSON).
  const CliRun narrow = spx("spmv stencil27:n=20 --repeat 3 --json " + path("narrow.json"));
  ASSERT_EQ(narrow.status, 0) << narrow.err;
  EXPECT_NE(nlohmann::json::parse(read_file(path("narrow.json"))).value("schema", ""), "spx-wide-product-1");
}

}  // namespace
