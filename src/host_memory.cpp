#include "common/host_memory.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string>

#include "spx/error.hpp"

namespace spx::detail {

uint64_t host_memory_available() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    uint64_t kib = 0;
    if (fields >> kib) return kib * 1024;
  }
  return 0;
}

std::string bytes_text(double bytes) {
  constexpr double kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024, kTiB = kGiB * 1024;
  if (bytes >= 1024 * kTiB) return fmt::format("{:.3g} TiB", bytes / kTiB);
  if (bytes >= kTiB) return fmt::format("{:.1f} TiB", bytes / kTiB);
  if (bytes >= kGiB) return fmt::format("{:.1f} GiB", bytes / kGiB);
  if (bytes >= kMiB) return fmt::format("{:.1f} MiB", bytes / kMiB);
  if (bytes >= kKiB) return fmt::format("{:.1f} KiB", bytes / kKiB);
  return fmt::format("{:.0f} B", bytes);
}

void require_host_memory(double bytes, std::string_view what) {
  const uint64_t available = host_memory_available();
  if (available == 0 || bytes <= static_cast<double>(available)) return;
  throw Error(fmt::format("{} needs about {} of host memory, {} available", what, bytes_text(bytes),
                          bytes_text(static_cast<double>(available))));
}

}  // namespace spx::detail
