// MatrixFeatures (spx/features.hpp) in the benchmark JSON's "matrices" list, and back: the bench
// output is the performance model's training and validation data.
#pragma once

#include <nlohmann/json.hpp>

#include "spx/features.hpp"

namespace spx::bench {

nlohmann::ordered_json to_json(const MatrixFeatures& f);
// Throws spx::Error naming the missing or malformed field.
MatrixFeatures features_from_json(const nlohmann::ordered_json& j);

}  // namespace spx::bench
