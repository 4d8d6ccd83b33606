#include "bench/model_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "bench/features_json.hpp"
#include "io/text_file.hpp"
#include "plan/catalogue.hpp"
#include "plan/json_fields.hpp"
#include "spx/error.hpp"

namespace spx::bench {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kCusparseSpmmPrefix = "cusparse_spmm_";

}  // namespace

std::vector<model::Sample> ModelData::samples() const {
  std::vector<model::Sample> out;
  for (const ModelMeasurement& m : measurements) {
    const auto f = features.find(m.matrix);
    if (f == features.end()) continue;
    out.push_back({m.matrix, f->second, m.key, m.us});
  }
  return out;
}

ModelData model_data(const json& doc, const std::string& source) {
  try {
    ModelData data;
    // Bench JSON from before the model has no L2 rate: the model then falls back to its default.
    data.device = model::device_from_json(doc.at("device"), model::DeviceFields::RatesAndShapeOptional);
    data.commit = doc.value("commit", "");
    data.date = doc.value("date", "");
    if (!doc.contains("matrices"))
      throw Error("no \"matrices\" with their features: a bench JSON of an older spx (run it again)");
    for (const json& m : doc.at("matrices"))
      data.features[m.at("name").get<std::string>()] = features_from_json(m.at("features"));
    // cuSPARSE SpMM: the best of its entries per (matrix, precision, L).
    std::map<std::tuple<std::string, int, int64_t>, std::pair<double, double>> best;  // median, min
    for (const json& r : doc.at("results")) {
      if (!r.value("checked", false)) continue;
      const std::string kernel = r.at("kernel").get<std::string>();
      if (kernel.find('#') != std::string::npos) continue;  // a variant, not the entry as planned
      const std::string op = r.at("op").get<std::string>();
      const int bytes = r.at("precision").get<std::string>() == "f32" ? 4 : 8;
      const int64_t L = op == "spmm" ? r.at("cols_dense").get<int64_t>() : 0;
      const double us = 1e3 * r.at("ms_median").get<double>();
      const double us_min = 1e3 * r.value("ms_min", 0.0);
      const std::string matrix = r.at("matrix").get<std::string>();
      if (op == "spmm" && kernel.rfind(kCusparseSpmmPrefix, 0) == 0) {
        auto [it, inserted] = best.try_emplace({matrix, bytes, L}, us, us_min);
        if (!inserted && us < it->second.first) it->second = {us, us_min};
        continue;
      }
      if ((op == "spmv" || op == "spmm") && model::modelled(kernel))
        data.measurements.push_back({matrix, {kernel, bytes, L}, us, us_min});
    }
    for (const auto& [k, t] : best)
      data.measurements.push_back(
          {std::get<0>(k), {plan::kVendorSpmmBestKey, std::get<1>(k), std::get<2>(k)}, t.first, t.second});
    return data;
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", source, e.what()));
  } catch (const std::exception& e) {
    throw Error(fmt::format("{}: not a bench JSON the model can read: {}", source, e.what()));
  }
}

json load_json(const std::string& path) {
  const auto text = io::read_text_file(path);
  try {
    return json::parse(text.view());
  } catch (const std::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", path, e.what()));
  }
}

ModelData load_model_data(const std::string& path) { return model_data(load_json(path), path); }

std::vector<std::string> model_kernel_patterns() {
  // From the kernel catalogue: the model keys a profile fits -- those borrowing no sibling's
  // coefficients (a borrowing key has no fit of its own until its catalogue row stops borrowing) --
  // as SpMV entries, the row-major spx SpMM kernels of such keys, and the cuSPARSE SpMM entries whose
  // best is the model's "cusparse_spmm_best".
  const auto fitted = [](const char* key) {
    const plan::ModelKeyRow* m = plan::find_model_key(key);
    return m != nullptr && m->borrows == nullptr;
  };
  std::vector<std::string> k;
  for (const plan::ModelKeyRow& key : plan::model_keys())
    if (key.op == plan::Operation::Spmv && key.borrows == nullptr) k.emplace_back(key.key);
  for (const plan::KernelRow& row : plan::catalogue()) {
    if (row.op != plan::Operation::Spmm) continue;
    const bool spx_row_major =
        std::string_view(row.owner) == "spx" && row.layout == plan::DenseLayout::RowMajor;
    if ((spx_row_major && fitted(row.model_key)) || row.in_vendor_best) k.emplace_back(row.bench_name());
  }
  return k;
}

}  // namespace spx::bench
