#include "spx/cuda/context.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuda/common/check.hpp"
#include "cuda/common/format_bytes.hpp"
#include "spx/cuda/device.hpp"

namespace spx::cuda {

DeviceProps query_device(int device) {
  const int count = device_count();
  if (count == 0) throw Error(gpu_unavailable_reason());
  if (device < 0 || device >= count)
    throw Error(
        fmt::format("CUDA device {} does not exist: this machine has {} (0..{})", device, count, count - 1));
  cudaDeviceProp p{};
  SPX_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  DeviceProps d;
  d.name = p.name;
  d.device = device;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.warp_size = p.warpSize;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_warps_per_sm = p.maxThreadsPerMultiProcessor / p.warpSize;
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.regs_per_block = p.regsPerBlock;
  d.shared_mem_per_block = p.sharedMemPerBlock;
  d.shared_mem_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_mem_per_sm = p.sharedMemPerMultiprocessor;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.global_mem_bytes = p.totalGlobalMem;
  d.mem_bus_bits = p.memoryBusWidth;
  SPX_CUDA_CHECK(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, device));
  SPX_CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, device));
  return d;
}

std::string DeviceProps::summary() const {
  return fmt::format("{} (sm_{}{}, {} SMs, {} L2, {})", name, cc_major, cc_minor, sm_count,
                     format_bytes(l2_bytes), format_bytes(global_mem_bytes));
}

Context::Context(int device) : props_(query_device(device)) {
  SPX_CUDA_CHECK(cudaSetDevice(device));
  // Non-blocking: our work never waits on, or is waited on by, the legacy default stream.
  SPX_CUDA_CHECK(cudaStreamCreateWithFlags(&owned_stream_, cudaStreamNonBlocking));
  stream_ = owned_stream_;
}

Context::Context(int device, cudaStream_t external_stream) : props_(query_device(device)) {
  SPX_CUDA_CHECK(cudaSetDevice(device));
  stream_ = external_stream;
}

void Context::set_stream(cudaStream_t stream) {
  if (stream == stream_) return;
  if (handoff_ == nullptr) SPX_CUDA_CHECK(cudaEventCreateWithFlags(&handoff_, cudaEventDisableTiming));
  SPX_CUDA_CHECK(cudaEventRecord(handoff_, stream_));
  SPX_CUDA_CHECK(cudaStreamWaitEvent(stream, handoff_, 0));
  if (cusparse_ != nullptr) SPX_CUSPARSE_CHECK(cusparseSetStream(cusparse_, stream));
  if (cublas_ != nullptr) SPX_CUBLAS_CHECK(cublasSetStream(cublas_, stream));
  stream_ = stream;
}

Context::~Context() {
  // Destructors must not throw: statuses are dropped (the first failure was already reported).
  cudaStreamSynchronize(stream_);  // the legacy default stream (nullptr) too
  if (cusparse_ != nullptr) cusparseDestroy(cusparse_);
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  workspace_ = {};
  counters_ = {};
  l2_flush_ = {};
  if (handoff_ != nullptr) cudaEventDestroy(handoff_);
  if (owned_stream_ != nullptr) cudaStreamDestroy(owned_stream_);
  cudaGetLastError();
}

cusparseHandle_t Context::cusparse() {
  if (cusparse_ == nullptr) {
    cusparseHandle_t h = nullptr;
    SPX_CUSPARSE_CHECK(cusparseCreate(&h));
    const cusparseStatus_t s = cusparseSetStream(h, stream_);
    if (s != CUSPARSE_STATUS_SUCCESS) {
      cusparseDestroy(h);
      detail::throw_cusparse_error(s, "cusparseSetStream", __FILE__, __LINE__);
    }
    cusparse_ = h;
  }
  return cusparse_;
}

cublasHandle_t Context::cublas() {
  if (cublas_ == nullptr) {
    cublasHandle_t h = nullptr;
    SPX_CUBLAS_CHECK(cublasCreate(&h));
    const cublasStatus_t s = cublasSetStream(h, stream_);
    if (s != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(h);
      detail::throw_cublas_error(s, "cublasSetStream", __FILE__, __LINE__);
    }
    cublas_ = h;
  }
  return cublas_;
}

void* Context::workspace(std::size_t bytes) {
  if (bytes > workspace_.bytes()) {
    // Earlier work on the stream may still read the old workspace; cudaFree waits for the
    // device, so freeing it first is safe, and it keeps peak memory at the new size.
    workspace_ = {};
    workspace_ = DeviceBuffer<std::byte>(bytes, "context workspace");
  }
  return workspace_.data();
}

unsigned* Context::zeroed_counters(std::size_t count) {
  if (count > counters_.size()) {
    counters_ = {};  // as workspace(): cudaFree waits for earlier users
    counters_ = DeviceBuffer<unsigned>(count, "context counters");
    SPX_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, counters_.bytes(), stream_));
  }
  return counters_.data();
}

void Context::flush_l2() {
  if (l2_flush_.empty())
    l2_flush_ = DeviceBuffer<std::byte>(2 * std::max<std::size_t>(props_.l2_bytes, std::size_t{1} << 20),
                                        "L2 flush buffer");
  flush_value_ ^= 1;
  SPX_CUDA_CHECK(cudaMemsetAsync(l2_flush_.data(), flush_value_, l2_flush_.bytes(), stream_));
}

void Context::synchronize() { SPX_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

}  // namespace spx::cuda
