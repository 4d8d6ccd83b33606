// `spx spmv --index` and `spx spmm --index` without a GPU: the width is decided before anything
// loads; what picks another kernel, format, layout, residency or the CPU is refused at 64 bits in
// one line naming the option; --index 32 on a matrix past 2^31 - 1 nonzeros names --index 64; auto
// and 32 on small matrices run the benchmark engine as before. The 64-bit runs themselves are GPU
// tests (tests/gpu/cli_wide_product_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "cpu/cli_fixture.hpp"

namespace {

using spx::test::CliRun;

// 1e12 nonzeros: past 32 bits, and past any host's memory (nothing may be generated).
const std::string kHuge = "dense:rows=1000000,cols=1000000";

class CliProductIndex : public spx::test::CliFixture {
 protected:
  CliProductIndex() { env_ = "OMP_NUM_THREADS=2 "; }
};

TEST_F(CliProductIndex, SixtyFourBitsRefuseWhatIsNotThePlannedProductOnTheGpu) {
  const std::string spmv = "spmv stencil2d:n=8 --index 64 ";
  expect_error(spmv + "--kernel omp_csr", "--kernel runs with 32-bit indices; --index 64 runs the planned");
  expect_error(spmv + "--format ell", "drop --format");
  expect_error(spmv + "--backend cpu", "drop --backend cpu");
  const std::string spmm = "spmm stencil2d:n=8 --cols 4 --index 64 ";
  expect_error(spmm + "--kernel csr", "drop --kernel csr");
  expect_error(spmm + "--host-resident", "drop --host-resident");
  expect_error(spmm + "--layout col", "drop --layout col");
  expect_error(spmm + "--csr-config G=4", "drop --csr-config");
  expect_error(spmm + "--streams 2", "--streams only applies with --host-resident");
}

// Under auto, a matrix past 2^31 - 1 nonzeros takes the 64-bit path: the same refusals, saying why.
TEST_F(CliProductIndex, AutoPastThirtyTwoBitsTakesTheSixtyFourBitPath) {
  expect_error("spmv " + kHuge + " --backend cpu", "this matrix needs 64-bit ones (past 2^31 - 1 nonzeros)");
  expect_error("spmm " + kHuge + " --cols 2 --kernel ellr", "drop --kernel ellr");
}

TEST_F(CliProductIndex, ThirtyTwoBitsPastTheirRangeNameSixtyFour) {
  expect_error("spmv " + kHuge + " --index 32", "use `spx spmv --index 64` (or auto)");
  expect_error("spmm " + kHuge + " --cols 2 --index 32", "use `spx spmm --index 64` (or auto)");
  // A file's header past 32 bits: the reader's refusal names the commands that read it wide.
  std::ofstream(path("tall.mtx"))
      << "%%MatrixMarket matrix coordinate real general\n3000000000 3000000000 0\n";
  expect_error("spmv " + path("tall.mtx") + " --index 32 --backend cpu", "`spx spmv --index 64`");
}

TEST_F(CliProductIndex, BadWidthIsAUsageError) {
  for (const char* cmd : {"spmv stencil2d:n=8", "spmm stencil2d:n=8 --cols 2"}) {
    const CliRun r = spx(std::string(cmd) + " --index 16");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("--index"), std::string::npos) << r.err;
  }
}

// auto and 32 on a matrix that fits: the benchmark engine's run, unchanged.
TEST_F(CliProductIndex, SmallMatricesRunAsBefore) {
  for (const char* index : {"", " --index auto", " --index 32"}) {
    SCOPED_TRACE(index);
    const CliRun r = spx(std::string("spmv stencil2d:n=8 --backend cpu --repeat 2") + index);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("omp_csr"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check      ok, matches spx::ref"), std::string::npos) << r.out;
  }
}

// Without a GPU, --index 64 stops with one line saying so (with one, it runs: the GPU test).
TEST_F(CliProductIndex, SixtyFourBitsNeedAGpu) {
  const CliRun r = spx("spmv stencil2d:n=8 --index 64 --repeat 2");
  if (r.status == 0) GTEST_SKIP() << "a GPU is present: tests/gpu/cli_wide_product_test.cpp covers the run";
  EXPECT_EQ(r.err.rfind("spx: error: at 64-bit indices, spx spmv runs the planned product on the GPU", 0), 0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
