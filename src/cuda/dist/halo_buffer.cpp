#include "cuda/dist/halo_buffer.hpp"

#include <fmt/format.h>
#include <nccl.h>

#include "cuda/dist/nccl.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/error.hpp"

namespace spx::cuda::dist::detail {

HaloBuffer::HaloBuffer(std::size_t bytes, void* comm, const char* label) {
  if (bytes == 0) return;
  if (comm == nullptr) {
    data_ = device_allocate(bytes, label);
    return;
  }
  const ncclResult_t allocated = ncclMemAlloc(&data_, bytes);
  if (allocated != ncclSuccess)
    throw Error(
        fmt::format("dist: ncclMemAlloc of {} bytes for the {} failed: {} ({}); "
                    "DistOptions::register_halo_buffers = false uses cudaMalloc",
                    bytes, label, ncclGetErrorString(allocated), ncclGetLastError(nullptr)));
  const ncclResult_t registered = ncclCommRegister(static_cast<ncclComm_t>(comm), data_, bytes, &handle_);
  if (registered != ncclSuccess) {
    ncclMemFree(data_);
    data_ = nullptr;
    throw Error(fmt::format("dist: ncclCommRegister of the {} ({} bytes) failed: {} ({})", label, bytes,
                            ncclGetErrorString(registered), ncclGetLastError(nullptr)));
  }
  comm_ = comm;
}

void HaloBuffer::release() noexcept {
  if (data_ == nullptr) return;
  if (comm_ == nullptr) {
    device_free(data_);
  } else {
    if (handle_ != nullptr) ncclCommDeregister(static_cast<ncclComm_t>(comm_), handle_);
    ncclMemFree(data_);
  }
  data_ = comm_ = handle_ = nullptr;
}

HaloBuffer::~HaloBuffer() { release(); }

HaloBuffer& HaloBuffer::operator=(HaloBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    comm_ = std::exchange(o.comm_, nullptr);
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

}  // namespace spx::cuda::dist::detail
