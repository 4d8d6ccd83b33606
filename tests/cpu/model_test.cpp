// The performance model's host code (spx/model.hpp, bench/model_data.hpp): its terms, the fit, the
// profile files, the cross-GPU step and reading bench JSON. No GPU: times are synthesized from known
// coefficients, so the fit has an exact answer to find.
#include "spx/model.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/features_json.hpp"
#include "bench/model_data.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"

namespace spx::test {
namespace {

using model::KernelKey;

model::DeviceBasics h100() {
  model::DeviceBasics d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.copy_gbs = 3005;
  d.l2_gbs = 7600;
  return d;
}

// Small generated matrices of the calibration suite's kinds (the suite itself is GPU-sized).
const std::vector<MatrixFeatures>& sample_features() {
  static const std::vector<MatrixFeatures> f = [] {
    std::vector<MatrixFeatures> out;
    for (const char* spec : {"random:rows=2000,len=8,seed=1", "random:rows=30000,len=3,seed=2",
                             "random:rows=20000,len=40,seed=3", "random:rows=5000,cols=400000,len=8,seed=4",
                             "banded:n=40000,bw=4,density=1,seed=5",
                             "banded:n=20000,bw=30,density=0.5,seed=6", "powerlaw:n=30000,avg=8,exp=2,seed=7",
                             "longrows:rows=20000,cols=20000,long=2,len=8000,empty=0.3,short=6,seed=8",
                             "stencil27:n=20", "fem:rows=10000,len=27,seed=9"})
      out.push_back(spx::features(gen::generate<double>(spec)));
    return out;
  }();
  return f;
}

std::vector<KernelKey> all_keys() {
  std::vector<KernelKey> keys;
  for (int bytes : {4, 8}) {
    for (const std::string& k : model::spmv_kernels()) keys.push_back({k, bytes, 0});
    for (const std::string& k : model::spmm_kernels())
      for (int64_t L : {8, 32}) keys.push_back({k, bytes, L});
  }
  return keys;
}

TEST(Model, TermsAreFiniteNonNegativeAndLaunchIsOne) {
  for (const KernelKey& key : all_keys()) {
    for (const MatrixFeatures& f : sample_features()) {
      const model::Terms t = model::terms(key, f, h100());
      EXPECT_EQ(t.x[0], 1.0) << key.label();
      for (double x : t.x) {
        EXPECT_TRUE(std::isfinite(x)) << key.label();
        EXPECT_GE(x, 0.0) << key.label();
      }
      // A product moves bytes: the DRAM and L2 stream terms together are positive.
      EXPECT_GT(t.x[1] + t.x[2], 0.0) << key.label();
    }
  }
  EXPECT_THROW(model::terms({"omp_csr", 8, 0}, sample_features()[0], h100()), Error);
  EXPECT_THROW(model::terms({"csr_param", 2, 0}, sample_features()[0], h100()), Error);
}

TEST(Model, LargerWorkingSetsLeaveTheL2) {
  // The same structure at 1K rows is L2-resident; at 4M rows (64 MB and more) it streams from DRAM.
  const auto small = spx::features(gen::generate<double>("random:rows=1000,len=8,seed=1"));
  const auto large = spx::features(gen::generate<double>("random:rows=4000000,len=8,seed=1"));
  const model::Terms ts = model::terms({"csr_param", 8, 0}, small, h100());
  const model::Terms tl = model::terms({"csr_param", 8, 0}, large, h100());
  EXPECT_EQ(ts.x[1], 0.0);
  EXPECT_GT(ts.x[2], 0.0);
  EXPECT_GT(tl.x[1], 0.0);
  EXPECT_EQ(tl.x[2], 0.0);
}

// The COO SpMV runs its boundary kernel only when it has more than one chunk of 256 nonzeros, and
// HYB adds the COO tail's kernels to its ELL one: a one-chunk tail is one extra launch, not two.
TEST(Model, ExtraLaunchesFollowTheCooChunks) {
  constexpr int kExtra = 7;
  const auto extra = [](const std::string& kernel, const MatrixFeatures& f) {
    return model::terms({kernel, 8, 0}, f, h100()).x[kExtra];
  };
  MatrixFeatures f;
  f.rows = 100;
  f.cols = 100;
  f.max_row = 8;
  f.nnz = 256;  // one chunk
  EXPECT_EQ(extra("coo", f), 0.0);
  f.nnz = 257;
  EXPECT_EQ(extra("coo", f), 1.0);
  f.hyb_width = 2;
  f.nnz = 300;
  f.hyb_ell_nnz = 300;  // no tail
  EXPECT_EQ(extra("hyb", f), 0.0);
  f.hyb_ell_nnz = 200;  // a tail of 100 nonzeros: its chunk kernel only
  EXPECT_EQ(extra("hyb", f), 1.0);
  f.nnz = 1000;  // a tail of 800: chunk and boundary kernels
  EXPECT_EQ(extra("hyb", f), 2.0);
}

// Times made from known coefficients: the fit reproduces them (its answer may differ where terms
// are collinear on these samples, the predictions may not).
TEST(Model, FitReproducesSynthesizedTimes) {
  const std::array<double, model::kTerms> truth = {4.0, 1.1, 1.3, 0.2, 0.7, 0.5, 0.8, 3.0};
  std::vector<model::Sample> samples;
  for (const KernelKey& key : all_keys()) {
    int i = 0;
    for (const MatrixFeatures& f : sample_features()) {
      const model::Terms t = model::terms(key, f, h100());
      double us = 0;
      for (int j = 0; j < model::kTerms; ++j)
        us += truth[static_cast<std::size_t>(j)] * t.x[static_cast<std::size_t>(j)];
      samples.push_back({fmt::format("m{}", i++), f, key, us});
    }
  }
  const model::Profile p = model::fit(h100(), samples);
  ASSERT_EQ(p.fits.size(), all_keys().size());
  for (const model::KernelFit& f : p.fits) {
    EXPECT_LT(f.mean_abs_error, 1e-6) << f.key.label();
    for (double c : f.coef) EXPECT_GE(c, 0.0);
  }
  for (const model::Sample& s : samples)
    EXPECT_NEAR(*model::predict_us(p, s.key, s.features), s.us, 1e-6 * s.us);
  EXPECT_FALSE(model::predict_us(p, {"csr_param", 8, 8}, sample_features()[0]).has_value());
}

TEST(Model, KeysWithTooFewSamplesAreNotFitted) {
  std::vector<model::Sample> samples;
  for (int i = 0; i < model::kTerms - 1; ++i)
    samples.push_back({"m", sample_features()[static_cast<std::size_t>(i)], {"ell", 8, 0}, 10.0 + i});
  EXPECT_TRUE(model::fit(h100(), samples).fits.empty());
}

TEST(Model, ProfileJsonRoundTrips) {
  model::Profile p;
  p.device = h100();
  p.commit = "abc1234";
  p.date = "2026-11-25T12:00:00Z";
  model::KernelFit f;
  f.key = {"spmm_csr_row", 4, 32};
  f.coef = {1, 2, 3, 4, 5, 6, 7, 8};
  f.samples = 17;
  f.mean_abs_error = 0.03;
  f.max_abs_error = 0.2;
  p.fits.push_back(f);
  const model::Profile q = model::profile_from_json(model::to_json(p));
  EXPECT_EQ(q.device.name, p.device.name);
  EXPECT_EQ(q.device.l2_gbs, p.device.l2_gbs);
  ASSERT_EQ(q.fits.size(), 1u);
  EXPECT_EQ(q.fits[0].key, f.key);
  EXPECT_EQ(q.fits[0].coef, f.coef);
  EXPECT_EQ(q.fits[0].samples, 17);
  EXPECT_THROW(model::profile_from_json("{\"device\": {}}", "p.json"), Error);
  EXPECT_THROW(model::profile_from_json("not json", "p.json"), Error);
  EXPECT_THROW(model::load_profile("/nonexistent/profile.json"), Error);
}

// A profile is input: every number is range-checked on load, and the error names the file and the
// field (negative coefficients chose a plan at -9631 us; get<int>() of 1e20 was undefined).
TEST(Model, ProfileFieldsAreRangeCheckedOnLoad) {
  model::Profile p;
  p.device = h100();
  model::KernelFit f;
  f.key = {"csr_param", 8, 0};
  f.coef = {1, 2, 3, 4, 5, 6, 7, 8};
  p.fits.push_back(f);
  nlohmann::json good = nlohmann::json::parse(model::to_json(p));
  EXPECT_NO_THROW(model::profile_from_json(good.dump(), "good.json"));
  const auto expect_refused = [&](const std::function<void(nlohmann::json&)>& spoil,
                                  const std::string& field) {
    SCOPED_TRACE(field);
    nlohmann::json doc = good;
    spoil(doc);
    try {
      model::profile_from_json(doc.dump(), "bad.json");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("bad.json: " + field), std::string::npos) << e.what();
    }
  };
  expect_refused([](auto& d) { d["device"]["sm_count"] = 1e20; }, "device.sm_count = 1e+20");
  expect_refused([](auto& d) { d["device"]["sm_count"] = 0; }, "device.sm_count");
  expect_refused([](auto& d) { d["device"]["sm_count"] = 13.5; }, "device.sm_count = 13.5 is not a whole");
  expect_refused([](auto& d) { d["device"]["threads_per_sm"] = -1; }, "device.threads_per_sm");
  expect_refused([](auto& d) { d["device"]["blocks_per_sm"] = "32"; },
                 "device.blocks_per_sm is not a number");
  expect_refused([](auto& d) { d["device"]["l2_bytes"] = 1e300; }, "device.l2_bytes");
  expect_refused([](auto& d) { d["device"]["copy_gbs"] = -3000; }, "device.copy_gbs");
  expect_refused([](auto& d) { d["device"]["l2_gbs"] = 0; }, "device.l2_gbs");
  expect_refused([](auto& d) { d["fits"][0]["coef"]["launch"] = -5.0; }, "fits[0].coef.launch = -5");
  expect_refused([](auto& d) { d["fits"][0]["coef"]["dram"] = 1e300; }, "fits[0].coef.dram");
  expect_refused([](auto& d) { d["fits"][0]["cols_dense"] = -8; }, "fits[0].cols_dense");
  expect_refused([](auto& d) { d["fits"][0]["samples"] = 1e20; }, "fits[0].samples");
  expect_refused([](auto& d) { d["fits"][0]["max_abs_error"] = -1; }, "fits[0].max_abs_error");
  // The committed profiles pass their own checks.
  for (const char* device : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    SCOPED_TRACE(device);
    const std::optional<std::string> path = model::find_profile(device);
    ASSERT_TRUE(path.has_value());
    EXPECT_NO_THROW(model::load_profile(*path));
  }
}

TEST(Model, CrossGpuScalesTheMeasurementByThePredictedRatio) {
  model::Profile ref, tar;
  ref.device = h100();
  tar.device = h100();
  tar.device.name = "NVIDIA H200";
  tar.device.copy_gbs = 2 * ref.device.copy_gbs;  // twice the DRAM bandwidth
  tar.device.l2_gbs = ref.device.l2_gbs;
  model::KernelFit k;
  k.key = {"csr_param", 8, 0};
  k.coef = {3, 1, 1, 1, 1, 1, 1, 1};
  ref.fits.push_back(k);
  tar.fits.push_back(k);
  const auto large = spx::features(gen::generate<double>("random:rows=4000000,len=8,seed=1"));
  // The same profile on both sides gives the measurement back.
  EXPECT_NEAR(*model::predict_cross_us(ref, 500.0, ref, k.key, large), 500.0, 1e-9);
  // Twice the bandwidth: the DRAM-bound part halves, launch and the L2 terms stay.
  const double pred_ref = *model::predict_us(ref, k.key, large);
  const double pred_tar = *model::predict_us(tar, k.key, large);
  EXPECT_LT(pred_tar, pred_ref);
  EXPECT_NEAR(*model::predict_cross_us(ref, 500.0, tar, k.key, large), 500.0 * pred_tar / pred_ref, 1e-9);
  // A launch-bound matrix: the ratio stays near 1 even where the two fits split the time between
  // launch and the other terms differently.
  const auto tiny = spx::features(gen::generate<double>("random:rows=64,len=4,seed=2"));
  model::Profile tar2 = tar;
  tar2.fits[0].coef = {2, 1, 1, 1, 1, 1, 2, 1};  // a smaller launch, a larger waves coefficient
  const double t = *model::predict_cross_us(ref, 10.0, tar2, k.key, tiny);
  EXPECT_GT(t, 5.0);
  EXPECT_LT(t, 15.0);
  EXPECT_FALSE(model::predict_cross_us(ref, 500.0, tar, {"ell", 8, 0}, large).has_value());
}

TEST(Model, FindsTheCommittedProfileByDeviceName) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "spx_model_test_profiles";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "h200.json") << "{}";
  ::setenv("SPX_PROFILES", dir.c_str(), 1);
  EXPECT_EQ(model::find_profile("NVIDIA H200"), (dir / "h200.json").string());
  EXPECT_FALSE(model::find_profile("NVIDIA A100-SXM4-40GB").has_value());
  EXPECT_FALSE(model::find_profile("").has_value());
  ::unsetenv("SPX_PROFILES");
  std::filesystem::remove_all(dir);
}

