// `spx cg --index auto|32|64` on the CPU backend: the 64-bit path solves as the 32-bit one does (the
// CPU kernels are templated on the index type), the report and the JSON say the width, and what
// runs on 32-bit indices only is refused in one line naming the option.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cpu/cli_fixture.hpp"

namespace {

using spx::test::CliRun;
using spx::test::read_file;

class CliCgIndex : public spx::test::CliFixture {
 protected:
  CliCgIndex() { env_ = "OMP_NUM_THREADS=2 "; }
  nlohmann::json solve(const std::string& args, const std::string& name) {
    const CliRun r = spx("cg " + args + " --backend cpu --json " + path(name));
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(read_file(path(name)));
  }
};

TEST_F(CliCgIndex, SixtyFourBitIndicesSolveAsThirtyTwoDo) {
  for (const char* precond : {"none", "jacobi"}) {
    SCOPED_TRACE(precond);
    const std::string args = std::string("stencil2d:n=16 --tol 1e-10 --precond ") + precond;
    const auto narrow = solve(args, "narrow.json")["runs"][0];
    const auto wide = solve(args + " --index 64", "wide.json")["runs"][0];
    EXPECT_EQ(narrow["index"], 32);
    EXPECT_EQ(wide["index"], 64);
    EXPECT_EQ(wide["result"]["status"], "converged");
    EXPECT_EQ(wide["result"]["iterations"], narrow["result"]["iterations"]);
    EXPECT_LT(wide["true_relative_residual"].get<double>(), 1e-9);
  }
  // fem2d: builds 32-bit; --index 64 widens it.
  EXPECT_EQ(solve("fem2d:n=6,p=1 --index 64", "fem.json")["runs"][0]["index"], 64);
}

TEST_F(CliCgIndex, ReportSaysTheWidth) {
  const CliRun r = spx("cg stencil2d:n=8 --backend cpu --index 64");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("64-bit indices"), std::string::npos) << r.out;
  EXPECT_NE(spx("cg stencil2d:n=8 --backend cpu").out.find("32-bit indices"), std::string::npos);
}

TEST_F(CliCgIndex, RefusesWhatRunsOnThirtyTwoBitsOnly) {
  expect_error("cg stencil2d:n=8 --backend cpu --index 64 --reorder rcm",
               "--reorder runs with 32-bit indices only (--index 64)");
  expect_error("cg fem2d:n=6,p=1 --backend cpu --index 64 --operator lma",
               "--operator lma_atomic runs with 32-bit");
  expect_error("cg stencil2d:n=8 --index 64 --gpus 1", "--index 64");
  const CliRun bad = spx("cg stencil2d:n=8 --backend cpu --index 128");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--index"), std::string::npos) << bad.err;
}

// A spec past 32 bits (1e12 nonzeros, past any host's memory): --index 32 is refused naming the options that
// build it wide; auto goes on to 64-bit indices, where the generator's memory check is what stops it.
TEST_F(CliCgIndex, AutoTakesSixtyFourBitsWhereTheGeneratorNeedsThem) {
  expect_error("cg dense:rows=1000000,cols=1000000 --backend cpu --index 32", "spx cg --index 64");
  expect_error("cg dense:rows=1000000,cols=1000000 --backend cpu --index auto", "of host memory");
  expect_error("cg dense:rows=1000000,cols=1000000 --backend cpu --index 64", "of host memory");
}

// --index 32 on a matrix past 32 bits: the reader's refusal names the option that reads it.
TEST_F(CliCgIndex, ThirtyTwoBitRefusalNamesTheOption) {
  std::ofstream(path("tall.mtx"))
      << "%%MatrixMarket matrix coordinate real general\n3000000000 3000000000 0\n";
  expect_error("cg " + path("tall.mtx") + " --backend cpu --index 32", "spx cg --index 64");
}

}  // namespace
