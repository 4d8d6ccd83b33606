// The tuning cache (spx/plan.hpp): plans keyed by structure fingerprint, device, precision,
// operation, L and layout, in a JSON file the user names, so the next run starts tuned.
//
// Failure never reaches the product: a cache that cannot be read is empty, one that cannot be written
// stays in memory, each with a one-line warning naming the file and the OS or parse reason.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <new>
#include <string>
#include <system_error>
#include <utility>

#include "plan/tuning_cache_file.hpp"
#include "plan/tuning_cache_format.hpp"
#include "plan/tuning_cache_registry.hpp"
#include "spx/error.hpp"
#include "spx/plan.hpp"

namespace spx::plan {

namespace {

// How long save() waits for another writer's lock before giving up (with a warning). A save holds
// it for milliseconds (a 100k-plan file: about a second), so only a stuck process reaches this.
constexpr double kLockTimeoutS = 10.0;

// Keeps a file that is not a tuning cache as PATH.corrupt-PID before save() replaces it.
void keep_corrupt(const std::string& path) {
  const std::string backup = fmt::format("{}.corrupt-{}", path, ::getpid());
  std::error_code ec;
  std::filesystem::copy_file(path, backup, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec)
    detail::warn(fmt::format("{}: cannot keep the malformed tuning cache as {}: {}; replacing it anyway",
                             path, backup, ec.message()));
}

}  // namespace

std::string CacheKey::str() const {
  return fmt::format("{} f{} L={} {} {} {:016x}", op == Operation::Spmv ? "spmv" : "spmm", value_bytes * 8,
                     cols_dense, layout == DenseLayout::RowMajor ? "row" : "col", device, fingerprint);
}

TuningCache::TuningCache(std::string path) : path_(std::move(path)) {}

const TuningCache::Entries& TuningCache::loaded() const {
  if (!loaded_)
    loaded_ = path_.empty() ? std::make_shared<const Entries>() : detail::load_tuning_cache(path_);
  return *loaded_;
}

std::optional<CacheEntry> TuningCache::find(const CacheKey& key) const {
  const std::string k = key.str();
  if (const auto it = puts_.find(k); it != puts_.end()) return it->second;
  const Entries& file = loaded();
  if (const auto it = file.find(k); it != file.end()) return it->second;
  return std::nullopt;
}

std::size_t TuningCache::size() const {
  std::size_t n = loaded().size();
  for (const auto& kv : puts_) n += loaded().count(kv.first) == 0 ? 1 : 0;
  return n;
}

void TuningCache::put(const CacheKey& key, CacheEntry entry) {
  if (const std::string why = detail::invalid_reason(entry); !why.empty()) {
    detail::warn(fmt::format("tuning cache entry '{}' not stored: {}", key.str(), why));
    return;
  }
  if (entry.date.empty()) {
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    entry.date = buf;
  }
  puts_.insert_or_assign(key.str(), std::move(entry));
}

bool TuningCache::save() const {
  if (path_.empty() || puts_.empty()) return true;
  try {
    // Read-merge-write under the lock: what other processes saved since this one read is kept.
    detail::FileLock lock(path_, kLockTimeoutS);
    detail::CacheEntries merged;
    if (auto file = detail::read_file(path_)) {
      detail::ParsedCache parsed =
          detail::parse_with_warnings(path_, file->text, "replacing it by a new cache (the old one is kept)");
      if (!parsed.error.empty()) keep_corrupt(path_);
      merged = std::move(parsed.entries);
    }
    for (const auto& [k, e] : puts_) merged.insert_or_assign(k, e);  // this writer's plans win
    auto entries = std::make_shared<const detail::CacheEntries>(std::move(merged));
    const detail::FileId id = detail::replace_file(path_, detail::format_tuning_cache(*entries));
    detail::remember_tuning_cache(path_, id, entries);
    loaded_ = std::move(entries);
    return true;
  } catch (const Error& e) {
    detail::warn(fmt::format("tuning cache not saved (the plan is used for this run only): {}", e.what()));
  } catch (const std::bad_alloc&) {
    detail::warn(fmt::format("{}: tuning cache not saved: out of memory", path_));
  } catch (const std::exception& e) {  // none expected: a cache must never fail a product
    detail::warn(fmt::format("{}: tuning cache not saved: {}", path_, e.what()));
  }
  return false;
}

std::string cache_path(const Options& o) {
  if (o.tuning_cache == "-") return {};
  if (!o.tuning_cache.empty()) return o.tuning_cache;
  const char* env = std::getenv("SPX_TUNING_CACHE");
  return env != nullptr ? std::string(env) : std::string();
}

}  // namespace spx::plan
