// Host memory free now, and the check every size-from-input allocation makes first: a generator
// spec or a file that asks for more than the machine has gets one line naming the bytes it needs
// and the bytes available, instead of std::bad_alloc or the OOM killer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace spx::detail {

// Caps what spx may take of the host's memory, in bytes (unset: no cap of its own).
inline constexpr const char* kHostMemoryLimitVariable = "SPX_HOST_MEMORY_LIMIT";

// Bytes this process can still allocate: the smallest of /proc/meminfo's MemAvailable, the
// cgroup v2 limit left and $SPX_HOST_MEMORY_LIMIT; 0 when none is known (then nothing is refused).
// Throws spx::Error for a malformed $SPX_HOST_MEMORY_LIMIT.
uint64_t host_memory_available();

// "2.3 GiB", "512 B".
std::string bytes_text(double bytes);

// Throws spx::Error "WHAT needs about X of host memory, Y available" when `bytes` (a double, so
// sizes past 2^64 are said, not wrapped) exceed what is available.
void require_host_memory(double bytes, std::string_view what);

}  // namespace spx::detail
