// The device-memory guard of the conversions and uploads: a size checked against what the device
// has free before anything is allocated, refused with the numbers.
#pragma once

#include <cstddef>
#include <string_view>

namespace spx::cuda::detail {

// spx::Error "<what>: needs N MiB of device memory, F MiB free of T MiB" when `needed` bytes are more
// than the device has free now.
void require_device_memory(std::size_t needed, std::string_view what);

}  // namespace spx::cuda::detail
