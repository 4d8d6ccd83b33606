// End-to-end tests of `spx cg` on the CPU backend: the summary and JSON, the right-hand side from
// a file, breakdown as a status (exit 1), an unconverged solve (exit 3), progress on a terminal,
// warnings for GPU-only options, and refused inputs as one "spx: error:" line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cpu/cli_fixture.hpp"

namespace {

namespace fs = std::filesystem;

using spx::test::CliRun;
using spx::test::read_file;

class CliCg : public spx::test::CliFixture {
 protected:
  CliCg() { env_ = "OMP_NUM_THREADS=2 "; }
  // `command` run under script(1), which gives it a terminal; out: everything the terminal showed.
  CliRun spx_in_terminal(const std::string& command, const std::string& log) {
    CliRun r;
    const std::string quoted = "OMP_NUM_THREADS=1 " + command;
    const int raw =
        std::system(("script -qec \"" + quoted + "\" '" + log + "' >/dev/null 2>&1 </dev/null").c_str());
    if (raw != -1 && WIFEXITED(raw)) r.status = WEXITSTATUS(raw);
    r.out = read_file(log);
    return r;
  }
  void expect_error(const std::string& args, const std::string& words) {
    SCOPED_TRACE("spx " + args);
    const CliRun r = spx(args);
    EXPECT_NE(r.status, 0);
    EXPECT_LT(r.status, 126);
    EXPECT_EQ(r.err.rfind("spx: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  }
};

TEST_F(CliCg, SolvesAFemProblemWithCsrAndLmaAndWritesJson) {
  const CliRun r = spx(
      "cg fem2d:n=10,p=2 --backend cpu --operator csr,lma --precond jacobi --tol 1e-10 --history --json " +
      path("cg.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("converged in"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(path("cg.json")));
  EXPECT_EQ(j["schema"], "spx-cg-1");
  for (const char* key : {"commit", "date", "device", "runs"}) EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j["runs"].size(), 2u);
  for (const auto& run : j["runs"]) {
    EXPECT_EQ(run["result"]["status"], "converged");
    EXPECT_LT(run["true_relative_residual"].get<double>(), 1e-9);
    EXPECT_EQ(run["result"]["history"].size(), run["result"]["iterations"].get<std::size_t>() + 1);
    EXPECT_EQ(run["fem"]["p"], 2);
  }
  EXPECT_EQ(j["runs"][0]["operator"], "csr");
  EXPECT_EQ(j["runs"][1]["operator"], "lma_atomic");
  EXPECT_EQ(j["runs"][0]["result"]["iterations"], j["runs"][1]["result"]["iterations"]);
}

TEST_F(CliCg, RightHandSideFromAFileAndBreakdownAsAStatus) {
  std::ofstream(path("indefinite.mtx"))
      << "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n2 2 -3\n3 3 2\n";
  std::ofstream(path("b.mtx")) << "%%MatrixMarket matrix array real general\n3 1\n1\n1\n0\n";
  const CliRun r = spx("cg " + path("indefinite.mtx") + " --backend cpu --rhs " + path("b.mtx"));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("breakdown"), std::string::npos) << r.out;
  expect_error("cg " + path("indefinite.mtx") + " --backend cpu --rhs " + path("missing.mtx"), "missing.mtx");
}

TEST_F(CliCg, RefusesWhatCgCannotSolve) {
  expect_error("cg random:n=60,len=4 --backend cpu", "symmetric");
  expect_error("cg dense:rows=3,cols=4 --backend cpu", "square");
  expect_error("cg stencil2d:n=8 --operator lma --backend cpu", "fem2d");
  expect_error("cg stencil2d:n=8 --operator bogus --backend cpu", "--operator bogus");
  expect_error("cg stencil2d:n=8 --precision f16 --backend cpu", "f16");
  expect_error("cg fem2d:p=7 --backend cpu", "p = 7");
}

// A solve stopped by the iteration cap is not an answer: exit status 3 (docs/cli.md), the summary
// and the JSON still written.
TEST_F(CliCg, UnconvergedSolveExitsThreeAndStillWritesTheJson) {
  const CliRun r = spx("cg stencil2d:n=16 --backend cpu --maxit 1 --json " + path("cg.json"));
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.out.find("iteration cap"), std::string::npos) << r.out;
  ASSERT_TRUE(fs::exists(path("cg.json")));
  const auto j = nlohmann::json::parse(read_file(path("cg.json")));
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["result"]["status"], "max_iterations");
  EXPECT_EQ(j["runs"][0]["result"]["iterations"], 1);
  // Converged: 0, the same problem.
  EXPECT_EQ(spx("cg stencil2d:n=16 --backend cpu").status, 0);
}

// Options that only the GPU solver reads are named in one warning line on the CPU; the solve runs.
TEST_F(CliCg, WarnsAboutGpuOnlyOptionsOnTheCpu) {
  CliRun r = spx("cg fem2d:n=6,p=2 --backend cpu --operator csr,lma --baseline --spmv-timing");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err,
            "spx: warning: --baseline, --spmv-timing do not apply on the CPU backend (GPU only): ignored\n");
  EXPECT_NE(r.out.find("converged in"), std::string::npos) << r.out;
  r = spx("cg stencil2d:n=8 --backend cpu --no-graph --reductions two");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("spx: warning: --reductions does not apply without --gpus"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("spx: warning: --no-graph does not apply on the CPU backend"), std::string::npos)
      << r.err;
  r = spx("cg stencil2d:n=8 --backend cpu");
  EXPECT_EQ(r.err, "");  // nothing to warn about, and a short solve adds no progress line
}

// On a terminal the CPU solve shows its iteration and residual on stderr as it runs (a long solve
// used to be silent for minutes). `script` gives the command a terminal; skipped without it.
TEST_F(CliCg, ShowsProgressOnATerminal) {
#ifdef SPX_CLI_PATH
  if (std::system("command -v script >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no script(1) to give a terminal";
  // About a second of iterations on one thread (the first line comes after a quarter second): a
  // 2-D Laplacian converges slowly; the cap, not convergence, ends it.
  const std::string cmd =
      std::string("'") + SPX_CLI_PATH + "' cg stencil2d:n=300 --backend cpu --tol 1e-14 --maxit 1500";
  const CliRun r = spx_in_terminal(cmd, path("typescript.txt"));
  EXPECT_NE(r.out.find("[cg f64 csr] iteration "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("|r|/|b|"), std::string::npos) << r.out;
#endif
}

}  // namespace
