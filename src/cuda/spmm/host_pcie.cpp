// The PCIe denominator of the host-resident SpMM: pinned host<->device copy bandwidth, each direction
// alone and both at once (Algorithm 3 runs H2D of one chunk while D2H of another is in flight), and
// the PCIe-bound time of a run (docs/spmm-streaming.md).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "cuda/common/check.hpp"
#include "spx/cuda/spmm_host.hpp"

namespace spx::cuda {

namespace {

struct StreamPair {
  cudaStream_t s[2] = {nullptr, nullptr};
  cudaEvent_t e[4] = {nullptr, nullptr, nullptr, nullptr};
  StreamPair() {
    for (auto& x : s) SPX_CUDA_CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    for (auto& x : e) SPX_CUDA_CHECK(cudaEventCreate(&x));
  }
  ~StreamPair() {
    for (auto x : s)
      if (x != nullptr) cudaStreamDestroy(x);
    for (auto x : e)
      if (x != nullptr) cudaEventDestroy(x);
  }
  StreamPair(const StreamPair&) = delete;
  StreamPair& operator=(const StreamPair&) = delete;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double gbs(std::size_t bytes, float ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0.0; }

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

  StreamPair p;
  const auto h2d = [&](cudaStream_t s) {
    SPX_CUDA_CHECK(cudaMemcpyAsync(dev_in.data(), host_in.data(), bytes, cudaMemcpyHostToDevice, s));
  };
  const auto d2h = [&](cudaStream_t s) {
    SPX_CUDA_CHECK(cudaMemcpyAsync(host_out.data(), dev_out.data(), bytes, cudaMemcpyDeviceToHost, s));
  };
  std::vector<double> up, down, up_c, down_c;
  for (int rep = 0; rep < 6; ++rep) {  // the first round warms up and is dropped
    float ms = 0;
    SPX_CUDA_CHECK(cudaEventRecord(p.e[0], p.s[0]));
    h2d(p.s[0]);
    SPX_CUDA_CHECK(cudaEventRecord(p.e[1], p.s[0]));
    SPX_CUDA_CHECK(cudaEventSynchronize(p.e[1]));
    SPX_CUDA_CHECK(cudaEventElapsedTime(&ms, p.e[0], p.e[1]));
    if (rep > 0) up.push_back(gbs(bytes, ms));

    SPX_CUDA_CHECK(cudaEventRecord(p.e[0], p.s[0]));
    d2h(p.s[0]);
    SPX_CUDA_CHECK(cudaEventRecord(p.e[1], p.s[0]));
    SPX_CUDA_CHECK(cudaEventSynchronize(p.e[1]));
    SPX_CUDA_CHECK(cudaEventElapsedTime(&ms, p.e[0], p.e[1]));
    if (rep > 0) down.push_back(gbs(bytes, ms));

    // Both directions at once, each on its own stream and timed by its own events.
    SPX_CUDA_CHECK(cudaEventRecord(p.e[0], p.s[0]));
    SPX_CUDA_CHECK(cudaEventRecord(p.e[2], p.s[1]));
    h2d(p.s[0]);
    d2h(p.s[1]);
    SPX_CUDA_CHECK(cudaEventRecord(p.e[1], p.s[0]));
    SPX_CUDA_CHECK(cudaEventRecord(p.e[3], p.s[1]));
    SPX_CUDA_CHECK(cudaEventSynchronize(p.e[1]));
    SPX_CUDA_CHECK(cudaEventSynchronize(p.e[3]));
    float ms_up = 0, ms_down = 0;
    SPX_CUDA_CHECK(cudaEventElapsedTime(&ms_up, p.e[0], p.e[1]));
    SPX_CUDA_CHECK(cudaEventElapsedTime(&ms_down, p.e[2], p.e[3]));
    if (rep > 0) {
      up_c.push_back(gbs(bytes, ms_up));
      down_c.push_back(gbs(bytes, ms_down));
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
