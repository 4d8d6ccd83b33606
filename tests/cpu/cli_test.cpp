// End-to-end tests of the spx command-line tool: run the built binary as a user would and check
// its exit status, its output and its JSON; bad input must give one "spx: error:" line and a
// non-zero status, never a crash.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cpu/cli_fixture.hpp"
#include "spx/cuda/device.hpp"

namespace {

namespace fs = std::filesystem;

using spx::test::CliRun;
using spx::test::read_file;

std::vector<std::string> nonempty_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

class Cli : public spx::test::CliFixture {
 protected:
  // Failure the way users should see it: non-zero status (not a signal: the shell reports those as
  // 128 + N), and stderr exactly one line "spx: error: …".
  void expect_clean_error(const std::string& args) {
    SCOPED_TRACE("spx " + args);
    const CliRun r = spx(args);
    EXPECT_NE(r.status, 0);
    EXPECT_LT(r.status, 126) << "crashed or killed; stderr: " << r.err;
    const auto lines = nonempty_lines(r.err);
    ASSERT_EQ(lines.size(), 1u) << "stderr:\n" << r.err;
    EXPECT_EQ(lines[0].rfind("spx: error: ", 0), 0u) << lines[0];
  }

  nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(read_file(path)); }
};

void expect_bench_schema(const nlohmann::json& j) {
  ASSERT_TRUE(j.is_object());
  for (const char* key : {"device", "commit", "date", "results"}) EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"name", "sm_count", "l2_bytes", "copy_gbs"})
    EXPECT_TRUE(j["device"].contains(key)) << key;
  EXPECT_GT(j["device"]["copy_gbs"].get<double>(), 0);
  EXPECT_GT(j["device"]["sm_count"].get<int>(), 0);
  const std::string date = j["date"];
  EXPECT_EQ(date.size(), 20u) << date;  // 2025-01-31T14:05:09Z
  EXPECT_EQ(date.back(), 'Z');
  ASSERT_TRUE(j["results"].is_array());
  ASSERT_FALSE(j["results"].empty());
  for (const auto& r : j["results"]) {
    for (const char* key :
         {"matrix", "rows", "cols", "nnz", "op", "cols_dense", "precision", "kernel", "vendor", "params",
          "ms_median", "ms_min", "ms_max", "gbs", "gflops", "checked", "stats"}) {
      EXPECT_TRUE(r.contains(key)) << key << " missing in " << r.dump();
    }
    EXPECT_TRUE(r["params"].is_object());
    EXPECT_TRUE(r["vendor"].is_boolean());
    EXPECT_TRUE(r["checked"].get<bool>()) << r.dump();
    EXPECT_GT(r["ms_median"].get<double>(), 0);
    EXPECT_LE(r["ms_min"].get<double>(), r["ms_median"].get<double>());
    EXPECT_GE(r["ms_max"].get<double>(), r["ms_median"].get<double>());
    const std::string op = r["op"];
    EXPECT_TRUE(op == "spmv" || op == "spmm" || op == "gemm") << op;
    if (op == "spmm") {
      EXPECT_TRUE(r["cols_dense"].is_number_integer());
    } else {
      EXPECT_TRUE(r["cols_dense"].is_null());
    }
    const std::string precision = r["precision"];
    EXPECT_TRUE(precision == "f32" || precision == "f64") << precision;
  }
}

TEST_F(Cli, HelpAndVersion) {
  CliRun r = spx("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* word : {"info", "gen", "convert", "spmv", "bench", "Examples"}) {
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  }
  r = spx("bench --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--suite"), std::string::npos);
  r = spx("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("spx 0.1.0", 0), 0u) << r.out;
}

