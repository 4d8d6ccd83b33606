// The process-wide registry of loaded tuning caches: each file parsed once, and again only when its
// identity (inode, size, times) changed, shared by every TuningCache of the process. Thread-safe.
// Internal to src/plan.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "plan/tuning_cache_file.hpp"
#include "plan/tuning_cache_format.hpp"

namespace spx::plan::detail {

// The entries of the cache file at `path` as it is now. Never throws for a bad file: a missing or
// empty one gives no entries; an unreadable or malformed one a warning (once per version of the
// file) and no entries; invalid entries a warning and the rest.
std::shared_ptr<const CacheEntries> load_tuning_cache(const std::string& path);

// Records what a save wrote, so this process does not parse its own file again.
void remember_tuning_cache(const std::string& path, const FileId& id, std::shared_ptr<const CacheEntries> e);

// Parses `text` of the file `path`, with the warnings load_tuning_cache promises; `when` ends them
// ("using no cached plans").
ParsedCache parse_with_warnings(const std::string& path, std::string_view text, std::string_view when);

// How many times this process has parsed a cache file (for tests of "only when it changed").
std::size_t tuning_cache_parses();

// "spx: warning: MESSAGE" on stderr, one line.
void warn(std::string_view message);

}  // namespace spx::plan::detail
