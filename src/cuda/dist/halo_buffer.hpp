// Device memory a distributed product's messages are sent from or received into (spx/cuda/dist.hpp).
//
// Registered with the rank's NCCL communicator (ncclMemAlloc + ncclCommRegister), a buffer lets an
// intra-node send write straight into the receiver's buffer, one copy instead of two through
// NCCL's staging FIFO. NCCL requires both ends of a message to be registered or neither, so every
// rank must make the same choice (DistOptions::register_halo_buffers). Unregistered: cudaMalloc.
#pragma once

#include <cstddef>
#include <utility>

namespace spx::cuda::dist::detail {

class HaloBuffer {
 public:
  HaloBuffer() = default;
  /// `bytes` on the current device (none for 0), registered with `comm` (an ncclComm_t) when not null;
  /// spx::Error naming `label` and NCCL's or CUDA's reason on failure.
  HaloBuffer(std::size_t bytes, void* comm, const char* label);
  ~HaloBuffer();
  HaloBuffer(HaloBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        comm_(std::exchange(o.comm_, nullptr)),
        handle_(std::exchange(o.handle_, nullptr)) {}
  HaloBuffer& operator=(HaloBuffer&& o) noexcept;
  HaloBuffer(const HaloBuffer&) = delete;
  HaloBuffer& operator=(const HaloBuffer&) = delete;

  void* data() const { return data_; }
  bool registered() const { return handle_ != nullptr; }

 private:
  void release() noexcept;

  void* data_ = nullptr;
  void* comm_ = nullptr;    // ncclComm_t it is registered with (null: cudaMalloc'd)
  void* handle_ = nullptr;  // ncclCommRegister's handle
};

}  // namespace spx::cuda::dist::detail
