// The CPU as a benchmark device: its name, threads, cache size and measured copy bandwidth.
#pragma once

#include <cstdint>
#include <string>

#include "bench/registry.hpp"

namespace spx::bench {

// Model name from /proc/cpuinfo ("unknown CPU" elsewhere).
std::string host_cpu_name();
// Size in bytes of the largest (last-level) data cache from /sys; 0 when unknown.
int64_t host_last_level_cache_bytes();
// OpenMP threads the CPU kernels use.
int host_threads();
// Sets the OpenMP thread count for the CPU kernels (spx::omp::set_threads: 1..its bound).
void set_host_threads(int n);

// Parallel memcpy bandwidth in GB/s (1e9 bytes; bytes read + bytes written, as STREAM counts),
// best of a few copies of a buffer several times the last-level cache, using host_threads().
double measure_host_copy_gbs();

// All of the above as the JSON's `device` object.
model::DeviceBasics describe_host();

}  // namespace spx::bench
