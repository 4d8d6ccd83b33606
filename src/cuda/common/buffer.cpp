// Device and pinned allocation with the out-of-memory policy of docs/cuda-runtime.md, and the
// copies the typed buffers and formats use.
#include "spx/cuda/buffer.hpp"

#include <fmt/format.h>

#include <string>

#include "cuda/common/check.hpp"
#include "cuda/common/format_bytes.hpp"
#include "spx/cuda/context.hpp"

namespace spx::cuda {

std::size_t checked_bytes(std::size_t n, std::size_t element_size, const char* label) {
  if (element_size != 0 && n > std::numeric_limits<std::size_t>::max() / element_size)
    throw Error(
        fmt::format("{}: {} elements of {} bytes overflow the address space", label, n, element_size));
  return n * element_size;
}

void* device_allocate(std::size_t bytes, const char* label) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // out-of-memory is not sticky: clear it and report what was asked
    std::size_t free_bytes = 0, total_bytes = 0;
    std::string free_text = "free memory unknown";
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
      free_text = fmt::format("{} free of {}", format_bytes(free_bytes), format_bytes(total_bytes));
    else
      cudaGetLastError();
    throw Error(fmt::format("device out of memory: asked for {} ({} bytes) for {}; {}", format_bytes(bytes),
                            bytes, label, free_text));
  }
  if (status != cudaSuccess) detail::throw_cuda_error(status, "cudaMalloc", __FILE__, __LINE__);
  return p;
}

void device_free(void* ptr) noexcept {
  // Errors here are sticky errors from earlier work (already reported) or a torn-down context at
  // exit; a destructor must not throw, so they are dropped.
  if (ptr != nullptr && cudaFree(ptr) != cudaSuccess) cudaGetLastError();
}

void* pinned_allocate(std::size_t bytes, const char* label) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t status = cudaMallocHost(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw Error(fmt::format("pinned host memory exhausted: asked for {} ({} bytes) for {}",
                            format_bytes(bytes), bytes, label));
  }
  if (status != cudaSuccess) detail::throw_cuda_error(status, "cudaMallocHost", __FILE__, __LINE__);
  return p;
}

void pinned_free(void* ptr) noexcept {
  if (ptr != nullptr && cudaFreeHost(ptr) != cudaSuccess) cudaGetLastError();
}

void copy_to_device_async(Context& ctx, void* device_dst, const void* host_src, std::size_t bytes) {
  if (bytes == 0) return;
  SPX_CUDA_CHECK(cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, ctx.stream()));
}

void copy_to_host_async(Context& ctx, void* host_dst, const void* device_src, std::size_t bytes) {
  if (bytes == 0) return;
  SPX_CUDA_CHECK(cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, ctx.stream()));
}

void copy_device_to_device_async(Context& ctx, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  SPX_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, ctx.stream()));
}

void copy_to_device_sync(Context& ctx, void* device_dst, const void* host_src, std::size_t bytes) {
  copy_to_device_async(ctx, device_dst, host_src, bytes);
  ctx.synchronize();
}

void copy_to_host_sync(Context& ctx, void* host_dst, const void* device_src, std::size_t bytes) {
  copy_to_host_async(ctx, host_dst, device_src, bytes);
  ctx.synchronize();
}

}  // namespace spx::cuda
