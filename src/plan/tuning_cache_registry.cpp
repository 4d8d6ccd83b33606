// The process-wide registry of loaded tuning caches (tuning_cache_registry.hpp).
#include "plan/tuning_cache_registry.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>

#include "spx/error.hpp"

namespace spx::plan::detail {

namespace {

struct Snapshot {
  FileId id;
  std::shared_ptr<const CacheEntries> entries;
};

struct Registry {
  std::mutex mutex;
  std::unordered_map<std::string, Snapshot> by_path;
  std::atomic<std::size_t> parses{0};
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: usable from other static destructors
  return *r;
}

const std::shared_ptr<const CacheEntries>& no_entries() {
  static const auto empty = std::make_shared<const CacheEntries>();
  return empty;
}

}  // namespace

void warn(std::string_view message) {
  fmt::print(stderr, "spx: warning: {}\n", message);
  std::fflush(stderr);
}

ParsedCache parse_with_warnings(const std::string& path, std::string_view text, std::string_view when) {
  registry().parses.fetch_add(1);
  ParsedCache parsed = parse_tuning_cache(text);
  if (!parsed.error.empty())
    warn(fmt::format("{}: not a tuning cache ({}); {}", path, parsed.error, when));
  else if (parsed.skipped > 0)
    warn(fmt::format("{}: {} invalid tuning cache entr{} skipped (first: {})", path, parsed.skipped,
                     parsed.skipped == 1 ? "y" : "ies", parsed.first_skipped));
  return parsed;
}

std::shared_ptr<const CacheEntries> load_tuning_cache(const std::string& path) {
  Registry& r = registry();
  std::optional<FileId> now;
  try {
    now = file_id(path);
    if (!now) return no_entries();
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      const auto it = r.by_path.find(path);
      if (it != r.by_path.end() && it->second.id == *now) return it->second.entries;
    }
    // Parsed outside the lock: other files' users need not wait for a large file.
    auto file = read_file(path);
    if (!file) return no_entries();
    ParsedCache parsed = parse_with_warnings(
        path, file->text,
        fmt::format("using no cached plans (the next save keeps it as {}.corrupt-PID and starts anew)",
                    path));
    auto entries = std::make_shared<const CacheEntries>(std::move(parsed.entries));
    remember_tuning_cache(path, file->id, entries);
    return entries;
  } catch (const Error& e) {
    warn(fmt::format("{}; using no cached plans", e.what()));
  } catch (const std::bad_alloc&) {
    warn(fmt::format("{}: out of memory reading the tuning cache; using no cached plans", path));
  } catch (const std::exception& e) {  // none expected: a cache must never fail a plan
    warn(fmt::format("{}: {}; using no cached plans", path, e.what()));
  }
  // Remembered as empty, so the warning is not repeated for every plan until the file changes.
  if (now) remember_tuning_cache(path, *now, no_entries());
  return no_entries();
}

void remember_tuning_cache(const std::string& path, const FileId& id, std::shared_ptr<const CacheEntries> e) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.by_path[path] = Snapshot{id, std::move(e)};
}

std::size_t tuning_cache_parses() { return registry().parses.load(); }

}  // namespace spx::plan::detail
