#include "common/host_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "spx/error.hpp"

namespace spx::detail {

namespace {

// /proc/meminfo MemAvailable (free memory plus the page cache the kernel can reclaim); 0 unknown.
uint64_t meminfo_available() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    uint64_t kib = 0;
    if (fields >> kib) return kib * 1024;
  }
  return 0;
}

// What this process's cgroup (v2) still allows: memory.max - memory.current; 0 when unlimited or
// unknown. A container's limit is often far below the host's MemAvailable, and the OOM killer
// answers to the cgroup.
uint64_t cgroup_available() {
  std::ifstream max_file("/sys/fs/cgroup/memory.max"), current_file("/sys/fs/cgroup/memory.current");
  std::string max_text;
  uint64_t current = 0;
  if (!(max_file >> max_text) || max_text == "max" || !(current_file >> current)) return 0;
  const uint64_t limit = std::strtoull(max_text.c_str(), nullptr, 10);
  return limit > current ? limit - current : 1;
}

// $SPX_HOST_MEMORY_LIMIT in bytes (a user's or a test's cap on what spx may take); 0 when unset.
uint64_t env_limit() {
  const char* text = std::getenv(kHostMemoryLimitVariable);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || v == 0 || text[0] == '-')
    throw Error(fmt::format("{}='{}': give a positive number of bytes", kHostMemoryLimitVariable, text));
  return v;
}

}  // namespace

uint64_t host_memory_available() {
  uint64_t available = 0;
  for (const uint64_t v : {meminfo_available(), cgroup_available(), env_limit()})
    if (v != 0) available = available == 0 ? v : std::min(available, v);
  return available;
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
