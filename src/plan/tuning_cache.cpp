// The tuning cache (spx/plan.hpp): plans keyed by structure fingerprint, device, precision,
// operation, L and layout, in a JSON file the user names, so the next run starts tuned.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <utility>

#include "io/text_file.hpp"
#include "spx/error.hpp"
#include "spx/plan.hpp"

namespace spx::plan {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::string CacheKey::str() const {
  return fmt::format("{} f{} L={} {} {} {:016x}", op == Operation::Spmv ? "spmv" : "spmm", value_bytes * 8,
                     cols_dense, layout == DenseLayout::RowMajor ? "row" : "col", device, fingerprint);
}

TuningCache::TuningCache(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  if (path_.empty() || !fs::exists(path_, ec)) return;
  const io::TextBuffer text = io::read_text_file(path_);
  try {
    const json doc = json::parse(text.view());
    if (!doc.is_object() || !doc.contains("plans") || !doc["plans"].is_object())
      throw Error("no \"plans\" object");
    for (const auto& [key, v] : doc["plans"].items()) {
      CacheEntry e;
      e.kernel = v.at("kernel").get<std::string>();
      const json knobs = v.value("knobs", json::object());  // items() needs a living object
      for (const auto& [name, value] : knobs.items()) e.knobs.emplace_back(name, value.get<int64_t>());
      e.us = v.value("us", 0.0);
      e.decided_by = v.value("decided_by", std::string());
      e.date = v.value("date", std::string());
      entries_[key] = std::move(e);
    }
  } catch (const std::exception& e) {
    throw Error(fmt::format("{}: not a tuning cache: {}", path_, e.what()));
  }
}

std::optional<CacheEntry> TuningCache::find(const CacheKey& key) const {
  const auto it = entries_.find(key.str());
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void TuningCache::put(const CacheKey& key, CacheEntry entry) {
  if (entry.date.empty()) {
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    entry.date = buf;
  }
  entries_[key.str()] = std::move(entry);
}

void TuningCache::save() const {
  if (path_.empty()) return;
  json plans = json::object();
  for (const auto& [key, e] : entries_) {
    json knobs = json::object();
    for (const auto& [name, value] : e.knobs) knobs[name] = value;
    plans[key] = {
        {"kernel", e.kernel}, {"knobs", knobs}, {"us", e.us}, {"decided_by", e.decided_by}, {"date", e.date}};
  }
  const json doc = {{"spx_tuning_cache", 1}, {"plans", plans}};
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw Error(fmt::format("{}: cannot write the tuning cache", tmp));
    out << doc.dump(2) << '\n';
    if (!out) throw Error(fmt::format("{}: write failed", tmp));
  }
  std::error_code ec;
  fs::rename(tmp, path_, ec);
  if (ec) throw Error(fmt::format("{}: cannot replace the tuning cache: {}", path_, ec.message()));
}

std::string cache_path(const Options& o) {
  if (o.tuning_cache == "-") return {};
  if (!o.tuning_cache.empty()) return o.tuning_cache;
  const char* env = std::getenv("SPX_TUNING_CACHE");
  return env != nullptr ? std::string(env) : std::string();
}

}  // namespace spx::plan
