// The CLI tests' fixture (cli_test.cpp, cli_cg_test.cpp, cli_dist_test.cpp): a scratch folder per
// test and `spx ARGS` run through the shell with stdout and stderr captured. Skips when the tests
// were built without the spx tool (SPX_TOOLS=OFF).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace spx::test {

struct CliRun {
  int status = -1;  // exit status; 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef SPX_CLI_PATH
    GTEST_SKIP() << "built without the spx tool (SPX_TOOLS=OFF)";
#else
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() / ("spx_cli_" + std::string(info->test_suite_name()) + "_" +
                                                     std::to_string(getpid()) + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
#endif
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // `spx ARGS` fails with one line, "spx: error: ...", holding `words`.
  void expect_error(const std::string& args, const std::string& words) {
    SCOPED_TRACE("spx " + args);
    const CliRun r = spx(args);
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.err.rfind("spx: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  }

  // Runs `spx ARGS` (after env_, e.g. "OMP_NUM_THREADS=2 ") through the shell.
  CliRun spx(const std::string& args) {
    CliRun r;
#ifdef SPX_CLI_PATH
    const std::filesystem::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string command = env_ + "'" + SPX_CLI_PATH + "' " + args + " >'" + out.string() + "' 2>'" +
                                err.string() + "' </dev/null";
    const int raw = std::system(command.c_str());
    if (raw != -1 && WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
    if (raw != -1 && WIFSIGNALED(raw)) r.status = 128 + WTERMSIG(raw);
    r.out = read_file(out);
    r.err = read_file(err);
#else
    (void)args;
#endif
    return r;
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string env_;
  std::filesystem::path dir_;
};

}  // namespace spx::test
