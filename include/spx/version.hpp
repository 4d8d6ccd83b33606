#pragma once

namespace spx {
inline constexpr int kVersionMajor = 0;
inline constexpr int kVersionMinor = 1;
inline constexpr int kVersionPatch = 0;
inline constexpr const char* kVersionString = "0.1.0";
/// True when this build of the library includes the CUDA backend.
bool built_with_cuda();
}  // namespace spx
