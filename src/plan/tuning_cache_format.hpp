// The tuning cache's file format: parsing a file's text into entries (each entry validated, a bad
// one skipped and counted, never fatal) and writing entries back as text. Internal to src/plan.
//
// The format: {"spx_tuning_cache": 1, "plans": {KEY: {"kernel": "...", "knobs": {"name": int, ...},
// "us": number, "decided_by": "...", "date": "..."}, ...}}, one plan a line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

#include "spx/plan.hpp"

namespace spx::plan::detail {

using CacheEntries = std::unordered_map<std::string, CacheEntry>;

struct ParsedCache {
  CacheEntries entries;
  std::string error;          // why the text is not a tuning cache ("" when it is); entries then empty
  std::size_t skipped = 0;    // entries left out because they were invalid
  std::string first_skipped;  // "key 'K': why", of the first one left out
};

// Parses a tuning cache's text. Empty or whitespace-only text is an empty cache. Never throws for
// bad text (only std::bad_alloc).
ParsedCache parse_tuning_cache(std::string_view text);

// Why an entry may not be stored ("" when it may): the kernel is a non-empty string, us finite and
// >= 0. (Knob values are int64_t by type; the parser checks their range.)
std::string invalid_reason(const CacheEntry& e);

// The text of a cache holding `entries`, keys sorted so the file diffs well.
std::string format_tuning_cache(const CacheEntries& entries);

}  // namespace spx::plan::detail
