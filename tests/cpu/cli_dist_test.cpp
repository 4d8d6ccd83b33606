// End-to-end tests of `spx dist`: the per-rank table, the JSON (halo bytes, imbalance, the check),
// and refused requests as one "spx: error:" line.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cpu/cli_fixture.hpp"

namespace {

namespace fs = std::filesystem;

using spx::test::CliRun;
using spx::test::read_file;

class CliDist : public spx::test::CliFixture {
 protected:
  CliDist() { env_ = "OMP_NUM_THREADS=2 "; }
};

TEST_F(CliDist, TableAndJson) {
  const fs::path json_path = dir_ / "dist.json";
  const CliRun r = spx("dist stencil27:n=10 --ranks 3 --precision f32 --json '" + json_path.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("on 3 ranks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("halo per SpMV"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equal within the bound"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(json_path));
  EXPECT_EQ(j["schema"], "spx-dist-1");
  const auto& run = j["runs"][0];
  EXPECT_EQ(run["ranks"], 3);
  EXPECT_EQ(run["nnz"], 28 * 28 * 28);
  EXPECT_EQ(run["per_rank"].size(), 3u);
  EXPECT_EQ(run["halo_bytes_f64"].get<int64_t>(), 8 * run["halo_entries"].get<int64_t>());
  EXPECT_GT(run["halo_entries"].get<int64_t>(), 0);
  EXPECT_LT(run["nnz_imbalance"].get<double>(), 1.01);
  EXPECT_TRUE(run["check"]["passed"].get<bool>());
}

TEST_F(CliDist, OneRankHasNoHalo) {
  const CliRun r = spx("dist random:rows=301,cols=177,len=5 --ranks 1 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs"][0]["halo_entries"], 0);
  EXPECT_EQ(j["runs"][0]["messages"], 0);
}

// --partition auto prints every candidate's halo and renumbers only where the products repay it.
TEST_F(CliDist, AutoPartitionReportsEveryCandidate) {
  const std::string mesh = "dist stencil2d:n=600,shuffle=3 --ranks 4 --partition auto --json -";
  CliRun r = spx(mesh + " --products 1");
  ASSERT_EQ(r.status, 0) << r.err;
  auto run = nlohmann::json::parse(r.out)["runs"][0];
  EXPECT_EQ(run["partition"], "rows");  // one product repays nothing
  EXPECT_EQ(run["partition_asked"], "auto");
  EXPECT_NE(run["partition_report"].get<std::string>().find("rcm not tried"), std::string::npos);
  r = spx(mesh + " --products 1e4");  // RCM's blocks repay themselves
  ASSERT_EQ(r.status, 0) << r.err;
  run = nlohmann::json::parse(r.out)["runs"][0];
  EXPECT_NE(run["partition"], "rows") << run["partition_report"];
  EXPECT_LT(run["halo_entries"].get<int64_t>() * 2, run["row_blocks_halo_entries"].get<int64_t>());
  EXPECT_TRUE(run["check"]["passed"].get<bool>());
}

TEST_F(CliDist, RefusedRequests) {
  CliRun r = spx("dist stencil27:n=3 --ranks 28");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("spx: error: partition: 28 ranks for 27 rows"), std::string::npos) << r.err;
  r = spx("dist stencil27:n=3 --ranks 0");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("0 ranks: give at least 1"), std::string::npos) << r.err;
  r = spx("dist stencil27:n=3 --precision f16");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--precision f16"), std::string::npos) << r.err;
}

// The multi-GPU commands refuse what cannot run before touching a GPU (none is needed here).
TEST_F(CliDist, GpusOptionsRefusedClearly) {
  CliRun r = spx("bench --gpus 0 stencil27:n=5");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("spx: error: --gpus 0: this machine has"), std::string::npos) << r.err;
  r = spx("bench --gpus 1 --ops gemm:64 stencil27:n=5");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--gpus"), std::string::npos) << r.err;
  r = spx("cg stencil27:n=5 --gpus 1 --backend cpu");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--gpus runs on GPUs; drop --backend cpu"), std::string::npos) << r.err;
  r = spx("cg stencil27:n=5 --gpus 1 --operator csr");  // the ranks' kernel, not an operator
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--operator (the ranks' kernel): unknown kernel 'csr'"), std::string::npos) << r.err;
  r = spx("cg stencil27:n=5 --gpus 1 --operator spmm_csr_row");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("is a"), std::string::npos) << r.err;
  r = spx("cg stencil27:n=5 --gpus 0");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--gpus 0: this machine has"), std::string::npos) << r.err;
}

}  // namespace
