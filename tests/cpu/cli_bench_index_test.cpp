// `spx bench --index` without a GPU: the engine reads each matrix at the width asked; at 64 bits
// only the entries with a 64-bit path run (on the CPU omp_csr and ref_csr, checked as always), the
// others are skipped with the planner's reason; the JSON records the width; --index 32 past 2^31 - 1
// nonzeros names --index 64; the distributed products refuse --index 64. The spx_auto entries at 64
// bits are a GPU test (tests/gpu/cli_bench_index_test.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cpu/cli_fixture.hpp"

namespace {

using spx::test::CliRun;
using spx::test::read_file;

// 1e12 nonzeros: past 32 bits, and past any host's memory (nothing may be generated).
const std::string kHuge = "dense:rows=1000000,cols=1000000";

class CliBenchIndex : public spx::test::CliFixture {
 protected:
  CliBenchIndex() { env_ = "OMP_NUM_THREADS=2 "; }

  nlohmann::json bench(const std::string& args) {
    const CliRun r =
        spx("bench stencil2d:n=8 --backend cpu --repeat 2 -q --json " + path("b.json") + " " + args);
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    out_ = r.out;
    return nlohmann::json::parse(read_file(path("b.json")));
  }
  std::string out_;
};

TEST_F(CliBenchIndex, SixtyFourBitsRunTheCsrKernelsAndSkipTheOthersSayingWhy) {
  const nlohmann::json j = bench("--index 64 --ops spmv,spmm:3 --precision f32,f64");
  EXPECT_NE(out_.find("(64 x 64, 288 nonzeros, 64-bit indices;"), std::string::npos) << out_;
  int csr = 0;
  for (const auto& r : j["results"]) {
    EXPECT_EQ(r["offset_bits"], 64) << r.dump();
    EXPECT_TRUE(r["checked"].get<bool>()) << r.dump();
    const std::string kernel = r["kernel"];
    EXPECT_TRUE(kernel == "omp_csr" || kernel == "ref_csr") << kernel;
    ++csr;
  }
  EXPECT_EQ(csr, 8);  // {omp,ref}_csr x {spmv, spmm} x {f32, f64}
  ASSERT_EQ(j["matrices"].size(), 1u);
  EXPECT_EQ(j["matrices"][0]["offset_bits"], 64);
  bool ell_skipped = false;
  for (const auto& note : j["notes"]) {
    const std::string n = note;
    if (n.find("ref_ell: skipped: runs with 32-bit row offsets only; this matrix has 64-bit ones (") !=
        std::string::npos)
      ell_skipped = true;
  }
  EXPECT_TRUE(ell_skipped) << j["notes"].dump();
}

TEST_F(CliBenchIndex, AutoAndThirtyTwoOnASmallMatrixRunEveryKernelAtThirtyTwoBits) {
  for (const char* index : {"", "--index auto", "--index 32"}) {
    SCOPED_TRACE(index);
    const nlohmann::json j = bench(index);
    EXPECT_EQ(j["matrices"][0]["offset_bits"], 32);
    bool ell = false;
    for (const auto& r : j["results"]) {
      EXPECT_EQ(r["offset_bits"], 32);
      ell = ell || r["kernel"] == "ref_ell";
    }
    EXPECT_TRUE(ell) << j["results"].dump();
  }
}

TEST_F(CliBenchIndex, ThirtyTwoBitsPastTheirRangeNameSixtyFour) {
  const CliRun r = spx("bench " + kHuge + " --backend cpu -q --index 32");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("use `spx bench --index 64` (or auto)"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("1 matrix input(s) could not be loaded"), std::string::npos) << r.err;
}

// Under auto the huge spec is read wide: its memory refusal counts 8-byte indices (16 bytes a
// nonzero of the f64 matrix, where 32-bit ones make 11176.0 GiB), before anything is generated.
TEST_F(CliBenchIndex, AutoPastThirtyTwoBitsCountsTheWideMatrixBeforeLoading) {
  const CliRun r = spx("bench " + kHuge + " --backend cpu -q");
  EXPECT_NE(r.out.find("skipped: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(the matrix 14901.2 GiB"), std::string::npos) << r.out;
}

TEST_F(CliBenchIndex, DistributedProductsRefuseSixtyFourBits) {
  expect_error("bench stencil2d:n=8 --index 64 --gpus 1", "--index 64: --gpus runs with 32-bit indices");
  expect_error("bench stencil2d:n=8 --index 64 --dist", "--index 64: --dist runs with 32-bit indices");
}

TEST_F(CliBenchIndex, BadWidthIsAUsageError) {
  const CliRun r = spx("bench stencil2d:n=8 --index 16");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--index"), std::string::npos) << r.err;
}

}  // namespace
