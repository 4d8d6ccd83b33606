// Pieces the DGEMM study tools share (spx_gemm_grid, spx_gemm_configs): random operands made on the
// device, the largest difference of two results (reduced on the device) and the bound it is checked
// against, a warm-up that brings the clocks up before the first timed shape (an idle H100 sits at a
// few hundred MHz, and the first shape of a run was timed up to 1.5x slow for cuBLAS and spx alike),
// and the timing of a kernel beside cuBLAS: in one round (time_pair) or call by call
// (time_interleaved).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "common/median.hpp"
#include "cuda/common/check.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::bench_gemm {

// x[i] uniform in [-1, 1), a hash of (i, seed): the same operands on every run.
__global__ void fill_uniform(double* x, int64_t count, uint64_t seed) {
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    uint64_t h = (static_cast<uint64_t>(i) + seed) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    x[i] = static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
}

inline void fill(cuda::Context& ctx, double* x, int64_t count, uint64_t seed) {
  fill_uniform<<<1024, 256, 0, ctx.stream()>>>(x, count, seed);
}

// out[0] = max |a - b| as bits (non-negative doubles order like their bit patterns); NaN counts as inf.
__global__ void max_diff_bits(const double* a, const double* b, int64_t count, unsigned long long* out) {
  double worst = 0;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    const double d = fabs(a[i] - b[i]);
    worst = d != d ? INFINITY : fmax(worst, d);
  }
  atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(worst)));
}

// max |a - b| over count doubles on the device, on the context's stream (8 bytes come back).
inline double max_abs_diff(cuda::Context& ctx, const double* a, const double* b, int64_t count) {
  cuda::DeviceBuffer<unsigned long long> bits(1, "max diff");
  SPX_CUDA_CHECK(cudaMemsetAsync(bits.data(), 0, sizeof(unsigned long long), ctx.stream()));
  max_diff_bits<<<1024, 256, 0, ctx.stream()>>>(a, b, count, bits.data());
  unsigned long long host = 0;
  SPX_CUDA_CHECK(cudaMemcpyAsync(&host, bits.data(), sizeof host, cudaMemcpyDeviceToHost, ctx.stream()));
  ctx.synchronize();
  double worst;
  std::memcpy(&worst, &host, sizeof worst);
  return worst;
}

// The largest |spx - cuBLAS| a correct product of operands in [-1, 1] may show: both results' worst
// rounding error, 4 (k + 3) u k.
inline double check_bound(int64_t k) {
  const double kd = static_cast<double>(k);
  return 4.0 * (kd + 3.0) * 1.1102230246251565e-16 * kd;
}

// One round's timing of cuBLAS and another kernel, medians in ms {cuBLAS, kernel}: cuBLAS first in
// even rounds, the kernel first in odd ones, so that neither always runs right after the other
// (the clock follows the power the previous kernel drew).
template <class Cublas, class Kernel>
std::pair<double, double> time_pair(cuda::Context& ctx, const cuda::TimingOptions& options, int round,
                                    Cublas&& cublas, Kernel&& kernel) {
  const auto time = [&](auto& f) { return cuda::time_kernel(ctx, f, options).median_ms; };
  if (round % 2 == 0) {
    const double c = time(cublas);
    return {c, time(kernel)};
  }
  const double x = time(kernel);
  return {time(cublas), x};
}

// cuBLAS and the kernel launched alternately, one call each at a time (which goes first alternating
// per pair), each call between its own events: both see the same clocks, power and memory state,
// whatever the previous call drew (the H100 under its power cap moves between 1.5 and 2 GHz over
// tens of milliseconds, and two timings of one cuBLAS kernel a round apart differed by up to 20%).
// Pairs are enqueued in batches between host waits: min_runs first, then enough for min_seconds at
// the mean so far (at most 16 a batch). Medians in ms of each, and the median of the pairs' ratios
// (cuBLAS / kernel: the kernel's speed over cuBLAS's).
struct Interleaved {
  double cublas_ms = 0, kernel_ms = 0, ratio = 0;
  int pairs = 0;
};
template <class Cublas, class Kernel>
Interleaved time_interleaved(cuda::Context& ctx, const cuda::TimingOptions& options, Cublas&& cublas,
                             Kernel&& kernel) {
  for (int i = 0; i < options.warmup; ++i) {
    cublas();
    kernel();
  }
  constexpr int kMaxBatch = 16;
  std::vector<cuda::Event> events(3 * kMaxBatch);
  std::vector<double> c, x, r;
  double total_ms = 0;
  int batch = std::clamp(options.min_runs, 1, kMaxBatch);
  while (static_cast<int>(c.size()) < options.max_runs &&
         (static_cast<int>(c.size()) < options.min_runs || total_ms < 1e3 * options.min_seconds)) {
    for (int p = 0; p < batch; ++p) {
      const bool cublas_first = (c.size() + static_cast<std::size_t>(p)) % 2 == 0;
      events[3 * p].record(ctx.stream());
      cublas_first ? cublas() : kernel();
      events[3 * p + 1].record(ctx.stream());
      cublas_first ? kernel() : cublas();
      events[3 * p + 2].record(ctx.stream());
    }
    events[3 * batch - 1].synchronize();
    const std::size_t done = c.size();
    for (int p = 0; p < batch; ++p) {
      const double first = cuda::elapsed_ms(events[3 * p], events[3 * p + 1]);
      const double second = cuda::elapsed_ms(events[3 * p + 1], events[3 * p + 2]);
      const bool cublas_first = (done + static_cast<std::size_t>(p)) % 2 == 0;
      c.push_back(cublas_first ? first : second);
      x.push_back(cublas_first ? second : first);
      r.push_back(c.back() / x.back());
      total_ms += first + second;
    }
    const double pair_ms = std::max(total_ms / static_cast<double>(c.size()), 1e-4);
    batch = static_cast<int>(std::clamp((1e3 * options.min_seconds - total_ms) / pair_ms + 1.0, 1.0,
                                        static_cast<double>(kMaxBatch)));
  }
  return {spx::median(c), spx::median(x), spx::median(r), static_cast<int>(c.size())};
}

// About `seconds` of cuBLAS DGEMM at 4096^3: the clocks and the power cap settle before timing.
inline void warm_up(cuda::Context& ctx, double seconds = 0.5) {
  constexpr int64_t n = 4096;
  cuda::DeviceBuffer<double> a(static_cast<std::size_t>(n * n), "warm-up A"),
      c(static_cast<std::size_t>(n * n), "warm-up C");
  fill(ctx, a.data(), n * n, 3);
  cuda::CublasGemm<double> g(ctx, Op::N, Op::N, n, n, n, 1.0, a.data(), n, a.data(), n, 0.0, c.data(), n);
  cuda::time_kernel(
      ctx, [&] { g.run(); }, 1, 10, seconds);
}

}  // namespace spx::bench_gemm
