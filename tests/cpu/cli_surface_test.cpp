// The CLI's surface as a newcomer meets it: "-" as stdout for matrices, each command's help with its
// own examples, one reading of --profile for every command, plan show's header agreeing with its
// table, warnings for options that do not apply, and docs/cli.md listing the binary's choices.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cpu/cli_fixture.hpp"
#include "spx/cuda/device.hpp"

namespace {

namespace fs = std::filesystem;

using spx::test::CliRun;
using spx::test::read_file;

class CliSurface : public spx::test::CliFixture {
 protected:
  // The text after `prefix` up to the end of its line.
  static std::string rest_of_line(const std::string& text, const std::string& prefix) {
    const auto at = text.find(prefix);
    if (at == std::string::npos) return {};
    const auto begin = at + prefix.size();
    return text.substr(begin, text.find('\n', begin) - begin);
  }
  static std::vector<std::string> split(const std::string& text, const std::string& separators) {
    std::vector<std::string> out;
    std::string word;
    for (char c : text + separators.front()) {
      if (separators.find(c) != std::string::npos) {
        if (!word.empty()) out.push_back(word);
        word.clear();
      } else {
        word += c;
      }
    }
    return out;
  }
};

// "-" is stdout for the matrix, as "--json -" is for JSON: no file named "-", the report on stderr.
TEST_F(CliSurface, ConvertAndGenWriteMatrixMarketToStdoutForDash) {
  env_ = "cd '" + dir_.string() + "' && ";
  for (const std::string args : {"convert stencil2d:n=3 -", "gen stencil2d:n=3 -o -"}) {
    SCOPED_TRACE(args);
    const CliRun r = spx(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("%%MatrixMarket matrix coordinate real general\n", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("\n9 9 33\n"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("wrote stdout: 9 x 9, 33 nonzeros"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "-"));
  }
}

// Each command's help ends with its own examples; the top-level examples stay in `spx --help`.
TEST_F(CliSurface, CommandHelpShowsItsOwnExamplesOnly) {
  const CliRun top = spx("--help");
  ASSERT_EQ(top.status, 0);
  const std::string top_footer = "Run 'spx COMMAND --help' for a command's options.";
  EXPECT_NE(top.out.find(top_footer), std::string::npos) << top.out;
  for (const std::string command : {"info", "gen", "convert", "spmv", "bench", "tune", "spmm", "gemm", "cg",
                                    "dist", "model", "model predict", "model calibrate", "model validate",
                                    "model fit", "plan", "plan show", "plan kernels", "plan validate"}) {
    SCOPED_TRACE(command);
    const CliRun r = spx(command + " --help");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find(top_footer), std::string::npos) << r.out;
    const std::string word = command.substr(0, command.find(' '));
    std::istringstream lines(r.out);
    int examples = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("  spx ", 0) != 0) continue;
      ++examples;
      EXPECT_EQ(line.rfind("  spx " + word + " ", 0), 0u) << "another command's example: " << line;
    }
    EXPECT_GT(examples, 0) << r.out;
  }
}

// --profile takes the same names everywhere: a file, a device name, or its short name.
TEST_F(CliSurface, PlanAndModelAcceptTheSameProfileNames) {
  for (const std::string profile : {"h100", "h200", "'NVIDIA H200'"}) {
    SCOPED_TRACE(profile);
    CliRun r = spx("plan show stencil2d:n=16 --profile " + profile);
    EXPECT_EQ(r.status, 0) << r.err;
    r = spx("model predict stencil2d:n=16 --ops spmv --no-measure --profile " + profile);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("csr_param f64"), std::string::npos) << r.out;
  }
  expect_error("model predict stencil2d:n=8 --profile z9", "committed: h100, h200");
  expect_error("plan show stencil2d:n=8 --profile z9", "committed: h100, h200");
  expect_error("model predict stencil2d:n=8 --profile missing.json", "missing.json");
}