TEST_F(Cli, InfoOnGeneratorSpec) {
  const CliRun r = spx("info stencil2d:n=10");
  ASSERT_EQ(r.status, 0) << r.err;
  // 10 x 10 grid, 5-point: 5·100 − 4·10 boundary neighbours = 460 nonzeros.
  EXPECT_NE(r.out.find("460"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("generated from stencil2d:n=10"), std::string::npos) << r.out;
}

TEST_F(Cli, GenThenInfoRoundTrip) {
  CliRun r = spx("gen stencil7:n=6 -o " + path("a.mtx.gz"));
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(fs::exists(path("a.mtx.gz")));
  r = spx("info " + path("a.mtx.gz") + " --json " + path("file.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  r = spx("info stencil7:n=6 --json " + path("spec.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto file = read_json(path("file.json")), spec = read_json(path("spec.json"));
  ASSERT_EQ(file.size(), 1u);
  EXPECT_EQ(file[0]["nnz"], 7 * 216 - 6 * 36);
  EXPECT_EQ(file[0]["stats"]["fingerprint"], spec[0]["stats"]["fingerprint"]);
  EXPECT_EQ(file[0]["header"]["field"], "real");
  EXPECT_EQ(file[0]["gzip"], true);
  // The generator's other spelling: KIND key=value ...
  r = spx("gen stencil7 n=6 -o " + path("b.mtx"));
  ASSERT_EQ(r.status, 0) << r.err;
  r = spx("gen --list");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("stencil27"), std::string::npos);
}

TEST_F(Cli, ConvertKeepsTheMatrix) {
  ASSERT_EQ(spx("gen fem:rows=300,len=9 -o " + path("a.mtx")).status, 0);
  CliRun r = spx("convert " + path("a.mtx") + " " + path("b.mtx.gz"));
  ASSERT_EQ(r.status, 0) << r.err;
  r = spx("convert " + path("b.mtx.gz") + " " + path("c.mtx") + " --precision f32");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(spx("info " + path("a.mtx") + " " + path("b.mtx.gz") + " " + path("c.mtx") + " --json " +
                path("i.json"))
                .status,
            0);
  const auto info = read_json(path("i.json"));
  ASSERT_EQ(info.size(), 3u);
  EXPECT_EQ(info[0]["stats"]["fingerprint"], info[1]["stats"]["fingerprint"]);
  EXPECT_EQ(info[0]["stats"]["fingerprint"], info[2]["stats"]["fingerprint"]);
  EXPECT_EQ(info[1]["gzip"], true);
  EXPECT_EQ(info[2]["gzip"], false);
}

TEST_F(Cli, SpmvCpuWritesBenchJson) {
  CliRun r = spx("spmv stencil27:n=8 --backend cpu --repeat 3 --json " + path("s.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("GB/s"), std::string::npos);
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos);
  const auto j = read_json(path("s.json"));
  expect_bench_schema(j);
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["kernel"], "omp_csr");
  EXPECT_EQ(j["results"][0]["op"], "spmv");
  EXPECT_EQ(j["results"][0]["precision"], "f64");
  EXPECT_EQ(j["results"][0]["nnz"], 10648);  // 27·512 minus the stencil points outside the 8^3 grid
  // --json - : clean JSON on stdout, the human text on stderr.
  r = spx("spmv stencil27:n=8 --backend cpu --format hyb --precision f32 --repeat 2 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto piped = nlohmann::json::parse(r.out);
  EXPECT_EQ(piped["results"][0]["kernel"], "ref_hyb");
  EXPECT_EQ(piped["results"][0]["precision"], "f32");
  EXPECT_NE(r.err.find("ref_hyb"), std::string::npos);
}

// spx spmv picks its backend as spx bench does: the GPU when one is usable, else the CPU.
TEST_F(Cli, SpmvDefaultsToTheAutoBackend) {
  const CliRun r = spx("spmv stencil27:n=8 --repeat 2 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["backend"], spx::cuda::device_count() > 0 ? "cuda" : "cpu");
  EXPECT_NE(spx("spmv --help").out.find("auto"), std::string::npos);
}

// Lower bounds of numeric options are said in words, not as CLI11's 309-digit range.
TEST_F(Cli, CountOptionsSayWhatToGive) {
  for (const char* args :
       {"spmv stencil2d:n=8 --repeat 0", "spmv stencil2d:n=8 --threads 0",
        "spmm stencil2d:n=8 --cols 4 --repeat 0", "bench stencil2d:n=8 --repeat 0",
        "bench stencil2d:n=8 --threads 0", "gemm 8 --repeat 0", "tune stencil2d:n=8 --runs 0"}) {
    SCOPED_TRACE(args);
    expect_clean_error(args);
    const CliRun r = spx(args);
    EXPECT_NE(r.err.find(": give at least 1"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("1797"), std::string::npos) << r.err;
  }
  const CliRun r = spx("spmv stencil2d:n=8 --repeat 0");
  EXPECT_NE(r.err.find("--repeat: 0 runs: give at least 1 (or leave it out for adaptive timing)"),
            std::string::npos)
      << r.err;
  for (const char* args : {"gemm 8 --min-time -1", "tune stencil2d:n=8 --warmup -1"}) {
    SCOPED_TRACE(args);
    expect_clean_error(args);
    EXPECT_NE(spx(args).err.find(": give at least 0"), std::string::npos);
  }
  expect_clean_error("spmv stencil2d:n=8 --repeat lots");
}

// One number parser for every count option (2e6, 1_000_000, 300k), every option range-checked:
// --repeat 1e9 was refused while --max-nnz 2e6 was accepted; --min-time nan, cg --tol nan and
// --stagnation -1 were accepted; --threads 100000 crashed libgomp.
TEST_F(Cli, NumberOptionsAreParsedAndBoundedAlike) {
  // Accepted: the same syntax for every count (--list parses the options, then only lists).
  for (const char* args :
       {"bench --list --repeat 1e9 --max-nnz 2e6", "bench --list --repeat 1_000 --max-nnz 1_000_000",
        "bench --list --repeat 1.5e3 --max-nnz 300k --threads 1"}) {
    SCOPED_TRACE(args);
    const CliRun r = spx(args);
    EXPECT_EQ(r.status, 0) << r.err;
  }
  const CliRun run = spx("spmv stencil2d:n=8 --backend cpu --repeat 1e1 --threads 2e0 --json -");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["results"][0]["runs"], 10);
  // Refused, each with one line naming the option and the value.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"bench stencil2d:n=8 --backend cpu --threads 100000", "--threads: 100000 threads: give at most"},
      {"spmv stencil2d:n=8 --backend cpu --threads 100000", "--threads: 100000 threads: give at most"},
      {"bench stencil2d:n=8 --repeat 2.5", "--repeat: '2.5' is not a whole number of runs"},
      {"bench stencil2d:n=8 --repeat -1", "--repeat: -1 runs: give at least 1"},
      {"bench stencil2d:n=8 --repeat nan", "--repeat: 'nan' is not a count of runs"},
      {"bench stencil2d:n=8 --repeat 1e99", "--repeat: 1e99 runs: give at most 1000000000"},
      {"bench stencil2d:n=8 --repeat 10x", "--repeat: '10x' is not a count of runs"},
      {"bench stencil2d:n=8 --max-nnz 2.5", "--max-nnz: '2.5' is not a whole number of nonzeros"},
      {"bench stencil2d:n=8 --max-nnz -5", "--max-nnz: -5 nonzeros: give at least 0"},
      {"bench stencil2d:n=8 --max-nnz 99999999999999999999", "--max-nnz: 99999999999999999999 nonzeros"},
      {"bench stencil2d:n=8 --min-time nan", "--min-time: 'nan' is not a finite number of seconds"},
      {"bench stencil2d:n=8 --min-time inf", "--min-time: 'inf' is not a finite number"},
      {"cg stencil2d:n=8 --tol nan", "--tol: 'nan' is not a finite number"},
      {"cg stencil2d:n=8 --tol -1e-8", "--tol: -1e-8: give at least 0"},
      {"cg stencil2d:n=8 --atol inf", "--atol: 'inf' is not a finite number"},
      {"cg stencil2d:n=8 --stagnation -1", "--stagnation: -1 iterations: give at least 0"},
      {"cg stencil2d:n=8 --maxit 1.5", "--maxit: '1.5' is not a whole number of iterations"},
      {"gemm 8 --alpha nan", "--alpha: 'nan' is not a finite number"},
      {"gemm 8 2.5", "dims: '2.5' is not a whole number"},
      {"gemm 8 --seed -1", "--seed: -1"},
      {"dist stencil2d:n=8 --row-overhead nan", "--row-overhead: 'nan'"},
      {"spmm stencil2d:n=8 --cols 0", "--cols: 0 columns: give at least 1"},
      {"spmm stencil2d:n=8 --cols 4 --host-resident --streams 17", "--streams: 17 streams: give at most 16"},
      {"tune stencil2d:n=8 --min-time nan", "--min-time: 'nan'"},
      {"model calibrate --min-time -1", "--min-time: -1 seconds: give at least 0"},
      {"plan show stencil2d:n=8 --expected-calls 1e30", "--expected-calls: 1e30 calls: give at most"},
  };
  for (const auto& [args, message] : refused) {
    SCOPED_TRACE(args);
    expect_clean_error(args);
    const CliRun r = spx(args);
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

// spx gemm's version-3 knobs are checked before anything runs (no GPU needed to be told).
TEST_F(Cli, GemmTileAndSplitAreValidated) {
  expect_clean_error("gemm 64 --tile 16x16");
  EXPECT_NE(spx("gemm 64 --tile 16x16").err.find("unknown GEMM tile '16x16' (one of: auto, 128x128"),
            std::string::npos);
  expect_clean_error("gemm 64 --tile 32x32 --precision f32");
  EXPECT_NE(spx("gemm 64 --tile 32x32 --precision f32").err.find("f64 only"), std::string::npos);
  expect_clean_error("gemm 64 --split-k 5000");
  EXPECT_NE(spx("gemm 64 --split-k 5000").err.find("--split-k 5000 is outside [0, 4096]"), std::string::npos);
}

// spx gemm --explain: the plan and why, on any machine (the H100's figures without a GPU).
TEST_F(Cli, GemmExplainShowsThePlanWithoutRunning) {
  CliRun r = spx("gemm 60000 96 2000 --explain --json " + path("plan.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("<- the rule's choice"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("floor"), std::string::npos) << r.out;
  const auto j = read_json(path("plan.json"));
  EXPECT_EQ(j["schema"], "spx-gemm-plan-1");
  EXPECT_EQ(j["m"], 60000);
  ASSERT_GE(j["candidates"].size(), 6u);
  int chosen = 0;
  double least = 1e300;
  for (const auto& c : j["candidates"]) {
    chosen += c["chosen"].get<bool>() ? 1 : 0;
    least = std::min(least, c["predicted_us"].get<double>());
    EXPECT_GE(c["split_k"].get<int>(), 1);
    EXPECT_GT(c["waves"].get<double>(), 0);
  }
  EXPECT_EQ(chosen, 1);
  EXPECT_DOUBLE_EQ(j["rule"]["predicted_us"].get<double>(), least);  // the least predicted time wins
  EXPECT_GE(least, j["floor_us"].get<double>());
  // Auto's pick between spx's best and cuBLAS's model (60000 x 96 x 2000: cuBLAS by the models).
  EXPECT_EQ(j["runs"], "cublas");
  EXPECT_LT(j["cublas_predicted_us"].get<double>(), least);
  EXPECT_DOUBLE_EQ(j["predicted_us"].get<double>(), j["cublas_predicted_us"].get<double>());
  EXPECT_NE(r.out.find("plan       cuBLAS DGEMM"), std::string::npos) << r.out;
  r = spx("gemm 32 32 100000 --explain");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("plan       spx v3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": spx runs"), std::string::npos) << r.out;
  // An odd leading dimension (4095) slows cuBLAS's kernels: spx runs where 4096^3 goes to cuBLAS.
  // (The native pick: emulation forbidden; its own pick is checked below.)
  r = spx("gemm 4095 --explain --emulation never --json " + path("odd.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("its unaligned kernels"), std::string::npos) << r.out;
  const auto odd = read_json(path("odd.json"));
  EXPECT_EQ(odd["operands_aligned"], false);
  EXPECT_EQ(odd["runs"], "spx_v3");
  r = spx("gemm 4096 --explain");
  EXPECT_NE(r.out.find("plan       cuBLAS DGEMM"), std::string::npos) << r.out;
  r = spx("gemm 4096 --explain --ld-pad 1 --emulation never");  // lda = 4097
  EXPECT_NE(r.out.find("plan       spx v3"), std::string::npos) << r.out;
  // The INT8 emulation: predicted faster at 16384^3 on the H100's figures (measured on an H200:
  // 1.08x), not at 8192^3 (0.93x) nor on short k; forbidden or forced by --emulation.
  r = spx("gemm 8192 --explain");
  EXPECT_NE(r.out.find("plan       cuBLAS DGEMM"), std::string::npos) << r.out;
  r = spx("gemm 16384 --explain --json " + path("emulated.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("plan       emulated DGEMM"), std::string::npos) << r.out;
  const auto emulated = read_json(path("emulated.json"));
  EXPECT_EQ(emulated["runs"], "emulated");
  EXPECT_LT(emulated["emulation"]["predicted_us"].get<double>(),
            emulated["emulation"]["native_us"].get<double>());
  EXPECT_GE(emulated["emulation"]["moduli"].get<int>(), 12);
  r = spx("gemm 8192 8192 256 --explain");
  EXPECT_NE(r.out.find("plan       cuBLAS DGEMM"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("emulation  14 moduli"), std::string::npos) << r.out;
  r = spx("gemm 8192 --explain --emulation never");
  EXPECT_NE(r.out.find("emulation  emulation forbidden"), std::string::npos) << r.out;
  r = spx("gemm 512 --explain --emulation always");
  EXPECT_NE(r.out.find("plan       emulated DGEMM"), std::string::npos) << r.out;
  expect_clean_error("gemm 512 --explain --emulation always --tile 64x64");
  // Given knobs are shown beside the rule's choice; f32 has no version 3 plan.
  r = spx("gemm 1000 128 1000 --explain --tile 32x32 --split-k 2 --beta 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("given      tile 32x32, 2 splits"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("beta != 0"), std::string::npos) << r.out;
  expect_clean_error("gemm 64 --explain --precision f32");
}

TEST_F(Cli, AutoBackendUsesTheGpuWhenThereIsOne) {
  if (spx::cuda::device_count() == 0) GTEST_SKIP() << "no GPU: auto is the CPU (tested above)";
  CliRun r = spx("spmv stencil27:n=8 --backend auto --repeat 3 --json " + path("gpu.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = read_json(path("gpu.json"));
  expect_bench_schema(j);
  EXPECT_EQ(j["device"]["kind"], "cuda");
  // Without --kernel or --format, the GPU runs the planned product (the front door).
  EXPECT_EQ(j["results"][0]["kernel"], "spx_auto");
  EXPECT_TRUE(j["results"][0]["params"]["chosen"].is_string()) << j["results"][0].dump();
  r = spx("spmv stencil27:n=8 --plan measure --explain --repeat 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("chosen: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("decided by measured"), std::string::npos) << r.out;
  r = spx("spmm stencil27:n=8 --cols 8 --plan rule --repeat 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("spx_auto"), std::string::npos) << r.out;
  r = spx("bench stencil27:n=8 --ops spmv,spmm:3 --repeat 2 -q --json " + path("gpu-bench.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  j = read_json(path("gpu-bench.json"));
  expect_bench_schema(j);
  for (const auto& res : j["results"]) {
    EXPECT_EQ(res["backend"], "cuda");
    EXPECT_TRUE(res["baseline"].is_string()) << res.dump();  // speedup over the best vendor kernel
  }
}

TEST_F(Cli, SpmvEveryCpuFormat) {
  for (const char* format : {"csr", "coo", "ell", "ellr", "hyb"}) {
    const CliRun r =
        spx(std::string("spmv fem:rows=500,len=9 --backend cpu --repeat 2 --threads 2 --format ") + format);
    EXPECT_EQ(r.status, 0) << format << ": " << r.err;
    EXPECT_NE(r.out.find("ok, matches spx::ref"), std::string::npos) << r.out;
  }
}

TEST_F(Cli, BenchTinyRun) {
  // The small suite restricted to its smallest matrix, plus every op and precision on a spec.
  CliRun r =
      spx("bench --backend cpu --suite small --max-nnz 200000 --repeat 1 -q --json " + path("small.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("omp_csr"), std::string::npos) << r.out;
  auto j = read_json(path("small.json"));
  expect_bench_schema(j);
  // Written after each matrix (marked partial) and whole at the end: no "partial", no temporary left.
  EXPECT_FALSE(j.contains("partial"));
  for (const auto& e : std::filesystem::directory_iterator(path("")))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  r =
      spx("bench stencil2d:n=20 --backend cpu --ops spmv,spmm:4,gemm:16 --precision f32,f64 --repeat 1 -q "
          "--json " +
          path("ops.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  j = read_json(path("ops.json"));
  expect_bench_schema(j);
  int spmv = 0, spmm = 0, gemm = 0;
  for (const auto& res : j["results"]) {
    const std::string op = res["op"];
    spmv += op == "spmv";
    spmm += op == "spmm";
    gemm += op == "gemm";
    if (op == "spmm") {
      EXPECT_EQ(res["cols_dense"], 4);
    }
    if (op == "gemm") {
      EXPECT_EQ(res["matrix"], "dense_16");
    }
  }
  EXPECT_EQ(spmv, 2 * 6);  // omp_csr + 5 reference formats, twice
  EXPECT_EQ(spmm, 2 * 3);
  EXPECT_EQ(gemm, 2 * 1);
  // A non-square gemm: C 9 x 5, inner dimension 3; checked and reported with its shape.
  r = spx("bench --backend cpu --ops gemm:9x5x3 --precision f64 --repeat 1 -q --json " + path("gemm.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  j = read_json(path("gemm.json"));
  expect_bench_schema(j);
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["matrix"], "dense_9x5x3");
  EXPECT_EQ(j["results"][0]["m"], 9);
  EXPECT_EQ(j["results"][0]["n"], 5);
  EXPECT_EQ(j["results"][0]["k"], 3);
  EXPECT_EQ(j["results"][0]["checked"], true);
  r = spx("bench --backend cpu --ops gemm:9x5 -q");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("MxNxK"), std::string::npos) << r.err;
  r = spx("bench --list");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("suite standard"), std::string::npos);
}

TEST_F(Cli, BenchRecordsTheCommitItIsGiven) {
  // A tree copied to a GPU machine has no .git; scripts/gpu-check passes the commit in SPX_COMMIT.
  ::setenv("SPX_COMMIT", "0123abc", 1);
  const CliRun r =
      spx("bench stencil2d:n=8 --backend cpu --kernels omp_csr --repeat 1 -q --json " + path("commit.json"));
  ::unsetenv("SPX_COMMIT");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_json(path("commit.json"))["commit"], "0123abc");
}

TEST_F(Cli, BadInputsGiveOneErrorLine) {
  {
    std::ofstream truncated(path("truncated.mtx"));
    truncated << "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1.0\n2 2 2.0\n";
    std::ofstream garbage(path("garbage.mtx"), std::ios::binary);
    garbage << std::string("\x01\x02\xff\x00 not a matrix", 18);
  }
  expect_clean_error("info " + path("missing.mtx"));
  expect_clean_error("info " + path("truncated.mtx"));
  expect_clean_error("info " + path("garbage.mtx"));
  expect_clean_error("info " + dir_.string());
  expect_clean_error("gen nosuchkind:n=3 -o " + path("x.mtx"));
  expect_clean_error("gen stencil27:n=-4 -o " + path("x.mtx"));
  expect_clean_error("gen stencil27:n=4");
  expect_clean_error("convert " + path("truncated.mtx") + " " + path("y.mtx"));
  expect_clean_error("convert stencil2d:n=4 /nonexistent-folder/y.mtx");
  expect_clean_error("spmv stencil2d:n=8 --format foo");
  expect_clean_error("spmv stencil2d:n=8 --precision f16");
  expect_clean_error("spmv " + path("truncated.mtx"));
  expect_clean_error("spmv stencil2d:n=8 --kernel nosuch");
  expect_clean_error("spmv stencil2d:n=8 --plan fastest");
  expect_clean_error("spmv stencil2d:n=8 --expected-calls 0");
  expect_clean_error("spmv stencil2d:n=8 --backend cpu --explain");  // the plan is the GPU's
  expect_clean_error("spmv");
  expect_clean_error("bench stencil2d:n=8 --ops spmv,foo");
  expect_clean_error("bench stencil2d:n=8 --ops spmm");
  expect_clean_error("bench stencil2d:n=8 --suite nosuch");
  expect_clean_error("bench stencil2d:n=8 --max-nnz lots");
  expect_clean_error("frobnicate");
  if (spx::cuda::device_count() == 0) {
    expect_clean_error("spmv stencil2d:n=8 --backend cuda");
    expect_clean_error("bench stencil2d:n=8 --backend cuda");
  }
}

TEST_F(Cli, GemmChecksItsArgumentsAndRunsWhereThereIsAGpu) {
  expect_clean_error("gemm");
  expect_clean_error("gemm 0");
  expect_clean_error("gemm 8 8 8 8");
  expect_clean_error("gemm 8 --op-a X");
  expect_clean_error("gemm 8 --precision f16");
  expect_clean_error("gemm 8 --ld-pad -1");
  expect_clean_error("gemm 8 --kernel nosuch");
  if (spx::cuda::device_count() == 0) {
    // No GPU (or no CUDA): one error line saying so.
    expect_clean_error("gemm 16");
    return;
  }
  // 3 x 320 GB on the device: refused before anything is allocated, with the numbers.
  expect_clean_error("gemm 200000");
  EXPECT_NE(spx("gemm 200000").err.find("of device memory (A "), std::string::npos);
  expect_clean_error("gemm 8 --precision f32 --kernel v2");  // v2 is f64 only
  // Ragged, transposed, padded, beta != 0: every kernel checked against the projection.
  CliRun r = spx("gemm 33 17 9 --op-a T --op-b T --alpha -0.5 --beta 1.5 --ld-pad 3 --repeat 2 --json " +
                 path("gemm.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = read_json(path("gemm.json"));
  EXPECT_EQ(j["m"], 33);
  EXPECT_EQ(j["k"], 9);
  ASSERT_GE(j["results"].size(), 5u);  // spx_gemm, v1, v2, v3, cuBLAS
  for (const auto& res : j["results"]) EXPECT_TRUE(res["checked"].get<bool>()) << res.dump();
  EXPECT_NE(r.out.find("plan       v3: tile "), std::string::npos) << r.out;
  // The knobs reach spx_gemm and v3 (a 32-deep-slab tile, 2 splits of 320's 10 slabs), checked too.
  r = spx("gemm 70 33 320 --kernel auto,v3 --tile 32x32 --split-k 2 --repeat 1 --json " + path("knobs.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  j = read_json(path("knobs.json"));
  EXPECT_EQ(j["v3_plan"]["tile"], "32x32");
  EXPECT_EQ(j["v3_plan"]["split_k"], 2);
  for (const auto& res : j["results"]) EXPECT_TRUE(res["checked"].get<bool>()) << res.dump();
}

// A matrix whose products cannot fit is a note, not a crash (nor a failure): B alone would be 32 TB.
TEST_F(Cli, BenchSkipsWhatCannotFitInMemory) {
  const CliRun r = spx(
      "bench stencil27:n=2000 stencil2d:n=8 --backend cpu --ops spmm:512 --kernels omp_csr --repeat 1 -q");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("stencil27:n=2000: skipped: spmm:512 f64 omp_csr: needs about"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("GiB available"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("== stencil2d:n=8"), std::string::npos) << r.out;  // the next matrix still runs
}

TEST_F(Cli, BenchReportsBadMatrixAndFailsAtTheEnd) {
  {
    std::ofstream truncated(path("truncated.mtx"));
    truncated << "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1.0\n";
  }
  // The good matrix is still benchmarked; the bad one is a note, and the exit status says so.
  const CliRun r =
      spx("bench stencil2d:n=8 " + path("truncated.mtx") + " --backend cpu --kernels omp_csr --repeat 1 -q");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("omp_csr"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("truncated"), std::string::npos) << r.out;
  const auto lines = nonempty_lines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("spx: error: ", 0), 0u);
}

// spx spmm (docs/cli.md): option combinations are refused before any file or device is touched, the
// same in every build; without a GPU (or without CUDA) the command stops with one error line.
TEST_F(Cli, SpmmBadInputsGiveOneErrorLine) {
  expect_clean_error("spmm stencil2d:n=8");  // --cols is required
  expect_clean_error("spmm stencil2d:n=8 --cols 0");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --precision f16");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --layout diagonal");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --kernel nosuch");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --streams 2");  // needs --host-resident
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --compare");    // needs --host-resident
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --host-resident --kernel cusparse");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --kernel set-spmvs --layout row");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --host-resident --streams 0");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --host-resident --streams 1 --compare");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --host-resident --device-memory-limit lots");
  expect_clean_error("spmm " + path("missing.mtx") + " --cols 4");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --csr-config G=8x");  // not an integer
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --csr-config W=8");   // no such key
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --csr-config G=8,");  // empty item
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --csr-config G=-2");  // negative
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --csr-config G=8 --kernel ellr");
  expect_clean_error("spmm stencil2d:n=8 --cols 4 --csr-config G=8 --host-resident");
  if (spx::cuda::device_count() == 0) {
    expect_clean_error("spmm stencil2d:n=8 --cols 4");
    expect_clean_error("spmm stencil2d:n=8 --cols 4 --host-resident --streams 2 --compare");
  } else {
    // A budget below one column of B and C.
    expect_clean_error("spmm stencil2d:n=8 --cols 4 --host-resident --device-memory-limit 1000");
    // B and C of 32 TB: refused before the matrix is generated, with the numbers.
    expect_clean_error("spmm stencil27:n=2000 --cols 512");
    EXPECT_NE(spx("spmm stencil27:n=2000 --cols 512").err.find("GiB of host memory"), std::string::npos);
    // Well-formed, but a merged configuration is not one the kernel runs: refused before any run.
    CliRun bad = spx("spmm stencil2d:n=8 --cols 4 --csr-config G=8 --csr-config G=3");
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("--csr-config 'G=3'"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.out.find("ms median"), std::string::npos) << bad.out;
  }
}

// --csr-config: each configuration is timed and checked beside the rule's choice and cuSPARSE.
TEST_F(Cli, SpmmCsrConfigsAreTimedBesideTheRule) {
  if (spx::cuda::device_count() == 0) GTEST_SKIP() << "no GPU: spx spmm refuses (tested above)";
  CliRun r =
      spx("spmm stencil27:n=9 --cols 32 --kernel csr --csr-config G=8,V=4 --csr-config BS=64,tile=64 "
          "--repeat 2 --json " +
          path("c.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = read_json(path("c.json"));
  expect_bench_schema(j);  // spx bench's JSON, every result checked
  // The CSR kernel (row-major: spmm_csr_row), each --csr-config as a variant of it, and cuSPARSE.
  std::map<std::string, nlohmann::json> by_kernel;
  for (const auto& res : j["results"]) by_kernel[res["kernel"].get<std::string>()] = res;
  ASSERT_GE(j["results"].size(), 4u) << j.dump();
  ASSERT_TRUE(by_kernel.count("spmm_csr_row")) << j.dump();
  ASSERT_TRUE(by_kernel.count("spmm_csr_row#1")) << j.dump();
  ASSERT_TRUE(by_kernel.count("spmm_csr_row#2")) << j.dump();
  const auto& first = by_kernel["spmm_csr_row#1"];
  EXPECT_NE(first["params"]["config"].get<std::string>().find("G=8 "), std::string::npos) << first.dump();
  EXPECT_NE(first["params"]["config"].get<std::string>().find("V=4"), std::string::npos) << first.dump();
  EXPECT_EQ(first["params"]["threads_per_row"], 8);
  EXPECT_EQ(first["params"]["cols_per_lane"], 4);
  EXPECT_EQ(first["override"], "--csr-config 'G=8,V=4'");
  const auto& second = by_kernel["spmm_csr_row#2"];
  EXPECT_NE(second["params"]["config"].get<std::string>().find("BS=64"), std::string::npos) << second.dump();
  EXPECT_NE(second["params"]["config"].get<std::string>().find("tiles=64"), std::string::npos)
      << second.dump();
  for (const auto& res : j["results"]) {
    EXPECT_EQ(res["cols_dense"], 32);
    EXPECT_EQ(res["params"]["layout"], "row") << res.dump();
    // The speedup of every run is over cuSPARSE's best CSR algorithm on the same B.
    EXPECT_EQ(res["baseline"].get<std::string>().rfind("cusparse_spmm_csr_alg", 0), 0u) << res.dump();
  }
  EXPECT_NE(r.out.find("speedup over cuSPARSE's best"), std::string::npos) << r.out;
}

TEST_F(Cli, SpmmHostResidentCompareOnTheGpu) {
  if (spx::cuda::device_count() == 0) GTEST_SKIP() << "no GPU: spx spmm refuses (tested above)";
  CliRun r = spx(
      "spmm stencil27:n=8 --cols 5 --host-resident --streams 2 --chunk-cols 2 --compare --repeat 2 --json " +
      path("h.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("acceleration factor"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FastSpMM*"), std::string::npos) << r.out;
  const auto j = read_json(path("h.json"));
  expect_bench_schema(j);  // spx bench's JSON, every result checked
  ASSERT_EQ(j["results"].size(), 2u);
  // The entry's own run (--streams 2) and --compare's variant (--streams 1 at the same L_GPU).
  EXPECT_EQ(j["results"][0]["kernel"], "spmm_host_row");
  EXPECT_EQ(j["results"][0]["params"]["mode"], "fastspmm");
  EXPECT_EQ(j["results"][1]["kernel"], "spmm_host_row#1");
  EXPECT_EQ(j["results"][1]["params"]["mode"], "fastspmm_star");
  for (const auto& res : j["results"]) {
    EXPECT_TRUE(res["checked"].get<bool>()) << res.dump();
    EXPECT_EQ(res["runs"], 2);
    EXPECT_EQ(res["params"]["chunks"], 3);
    EXPECT_EQ(res["params"]["chunk_cols"], 2);
    for (const char* key : {"processing_ms", "communication_ms", "percent_communication", "pcie_bound_ms",
                            "pcie_fraction", "streams", "transfer", "host_memory"}) {
      EXPECT_TRUE(res["params"].contains(key)) << key;
    }
    EXPECT_GT(res["ms_median"].get<double>(), 0);  // the median runtime (the paper's Runt)
  }
  EXPECT_GT(j["acceleration_factor"].get<double>(), 0);
  r = spx("spmm stencil27:n=8 --cols 8 --precision f32 --layout col --repeat 3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ok, matches spx::ref"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// spx plan: the planner without a GPU — a plan from host features and a committed profile, and the
// rule/model modes replayed on the committed validation measurements.
TEST_F(Cli, PlanShowAndValidateWithoutAGpu) {
  CliRun r = spx("plan show stencil27:n=16 --op spmm:8 --mode model");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("chosen: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cusparse_spmm_csr_alg3_row"), std::string::npos) << r.out;
  r = spx("plan show powerlaw:n=20000,avg=8,exp=1.8 --mode rule --profile 'NVIDIA H200'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("not eligible: ELL padding"), std::string::npos) << r.out;
  const fs::path root = fs::path(SPX_TEST_DATA).parent_path().parent_path();
  const std::string bench = (root / "bench/results/h100/planner/planner-f76a018.json.gz").string();
  r = spx("plan validate '" + bench + "' --mode rule --expected-calls 1000000");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("f64 spmv"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("all            n  96"), std::string::npos) << r.out;
  expect_clean_error("plan show stencil27:n=8 --mode measure");
  expect_clean_error("plan show stencil27:n=8 --op gemm:64");
  expect_clean_error("plan show stencil27:n=8 --profile 'NVIDIA Z9'");
  expect_clean_error("plan validate /nonexistent/bench.json");
}

}  // namespace
