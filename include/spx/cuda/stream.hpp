// RAII owners of a CUDA stream and a CUDA event, for work beside a Context's own stream (the
// host-resident SpMM's copy lanes, the PCIe probe) and for timing with events (timing.hpp). They
// hold opaque handles, so this header needs no CUDA headers. Move-only; destroyed quietly (a
// destructor never throws, even after a device fault).
#pragma once

#include <cstddef>

struct CUstream_st;
struct CUevent_st;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

namespace spx::cuda {

/// A non-blocking stream (does not synchronise with the legacy default stream).
class Stream {
 public:
  Stream();  ///< throws spx::Error naming the CUDA call on failure
  /// A stream of the current device's greatest priority: its pending blocks are dispatched before
  /// those of ordinary streams as SMs free up (a halo exchange beside a product that fills the GPU).
  static Stream highest_priority();
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  void synchronize() const;  ///< waits for its work; a device fault becomes spx::Error
  /// Later work on this stream waits until `event` has happened (no host synchronisation).
  void wait(cudaEvent_t event) const;

 private:
  explicit Stream(std::nullptr_t) {}
  cudaStream_t stream_ = nullptr;
};

/// An event with timing enabled.
class Event {
 public:
  Event();  ///< throws spx::Error naming the CUDA call on failure
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const;
  void synchronize() const;
  /// True once the work recorded before it has completed (never blocks).
  bool done() const;

 private:
  cudaEvent_t event_ = nullptr;
};

/// Milliseconds between two recorded, completed events (stop must be synchronised or done()).
double elapsed_ms(const Event& start, const Event& stop);

}  // namespace spx::cuda
