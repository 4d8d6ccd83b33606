// RAII device and pinned-host buffers, and the copies between them and host memory.
//
// Policy (docs/cuda-runtime.md): plain cudaMalloc/cudaFree, never managed memory. Buffers are
// allocated outside timed regions and often outlive the stream that filled them, so the
// synchronous allocator is the safe choice (cudaFreeAsync would need a live stream at destruction).
// A failed allocation throws spx::Error naming the bytes asked for, the bytes free and the label.
// This header needs no CUDA headers: the typed wrappers sit on a few non-template functions.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "spx/error.hpp"

namespace spx::cuda {

class Context;

/// Raw allocation; bytes == 0 returns nullptr. Throws spx::Error on failure ("device out of
/// memory: asked for 1.00 TiB (1099511627776 bytes) for <label>; 78.1 GiB free of 79.1 GiB").
void* device_allocate(std::size_t bytes, const char* label);
void device_free(void* ptr) noexcept;
void* pinned_allocate(std::size_t bytes, const char* label);
void pinned_free(void* ptr) noexcept;

/// Copies on ctx's stream. The *_sync forms wait for the copy (what upload/download use).
void copy_to_device_async(Context& ctx, void* device_dst, const void* host_src, std::size_t bytes);
void copy_to_host_async(Context& ctx, void* host_dst, const void* device_src, std::size_t bytes);
void copy_device_to_device_async(Context& ctx, void* dst, const void* src, std::size_t bytes);
void copy_to_device_sync(Context& ctx, void* device_dst, const void* host_src, std::size_t bytes);
void copy_to_host_sync(Context& ctx, void* host_dst, const void* device_src, std::size_t bytes);

/// n * element_size in bytes, or spx::Error when it overflows size_t.
std::size_t checked_bytes(std::size_t n, std::size_t element_size, const char* label);

namespace detail {
template <class T, void* (*Allocate)(std::size_t, const char*), void (*Free)(void*) noexcept>
class OwnedArray {
 public:
  OwnedArray() = default;
  explicit OwnedArray(std::size_t n, const char* label = "buffer")
      : data_(static_cast<T*>(Allocate(checked_bytes(n, sizeof(T), label), label))), size_(n) {}
  OwnedArray(const OwnedArray&) = delete;
  OwnedArray& operator=(const OwnedArray&) = delete;
  OwnedArray(OwnedArray&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  OwnedArray& operator=(OwnedArray&& o) noexcept {
    if (this != &o) {
      Free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~OwnedArray() { Free(data_); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};
}  // namespace detail

/// Device memory for n elements of T (uninitialised). span() is a *device* span: pass it to spx
/// kernels, never dereference it on the host.
template <class T>
using DeviceBuffer = detail::OwnedArray<T, device_allocate, device_free>;

/// Page-locked host memory (fast, truly asynchronous copies). Host-dereferenceable.
template <class T>
using PinnedBuffer = detail::OwnedArray<T, pinned_allocate, pinned_free>;

/// Host vector → new device buffer (waits for the copy).
template <class T>
DeviceBuffer<T> to_device(Context& ctx, std::span<const T> host, const char* label = "buffer") {
  DeviceBuffer<T> d(host.size(), label);
  copy_to_device_sync(ctx, d.data(), host.data(), host.size_bytes());
  return d;
}
template <class T>
DeviceBuffer<T> to_device(Context& ctx, const std::vector<T>& host, const char* label = "buffer") {
  return to_device(ctx, std::span<const T>(host), label);
}

/// Device span → host vector (waits for the copy).
template <class T>
std::vector<T> to_host(Context& ctx, std::span<const T> device) {
  std::vector<T> h(device.size());
  copy_to_host_sync(ctx, h.data(), device.data(), device.size_bytes());
  return h;
}
template <class T>
std::vector<T> to_host(Context& ctx, const DeviceBuffer<T>& device) {
  return to_host(ctx, device.span());
}

}  // namespace spx::cuda
