// libFuzzer harness: the JSON inputs a user hands spx — device profiles (model::profile_from_json)
// and the tuning cache (plan::TuningCache, read from a file). The first byte picks the loader.
// spx::Error is the only acceptable failure (fuzz_support.hpp); a profile the loader accepts must
// also survive its own round trip (to_json, then profile_from_json).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"

namespace {

void profile(std::string_view text) {
  spx::model::Profile p;
  try {
    p = spx::model::profile_from_json(std::string(text), "fuzz");
  } catch (const spx::Error&) {
    return;
  }
  try {
    (void)spx::model::profile_from_json(spx::model::to_json(p), "round trip");
  } catch (const spx::Error& e) {
    std::fprintf(stderr, "an accepted profile does not survive its round trip: %s\n", e.what());
    std::abort();
  }
}

void tuning_cache(std::string_view text) {
  const spx::fuzz::TempFile file(text, ".json");
  try {
    const spx::plan::TuningCache cache(file.path());
    (void)cache.size();
  } catch (const spx::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view text = spx::fuzz::as_text(data + 1, size - 1);
  if (data[0] % 2 == 0)
    profile(text);
  else
    tuning_cache(text);
  return 0;
}
