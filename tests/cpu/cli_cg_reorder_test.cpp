// `spx cg --reorder` on the CPU backend: the solve in RCM's numbering gives the unreordered
// solution back in the caller's numbering, and the report says it was reordered and the setup time.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "cpu/cli_fixture.hpp"

namespace {

using spx::test::CliRun;
using spx::test::read_file;

class CliCgReorder : public spx::test::CliFixture {
 protected:
  CliCgReorder() { env_ = "OMP_NUM_THREADS=2 "; }
  nlohmann::json run(const std::string& reorder, const std::string& input) {
    const std::string json = path("cg_" + reorder + ".json");
    const CliRun r = spx("cg " + input + " --backend cpu --precond jacobi --tol 1e-10 --reorder " + reorder +
                         " --json " + json);
    EXPECT_EQ(r.status, 0) << r.err;
    if (reorder != "none") {
      EXPECT_NE(r.out.find("reorder     "), std::string::npos) << r.out;
    }
    return nlohmann::json::parse(read_file(json))["runs"][0];
  }
};

TEST_F(CliCgReorder, RcmSolvesTheSameSystemOnAShuffledMesh) {
  const std::string input = "stencil2d:n=40,shuffle=5";
  const auto plain = run("none", input), rcm = run("rcm", input), automatic = run("auto", input);
  EXPECT_FALSE(plain["reordered"].get<bool>());
  EXPECT_TRUE(rcm["reordered"].get<bool>());
  EXPECT_TRUE(automatic["reordered"].get<bool>());  // a shuffled mesh gathers x poorly
  EXPECT_GE(rcm["reorder_seconds"].get<double>(), 0.0);
  EXPECT_EQ(rcm["result"]["status"], "converged");
  // The same Krylov iteration in another numbering: the same count, the true residual (against the
  // original A and b, with x unpermuted) as small.
  EXPECT_NEAR(rcm["result"]["iterations"].get<double>(), plain["result"]["iterations"].get<double>(), 2);
  EXPECT_LT(rcm["true_relative_residual"].get<double>(), 1e-9);
  // A mesh in its own numbering is left alone by auto.
  EXPECT_FALSE(run("auto", "stencil2d:n=40")["reordered"].get<bool>());
}

// --operator all on the CPU backend runs the CPU's operators (CSR, and LMA where the input is a FEM
// spec), not every GPU operator name: it used to stop at "ell" with an error.
TEST_F(CliCgReorder, OperatorAllOnTheCpuRunsTheCpuOperators) {
  const CliRun mesh = spx("cg stencil2d:n=12 --backend cpu --operator all --tol 1e-8");
  EXPECT_EQ(mesh.status, 0) << mesh.err;
  EXPECT_NE(mesh.out.find("csr"), std::string::npos) << mesh.out;
  EXPECT_EQ(mesh.out.find("ell"), std::string::npos) << mesh.out;
  const CliRun fem = spx("cg fem2d:n=6 --backend cpu --operator all --tol 1e-8");
  EXPECT_EQ(fem.status, 0) << fem.err;
  EXPECT_NE(fem.out.find("lma"), std::string::npos) << fem.out;
  const CliRun ell = spx("cg stencil2d:n=12 --backend cpu --operator ell");
  EXPECT_NE(ell.status, 0);
  EXPECT_NE(ell.err.find("not ell"), std::string::npos) << ell.err;
}

TEST_F(CliCgReorder, LmaOperatorsAndSeveralGpusRefuseIt) {
  const CliRun lma = spx("cg fem2d:n=6 --backend cpu --operator lma --reorder rcm");
  EXPECT_NE(lma.status, 0);
  EXPECT_NE(lma.err.find("--reorder none"), std::string::npos) << lma.err;
  const CliRun bad = spx("cg stencil2d:n=6 --backend cpu --reorder sideways");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("reorder"), std::string::npos) << bad.err;
}

}  // namespace