TEST(Model, CommittedProfilesOfBothGpusLoad) {
  for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    const auto path = model::find_profile(name);
    ASSERT_TRUE(path.has_value()) << name;
    const model::Profile p = model::load_profile(*path);
    EXPECT_EQ(p.device.name, name);
    EXPECT_EQ(p.fits.size(), 34u);  // 11 SpMV kernels and 3 SpMM ones at L = 8 and 32, f32 and f64
    // Its own profile on both sides of the cross-GPU step gives the measurement back.
    const auto tiny = spx::features(gen::generate<double>("random:rows=1000,len=8,seed=3"));
    const auto t = model::predict_cross_us(p, 10.0, p, {"csr_param", 8, 0}, tiny);
    ASSERT_TRUE(t.has_value());
    EXPECT_NEAR(*t, 10.0, 1e-9);
  }
}

TEST(ModelData, ReadsBenchJsonWithCusparseSpmmAsItsBest) {
  const MatrixFeatures f = sample_features()[0];
  nlohmann::ordered_json doc = {
      {"device",
       {{"name", "NVIDIA H100 80GB HBM3"},
        {"sm_count", 132},
        {"l2_bytes", 52428800},
        {"copy_gbs", 3000.0},
        {"l2_gbs", 7500.0},
        {"threads_per_sm", 2048},
        {"blocks_per_sm", 32}}},
      {"matrices", {{{"name", "m"}, {"source", "spec"}, {"features", bench::to_json(f)}}}},
      {"results",
       {{{"matrix", "m"},
         {"op", "spmv"},
         {"precision", "f64"},
         {"kernel", "csr_param"},
         {"ms_median", 0.01},
         {"ms_min", 0.008},
         {"checked", true},
         {"cols_dense", nullptr}},
        {{"matrix", "m"},
         {"op", "spmv"},
         {"precision", "f64"},
         {"kernel", "omp_csr"},
         {"ms_median", 1.0},
         {"checked", true},
         {"cols_dense", nullptr}},
        {{"matrix", "m"},
         {"op", "spmv"},
         {"precision", "f64"},
         {"kernel", "ell"},
         {"ms_median", 0.02},
         {"checked", false},
         {"cols_dense", nullptr}},
        {{"matrix", "m"},
         {"op", "spmm"},
         {"precision", "f32"},
         {"kernel", "cusparse_spmm_csr_alg2_row"},
         {"ms_median", 0.05},
         {"checked", true},
         {"cols_dense", 8}},
        {{"matrix", "m"},
         {"op", "spmm"},
         {"precision", "f32"},
         {"kernel", "cusparse_spmm_coo_alg3_col"},
         {"ms_median", 0.03},
         {"ms_min", 0.029},
         {"checked", true},
         {"cols_dense", 8}},
        {{"matrix", "m"},
         {"op", "spmm"},
         {"precision", "f32"},
         {"kernel", "spmm_csr_row#1"},
         {"ms_median", 0.01},
         {"checked", true},
         {"cols_dense", 8}}}}};
  const bench::ModelData d = bench::model_data(doc, "test");
  EXPECT_EQ(d.device.l2_gbs, 7500.0);
  ASSERT_EQ(d.features.size(), 1u);
  EXPECT_EQ(d.features.at("m"), f);
  // csr_param, and cuSPARSE's best SpMM; not the CPU kernel, the failed check or the variant.
  ASSERT_EQ(d.measurements.size(), 2u);
  EXPECT_EQ(d.measurements[0].key, (KernelKey{"csr_param", 8, 0}));
  EXPECT_NEAR(d.measurements[0].us, 10.0, 1e-9);
  EXPECT_NEAR(d.measurements[0].us_min, 8.0, 1e-9);
  EXPECT_EQ(d.measurements[1].key, (KernelKey{"cusparse_spmm_best", 4, 8}));
  EXPECT_NEAR(d.measurements[1].us, 30.0, 1e-9);
  EXPECT_NEAR(d.measurements[1].us_min, 29.0, 1e-9);  // the minimum of the entry with the best median
  EXPECT_EQ(d.samples().size(), 2u);
  // The device's figures are range-checked as a profile's are (get<int>() of 1e20 was UB).
  nlohmann::ordered_json spoiled = doc;
  spoiled["device"]["sm_count"] = 1e20;
  try {
    bench::model_data(spoiled, "bench.json");
    ADD_FAILURE() << "accepted sm_count 1e20";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("device.sm_count = 1e+20 is outside"), std::string::npos)
        << e.what();
  }
  doc.erase("matrices");
  EXPECT_THROW(bench::model_data(doc, "old.json"), Error);
}

TEST(ModelData, FeaturesJsonRoundTrips) {
  for (const MatrixFeatures& f : sample_features())
    EXPECT_EQ(bench::features_from_json(bench::to_json(f)), f);
  EXPECT_THROW(bench::features_from_json(nlohmann::ordered_json{{"rows", 1}}), Error);
}

}  // namespace
}  // namespace spx::test
