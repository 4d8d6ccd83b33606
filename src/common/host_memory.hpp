// Memory the host can still give this process: /proc/meminfo's MemAvailable (free memory plus the
// page cache the kernel can reclaim). Refusals name it ("needs about 12 GiB, 3.1 GiB available")
// instead of letting the OOM killer end the process halfway through.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace spx::detail {

// Bytes; 0 when unknown (no /proc/meminfo): callers then skip their check.
inline uint64_t host_memory_available() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    uint64_t kib = 0;
    if (fields >> kib) return kib * 1024;
  }
  return 0;
}

}  // namespace spx::detail
