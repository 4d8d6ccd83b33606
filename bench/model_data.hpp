// The performance model's view of a benchmark JSON (spx bench --json, spx model calibrate
// --bench-json): the device's measured figures, each matrix's features, and every time of a
// kernel the model describes, in microseconds. cuSPARSE's SpMM algorithms and layouts enter as one
// kernel, "cusparse_spmm_best": the fastest of them per (matrix, precision, L), what a user who asks
// the vendor for its best gets.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "spx/features.hpp"
#include "spx/model.hpp"

namespace spx::bench {

struct ModelMeasurement {
  std::string matrix;
  model::KernelKey key;
  double us = 0;      // the median of the warm runs: what the model predicts
  double us_min = 0;  // their minimum (0 when the JSON has none): us / us_min tells a disturbed run
};

struct ModelData {
  model::DeviceBasics device;
  std::string commit, date;                        // of the run
  std::map<std::string, MatrixFeatures> features;  // by matrix name
  std::vector<ModelMeasurement> measurements;      // checked results of modelled kernels only
  // The samples of the matrices that have features.
  std::vector<model::Sample> samples() const;
};

// Throws spx::Error when the JSON has no device or no "matrices" features (an old bench JSON:
// re-run it with this spx).
ModelData model_data(const nlohmann::ordered_json& bench_json, const std::string& source);
ModelData load_model_data(const std::string& path);  // .json or .json.gz
// A JSON file (.json or .json.gz), spx::Error naming the file when it is not JSON.
nlohmann::ordered_json load_json(const std::string& path);

// Registry names (and patterns) a benchmark runs to feed the model: the modelled SpMV kernels,
// spx's SpMM kernels and cuSPARSE's SpMM entries.
std::vector<std::string> model_kernel_patterns();

}  // namespace spx::bench
