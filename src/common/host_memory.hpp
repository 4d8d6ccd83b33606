// Host memory free now, and the check every size-from-input allocation makes first: a generator
// spec or a file that asks for more than the machine has gets one line naming the bytes it needs
// and the bytes available, instead of std::bad_alloc or the OOM killer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace spx::detail {

// /proc/meminfo MemAvailable in bytes; 0 when unknown (then nothing is refused).
uint64_t host_memory_available();

// "2.3 GiB", "512 B".
std::string bytes_text(double bytes);

// Throws spx::Error "WHAT needs about X of host memory, Y available" when `bytes` (a double, so
// sizes past 2^64 are said, not wrapped) exceed what is available.
void require_host_memory(double bytes, std::string_view what);

}  // namespace spx::detail
