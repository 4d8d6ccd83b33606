// The achievable-bandwidth denominator of every GB/s spx reports: measured, not the datasheet
// figure (an H100 copies at about 3.0 TB/s of its 3.35 TB/s datasheet bandwidth, per the device notes).
#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

// 16 bytes per thread per iteration, grid-stride: the widest loads and stores there are, with
// a resident grid so every SM keeps many requests in flight.
__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, int64_t n) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

}  // namespace

CopyBandwidth measure_copy_bandwidth(Context& ctx, std::size_t bytes) {
  if (bytes == 0) {
    std::size_t free_bytes = 0, total_bytes = 0;
    SPX_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4);
  }
  bytes = bytes / 16 * 16;
  if (bytes < (std::size_t{1} << 20))
    throw Error("measure_copy_bandwidth: " + std::to_string(bytes) +
                " bytes is too small to measure (need 1 MiB)");
  DeviceBuffer<int4> src(bytes / 16, "copy-bandwidth source"), dst(bytes / 16, "copy-bandwidth destination");
  // Never time zeros or uninitialised memory: fill the source with a non-zero pattern.
  SPX_CUDA_CHECK(cudaMemsetAsync(src.data(), 0x5a, bytes, ctx.stream()));

  TimingOptions options;
  options.warmup = 2;
  options.min_runs = 10;
  options.min_seconds = 0.05;
  const Timing memcpy_time = time_kernel(
      ctx, [&] { copy_device_to_device_async(ctx, dst.data(), src.data(), bytes); }, options);
  const auto n = static_cast<int64_t>(src.size());
  constexpr int kBlock = 256;
  const unsigned grid = grid_for_resident(ctx, n, kBlock, ctx.props().max_threads_per_sm / kBlock);
  const Timing kernel_time = time_kernel(
      ctx,
      [&] {
        copy_kernel<<<grid, kBlock, 0, ctx.stream()>>>(src.data(), dst.data(), n);
        SPX_CHECK_LAUNCH("copy_kernel", ctx.stream());
      },
      options);

  CopyBandwidth bw;
  bw.bytes = bytes;
  const double moved = 2.0 * static_cast<double>(bytes);  // read + written
  bw.memcpy_gbs = moved / (memcpy_time.median_ms * 1e-3) / 1e9;
  bw.kernel_gbs = moved / (kernel_time.median_ms * 1e-3) / 1e9;
  bw.gbs = std::max(bw.memcpy_gbs, bw.kernel_gbs);
  bw.ms_median = std::min(memcpy_time.median_ms, kernel_time.median_ms);
  return bw;
}

}  // namespace spx::cuda