// Without a GPU and without --profile, model predict predicts for the H100 (as plan show plans for
// it) and says so in a note naming --profile.
TEST_F(CliSurface, ModelPredictWithoutAGpuUsesTheDefaultProfileWithANote) {
  if (spx::cuda::device_count() > 0) GTEST_SKIP() << "a GPU is here: predict uses its own profile";
  const CliRun r = spx("model predict stencil2d:n=16 --ops spmv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("note: no GPU here: predicting for the NVIDIA H100 80GB HBM3 profile (--profile"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("csr_param f64"), std::string::npos) << r.out;
}

// The header's setup is the chosen candidate's (nothing is built without a GPU), as its table row;
// its planning time the host's.
TEST_F(CliSurface, PlanShowHeaderSetupIsTheChosenCandidates) {
  const CliRun r = spx("plan show stencil27:n=16 --mode rule");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string header = rest_of_line(r.out, "setup of the chosen ");
  ASSERT_FALSE(header.empty()) << r.out;
  std::istringstream lines(r.out);
  std::string chosen;
  for (std::string line; std::getline(lines, line);)
    if (line.find("<- chosen") != std::string::npos) chosen = line;
  const std::vector<std::string> cells = split(chosen, " ");
  ASSERT_GE(cells.size(), 5u) << r.out;  // candidate, owner, predicted, measured, setup, ...
  EXPECT_GT(std::stod(cells[4]), 0.0) << "a candidate with setup, so the test can tell: " << chosen;
  EXPECT_NEAR(std::stod(header), std::stod(cells[4]), 0.051) << r.out;
  // Its planning time is what planning took here (host inputs included), not a zero.
  const std::string planning = rest_of_line(r.out, "planning ");
  ASSERT_FALSE(planning.empty()) << r.out;
  EXPECT_GT(std::stod(planning), 0.0) << r.out;
  EXPECT_NE(planning.find("host inputs"), std::string::npos) << r.out;
}

// plan show fills the formats' host-side inputs as the front door does (plan::fill_host_extras):
// a constant-coefficient stencil is a SELL-C16-dict and BSR candidate offline too, not refused for
// want of the distinct values or the block counts.
TEST_F(CliSurface, PlanShowSeesTheFormatsTheFrontDoorSees) {
  const CliRun r = spx("plan show stencil27:n=16 --mode model --expected-calls 100000");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("needs the count of distinct values"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("BSR needs the matrix's block counts"), std::string::npos) << r.out;
  const std::string dict = rest_of_line(r.out, "sell_c16_dict ");
  ASSERT_FALSE(dict.empty()) << r.out;
  EXPECT_EQ(dict.find("not eligible"), std::string::npos) << dict;
}

// spx spmv: the planned product's --plan/--expected-calls are named in a warning when the product
// is not planned (the CPU, or --kernel/--format).
TEST_F(CliSurface, SpmvWarnsAboutPlanOptionsWithoutThePlannedProduct) {
  const CliRun r = spx("spmv stencil2d:n=8 --backend cpu --repeat 1 --plan measure --expected-calls 10");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(
      r.err,
      "spx: warning: --plan, --expected-calls do not apply without the planned product (GPU, no --kernel "
      "or --format): ignored\n");
}

// The halo's chunk count belongs to the distributed products; bad counts name the option.
TEST_F(CliSurface, BenchHaloChunksOnlyWithTheDistributedProducts) {
  const CliRun r = spx("bench stencil2d:n=8 --backend cpu --kernels ref_csr --min-time 0 --halo-chunks 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("--halo-chunks does not apply without --gpus or --dist --backend cuda: ignored"),
            std::string::npos)
      << r.err;
  const CliRun bad = spx("bench stencil2d:n=8 --gpus 2 --halo-chunks 2,x");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--halo-chunks"), std::string::npos) << bad.err;
}

// docs/cli.md lists what the binary accepts: cg's operators and bench's suites.
TEST_F(CliSurface, DocsListTheBinarysOperatorsAndSuites) {
  const std::string doc = read_file(fs::path(SPX_TEST_DATA).parent_path().parent_path() / "docs/cli.md");
  ASSERT_FALSE(doc.empty());
  // cg: the operators its error message offers, each in the --operator row of the table.
  const CliRun cg = spx("cg stencil2d:n=4 --backend cpu --operator bogus");
  const std::string offered = rest_of_line(cg.err, "choose ");
  const std::vector<std::string> operators =
      split(offered.substr(0, offered.find(" or ")) + "," + offered.substr(offered.find(" or ") + 4), ", ");
  ASSERT_GE(operators.size(), 5u) << cg.err;
  const std::string row = rest_of_line(doc, "| `--operator` |");
  ASSERT_FALSE(row.empty());
  for (const std::string& op : operators) EXPECT_NE(row.find("`" + op + "`"), std::string::npos) << op;
  // bench: the suites of its help, and the synopsis's --suite list, the same set.
  const CliRun help = spx("bench --help");
  std::string suites = rest_of_line(help.out, "Named matrix set: ");
  suites = suites.substr(0, suites.find(" (repeatable)"));
  std::vector<std::string> binary = split(suites, ", ");
  std::vector<std::string> documented =
      split(rest_of_line(doc, "[--suite ").substr(0, rest_of_line(doc, "[--suite ").find(']')), "|");
  std::sort(binary.begin(), binary.end());
  std::sort(documented.begin(), documented.end());
  EXPECT_GE(binary.size(), 7u) << help.out;
  EXPECT_EQ(binary, documented);
}

}  // namespace
