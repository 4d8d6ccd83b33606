#include "profiles.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "spx/error.hpp"

namespace spx::cli {

namespace fs = std::filesystem;

std::vector<std::string> committed_profile_names() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("SPX_PROFILES"); env != nullptr && *env != '\0') dirs.emplace_back(env);
  // The library searches the source tree's and the installed folders; the one it finds the default
  // profile in is where the committed profiles are.
  if (const std::optional<std::string> found = model::find_profile(kDefaultProfileDevice))
    dirs.push_back(fs::path(*found).parent_path());
  std::vector<std::string> names;
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      const std::string file = e.path().filename().string();
      if (e.is_regular_file(ec) && file.ends_with(".json")) names.push_back(file.substr(0, file.size() - 5));
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

NamedProfile load_named_profile(const std::string& given) {
  if (given.empty()) throw Error("--profile: empty name (give a profile file or a device name)");
  std::error_code ec;
  if (fs::exists(given, ec) || given.ends_with(".json") || given.ends_with(".json.gz"))
    return {model::load_profile(given), given};
  if (const std::optional<std::string> path = model::find_profile(given))
    return {model::load_profile(*path), *path};
  const std::vector<std::string> names = committed_profile_names();
  throw Error(fmt::format(
      "--profile {}: no such file and no committed profile for that device ({}; or give a "
      "profile file, e.g. from spx model calibrate)",
      given,
      names.empty() ? std::string("none found") : fmt::format("committed: {}", fmt::join(names, ", "))));
}

}  // namespace spx::cli
