// The device profiles of the performance model as the commands name them: one reading of
// --profile for every command that takes it (spx plan show/validate, spx model predict), so a name
// one accepts the others accept too.
#pragma once

#include <string>
#include <vector>

#include "spx/model.hpp"

namespace spx::cli {

// The profile used where no GPU says which one to take (spx plan, spx model predict without a GPU).
inline constexpr const char* kDefaultProfileDevice = "NVIDIA H100 80GB HBM3";

struct NamedProfile {
  model::Profile profile;
  std::string path;  // the file it was read from
};

// `given` is a profile file (an existing path, or a name ending in .json / .json.gz) or the device
// name of a committed profile, whole or short ("NVIDIA H200", "h200"; spx::model::find_profile).
// An unknown name is an error listing the committed profiles.
NamedProfile load_named_profile(const std::string& given);

// The short names of the committed profiles ("h100", "h200"), sorted: those in $SPX_PROFILES and
// in the folder the default profile is found in.
std::vector<std::string> committed_profile_names();

}  // namespace spx::cli
