// The PCIe denominator of the host-resident SpMM: pinned host<->device copy bandwidth, each direction
// alone and both at once (Algorithm 3 runs H2D of one chunk while D2H of another is in flight), and
// the PCIe-bound time of a run (docs/spmm-streaming.md).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "common/median.hpp"
#include "cuda/common/check.hpp"
#include "spx/cuda/spmm_host.hpp"
#include "spx/cuda/stream.hpp"

namespace spx::cuda {

namespace {

double gbs(std::size_t bytes, double ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0.0; }

}  // namespace

PcieBandwidth measure_pcie_bandwidth(Context& ctx, std::size_t bytes) {
  if (bytes == 0) {
    std::size_t free_bytes = 0, total_bytes = 0;
    SPX_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    bytes = std::min<std::size_t>(std::size_t{256} << 20, free_bytes / 8);
  }
  bytes = std::max<std::size_t>(bytes / 4096 * 4096, 4096);
  PinnedBuffer<unsigned char> host_in(bytes, "PCIe bandwidth test (host source)");
  PinnedBuffer<unsigned char> host_out(bytes, "PCIe bandwidth test (host destination)");
  DeviceBuffer<unsigned char> dev_in(bytes, "PCIe bandwidth test (device destination)");
  DeviceBuffer<unsigned char> dev_out(bytes, "PCIe bandwidth test (device source)");
  for (std::size_t i = 0; i < bytes; ++i) host_in.data()[i] = static_cast<unsigned char>(i * 131 + 7);
  SPX_CUDA_CHECK(
      cudaMemcpyAsync(dev_out.data(), host_in.data(), bytes, cudaMemcpyHostToDevice, ctx.stream()));
  ctx.synchronize();

  Stream lane[2];
  Event e[4];
  const auto h2d = [&](cudaStream_t s) {
    SPX_CUDA_CHECK(cudaMemcpyAsync(dev_in.data(), host_in.data(), bytes, cudaMemcpyHostToDevice, s));
  };
  const auto d2h = [&](cudaStream_t s) {
    SPX_CUDA_CHECK(cudaMemcpyAsync(host_out.data(), dev_out.data(), bytes, cudaMemcpyDeviceToHost, s));
  };
  std::vector<double> up, down, up_c, down_c;
  for (int rep = 0; rep < 6; ++rep) {  // the first round warms up and is dropped
    e[0].record(lane[0].get());
    h2d(lane[0].get());
    e[1].record(lane[0].get());
    e[1].synchronize();
    if (rep > 0) up.push_back(gbs(bytes, elapsed_ms(e[0], e[1])));

    e[0].record(lane[0].get());
    d2h(lane[0].get());
    e[1].record(lane[0].get());
    e[1].synchronize();
    if (rep > 0) down.push_back(gbs(bytes, elapsed_ms(e[0], e[1])));

    // Both directions at once, each on its own stream and timed by its own events.
    e[0].record(lane[0].get());
    e[2].record(lane[1].get());
    h2d(lane[0].get());
    d2h(lane[1].get());
    e[1].record(lane[0].get());
    e[3].record(lane[1].get());
    e[1].synchronize();
    e[3].synchronize();
    if (rep > 0) {
      up_c.push_back(gbs(bytes, elapsed_ms(e[0], e[1])));
      down_c.push_back(gbs(bytes, elapsed_ms(e[2], e[3])));
    }
  }
  PcieBandwidth bw;
  bw.bytes = bytes;
  bw.h2d_gbs = median(up);
  bw.d2h_gbs = median(down);
  bw.h2d_concurrent_gbs = median(up_c);
  bw.d2h_concurrent_gbs = median(down_c);
  return bw;
}

double pcie_bound_ms(const SpmmHostReport& report, const PcieBandwidth& bw) {
  const auto ms = [](uint64_t bytes, double gbs) {
    return gbs > 0 ? static_cast<double>(bytes) / (gbs * 1e6) : 0.0;
  };
  if (report.streams <= 1 || report.chunks <= 1)
    return ms(report.h2d_bytes, bw.h2d_gbs) + ms(report.d2h_bytes, bw.d2h_gbs);
  return std::max(ms(report.h2d_bytes, bw.h2d_concurrent_gbs), ms(report.d2h_bytes, bw.d2h_concurrent_gbs));
}

}  // namespace spx::cuda
