#include "bench/host_device.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "spx/threads.hpp"

namespace spx::bench {

std::string host_cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      std::size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::size_t start = line.find_first_not_of(' ', colon + 1);
        if (start != std::string::npos) return line.substr(start);
      }
    }
  }
  return "unknown CPU";
}

int64_t host_last_level_cache_bytes() {
  int64_t best = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream size_file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string text;
    if (!(size_file >> text) || text.empty()) continue;
    int64_t multiplier = 1;
    if (text.back() == 'K') multiplier = int64_t{1} << 10;
    if (text.back() == 'M') multiplier = int64_t{1} << 20;
    if (multiplier != 1) text.pop_back();
    try {
      best = std::max<int64_t>(best, std::stoll(text) * multiplier);
    } catch (const std::exception&) {
      // an unreadable size just leaves the cache unknown
    }
  }
  return best;
}

int host_threads() { return omp_get_max_threads(); }

void set_host_threads(int n) { spx::omp::set_threads(n); }

double measure_host_copy_gbs() {
  // Four times the last-level cache (at least 64 MiB) so the copy streams from memory.
  std::size_t bytes =
      static_cast<std::size_t>(std::max<int64_t>(4 * host_last_level_cache_bytes(), int64_t{64} << 20));
  bytes = std::min<std::size_t>(bytes, std::size_t{512} << 20);
  std::vector<char> src(bytes), dst(bytes);
  const int threads = host_threads();
  // Each thread touches and copies its own chunk, so pages land near the thread that copies them.
  auto copy_once = [&](bool fill) {
#pragma omp parallel num_threads(threads)
    {
      const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t n = static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t begin = bytes * t / n, end = bytes * (t + 1) / n;
      if (fill) {
        std::memset(src.data() + begin, 1, end - begin);
        std::memset(dst.data() + begin, 0, end - begin);
      }
      std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
    }
  };
  copy_once(true);
  double best_seconds = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    auto start = std::chrono::steady_clock::now();
    copy_once(false);
    auto stop = std::chrono::steady_clock::now();
    best_seconds = std::min(best_seconds, std::chrono::duration<double>(stop - start).count());
  }
  return 2.0 * static_cast<double>(bytes) / best_seconds / 1e9;
}

model::DeviceBasics describe_host() {
  model::DeviceBasics info;
  info.name = host_cpu_name();
  info.sm_count = host_threads();
  info.l2_bytes = host_last_level_cache_bytes();
  info.copy_gbs = measure_host_copy_gbs();
  return info;
}

}  // namespace spx::bench
