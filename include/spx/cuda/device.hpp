// What CUDA devices this process can use. Callable in every build: without CUDA, or on a machine
// without a GPU, device_count() is 0 and gpu_unavailable_reason() says why.
#pragma once

#include <string>

namespace spx::cuda {

/// Number of usable CUDA devices (0 when built without CUDA or when no driver/device is present).
int device_count();
/// Empty when a device is usable; otherwise one line saying why not (for skip messages).
std::string gpu_unavailable_reason();

}  // namespace spx::cuda
