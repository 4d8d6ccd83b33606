// Device profiles of the performance model as JSON, and finding the committed one for a device.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "io/text_file.hpp"
#include "plan/catalogue.hpp"
#include "plan/json_fields.hpp"
#include "spx/error.hpp"
#include "spx/model.hpp"

#ifndef SPX_SOURCE_PROFILES
#define SPX_SOURCE_PROFILES ""
#endif
#ifndef SPX_INSTALLED_PROFILES
#define SPX_INSTALLED_PROFILES ""
#endif

namespace spx::model {
namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// Profile files are named for the device's model: "NVIDIA H100 80GB HBM3" -> "h100".
std::string short_name(const std::string& device_name) {
  std::istringstream in(device_name);
  std::string word;
  while (in >> word) {
    if (word == "NVIDIA" || word == "Tesla" || word == "GeForce") continue;
    std::string lower;
    for (char c : word) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower;
  }
  return {};
}

constexpr FieldBounds kCoefficient{0, 1e6};    // per term, us per unit of the term
constexpr FieldBounds kColsDense{0, 1 << 24};  // L of SpMM; 0: SpMV
constexpr FieldBounds kSamples{0, 1e9};
constexpr FieldBounds kFitError{0, 1e6};  // a fraction

}  // namespace

std::string to_json(const Profile& p) {
  json fits = json::array();
  for (const KernelFit& f : p.fits) {
    json coef = json::object();
    for (int i = 0; i < kTerms; ++i)
      coef[kTermNames[static_cast<std::size_t>(i)]] = f.coef[static_cast<std::size_t>(i)];
    fits.push_back({{"kernel", f.key.kernel},
                    {"precision", f.key.value_bytes == 4 ? "f32" : "f64"},
                    {"cols_dense", f.key.cols_dense},
                    {"coef", coef},
                    {"samples", f.samples},
                    {"mean_abs_error", f.mean_abs_error},
                    {"max_abs_error", f.max_abs_error}});
  }
  const DeviceBasics& d = p.device;
  json doc = {{"device",
               {{"name", d.name},
                {"sm_count", d.sm_count},
                {"threads_per_sm", d.threads_per_sm},
                {"blocks_per_sm", d.blocks_per_sm},
                {"l2_bytes", d.l2_bytes},
                {"copy_gbs", d.copy_gbs},
                {"l2_gbs", d.l2_gbs}}},
              {"commit", p.commit},
              {"date", p.date},
              {"terms", kTermNames},
              {"fits", fits}};
  return doc.dump(1) + "\n";
}

Profile profile_from_json(const std::string& text, const std::string& source) {
  try {
    const json doc = json::parse(text);
    Profile p;
    p.device = device_from_json(doc.at("device"), DeviceFields::AllRequired);
    p.commit = doc.value("commit", "");
    p.date = doc.value("date", "");
    const json& fits = doc.at("fits");
    if (!fits.is_array()) throw Error("fits is not an array");
    for (std::size_t index = 0; index < fits.size(); ++index) {
      const json& f = fits[index];
      const std::string at = fmt::format("fits[{}]", index);
      KernelFit k;
      k.key.kernel = f.at("kernel").get<std::string>();
      plan::check_model_key(k.key.kernel, "fits");
      const std::string prec = f.at("precision").get<std::string>();
      if (prec != "f32" && prec != "f64")
        throw Error(fmt::format("{}.precision '{}' is not f32 or f64", at, prec));
      k.key.value_bytes = prec == "f32" ? 4 : 8;
      k.key.cols_dense = integer_field<int64_t>(f, at + ".cols_dense", "cols_dense", kColsDense);
      const json& coef = f.at("coef");
      for (int i = 0; i < kTerms; ++i) {
        const std::string term(kTermNames[static_cast<std::size_t>(i)]);
        k.coef[static_cast<std::size_t>(i)] = real_field(coef, at + ".coef." + term, term, kCoefficient);
      }
      if (f.contains("samples")) k.samples = integer_field<int>(f, at + ".samples", "samples", kSamples);
      if (f.contains("mean_abs_error"))
        k.mean_abs_error = real_field(f, at + ".mean_abs_error", "mean_abs_error", kFitError);
      if (f.contains("max_abs_error"))
        k.max_abs_error = real_field(f, at + ".max_abs_error", "max_abs_error", kFitError);
      p.fits.push_back(k);
    }
    return p;
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", source, e.what()));
  } catch (const std::exception& e) {
    throw Error(fmt::format("{}: not a model profile: {}", source, e.what()));
  }
}

Profile load_profile(const std::string& path) {
  // The library's one file reader: its errors name the path and the cause; a .gz profile works too.
  const io::TextBuffer text = io::read_text_file(path);
  return profile_from_json(std::string(text.view()), path);
}

std::optional<std::string> find_profile(const std::string& device_name) {
  const std::string name = short_name(device_name);
  if (name.empty()) return std::nullopt;
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("SPX_PROFILES"); env != nullptr && *env != '\0') dirs.emplace_back(env);
  for (const char* d : {SPX_SOURCE_PROFILES, SPX_INSTALLED_PROFILES})
    if (*d != '\0') dirs.emplace_back(d);
  for (const std::string& dir : dirs) {
    const fs::path file = fs::path(dir) / (name + ".json");
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) return file.string();
  }
  return std::nullopt;
}

}  // namespace spx::model
