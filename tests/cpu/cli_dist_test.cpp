// End-to-end tests of `spx dist`: the per-rank table, the JSON (halo bytes, imbalance, the check),
// and refused requests as one "spx: error:" line.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct DistRun {
  int status = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class CliDist : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef SPX_CLI_PATH
    GTEST_SKIP() << "built without the spx tool (SPX_TOOLS=OFF)";
#else
    dir_ = fs::temp_directory_path() / ("spx_cli_dist_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
#endif
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  DistRun spx(const std::string& args) {
    DistRun r;
#ifdef SPX_CLI_PATH
    const fs::path out = dir_ / "out.txt", err = dir_ / "err.txt";
    const std::string cmd = std::string("OMP_NUM_THREADS=2 '") + SPX_CLI_PATH + "' " + args + " >'" +
                            out.string() + "' 2>'" + err.string() + "' </dev/null";
    const int raw = std::system(cmd.c_str());
    if (raw != -1 && WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
    r.out = slurp(out);
    r.err = slurp(err);
#else
    (void)args;
#endif
    return r;
  }
  fs::path dir_;
};

TEST_F(CliDist, TableAndJson) {
  const fs::path json_path = dir_ / "dist.json";
  const DistRun r = spx("dist stencil27:n=10 --ranks 3 --precision f32 --json '" + json_path.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("on 3 ranks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("halo per SpMV"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equal within the bound"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(json_path));
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
  const DistRun r = spx("dist random:rows=301,cols=177,len=5 --ranks 1 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs"][0]["halo_entries"], 0);
  EXPECT_EQ(j["runs"][0]["messages"], 0);
}

TEST_F(CliDist, RefusedRequests) {
  DistRun r = spx("dist stencil27:n=3 --ranks 28");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("spx: error: partition: 28 ranks for 27 rows"), std::string::npos) << r.err;
  r = spx("dist stencil27:n=3 --ranks 0");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("0 ranks: give at least 1"), std::string::npos) << r.err;
  r = spx("dist stencil27:n=3 --precision f16");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--precision f16"), std::string::npos) << r.err;
}

}  // namespace
