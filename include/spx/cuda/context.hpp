// spx::cuda::Context — one per device and thread of work: a stream, the cuSPARSE and cuBLAS handles
// (created on first use and bound to the stream), a reusable workspace, and the device properties
// that launch rules and the performance model read.
//
// Everything spx launches for a context goes onto ctx.stream(), in order; synchronize() waits for
// it. A Context is not thread-safe; use one per host thread. The stream is the context's own, or one
// the caller owns (a framework's current stream: the Python package runs on CuPy's), given to the
// constructor or to set_stream().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "spx/cuda/buffer.hpp"

/// Opaque handle types, declared here so this header does not pull in the CUDA library headers
/// (identical redeclarations of the toolkit's own typedefs).
struct CUstream_st;
struct CUevent_st;
struct cusparseContext;
struct cublasContext;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct cusparseContext* cusparseHandle_t;
typedef struct cublasContext* cublasHandle_t;

namespace spx::cuda {

/// The properties kernels and models need, read once from cudaGetDeviceProperties and
/// cudaDeviceGetAttribute (CUDA 13 removed the clock fields from cudaDeviceProp).
struct DeviceProps {
  std::string name;
  int device = 0;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  std::size_t shared_mem_per_block = 0;        ///< default limit (48 KiB)
  std::size_t shared_mem_per_block_optin = 0;  ///< after cudaFuncSetAttribute (227 KiB on Hopper)
  std::size_t shared_mem_per_sm = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_mem_bytes = 0;
  int mem_bus_bits = 0;
  int mem_clock_khz = 0;  ///< peak memory clock
  int sm_clock_khz = 0;   ///< peak SM clock

  /// Datasheet bandwidth: 2 transfers per clock (DDR/HBM) × bus width. A lead, not a ceiling:
  /// compare kernels with the measured copy bandwidth (timing.hpp) instead.
  double theoretical_bandwidth_gbs() const { return 2.0 * mem_clock_khz * 1e3 * (mem_bus_bits / 8.0) / 1e9; }
  /// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MiB L2, 79.1 GiB)".
  std::string summary() const;
};

class Context {
 public:
  /// Selects `device` for this host thread and creates a non-blocking stream on it. Throws
  /// spx::Error when no usable device exists (message from gpu_unavailable_reason()).
  explicit Context(int device = 0);
  /// The same on a stream the caller owns and keeps alive while the context uses it (nullptr: the
  /// legacy default stream). The context never destroys it.
  Context(int device, cudaStream_t external_stream);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int device() const { return props_.device; }
  const DeviceProps& props() const { return props_; }
  cudaStream_t stream() const { return stream_; }
  /// Later work goes onto `stream` (not owned, as above), ordered after all work already enqueued on
  /// the previous stream (an event, no host wait), since the workspace, the counters and plans made
  /// with this context are reused across calls. The cuSPARSE/cuBLAS handles follow. Nothing happens
  /// when `stream` is already the context's stream.
  void set_stream(cudaStream_t stream);

  /// Library handles bound to stream(); created on first use. cuBLAS keeps its default math mode
  /// (no TF32 for SGEMM: fp32 GEMM baselines stay true fp32).
  cusparseHandle_t cusparse();
  cublasHandle_t cublas();

  /// Scratch device memory of at least `bytes`, valid until the next workspace() call that needs
  /// more (it grows, never shrinks). For transient use inside one operation; anything that must
  /// stay valid across calls (e.g. cuSPARSE preprocess data) owns its own DeviceBuffer.
  void* workspace(std::size_t bytes);
  std::size_t workspace_bytes() const { return workspace_.bytes(); }

  /// At least `count` counters in device memory, zero when handed out. A kernel that uses them must
  /// leave every one it touched at zero when it completes (the arrival counters of the SpMM tiles
  /// and of the segmented sum's long tails do: the last arrival resets its counter), so no call pays
  /// for a memset; only growth clears them.
  unsigned* zeroed_counters(std::size_t count);

  /// Writes a buffer of 2 × L2 on the stream so the next kernel starts with a cold L2 (cold
  /// timings). The buffer is allocated on first use.
  void flush_l2();

  /// Waits for all work on stream() and turns an asynchronous device fault into spx::Error.
  void synchronize();

 private:
  DeviceProps props_;
  cudaStream_t stream_ = nullptr;
  cudaStream_t owned_stream_ = nullptr;  ///< created by the context (destroyed with it), or null
  cudaEvent_t handoff_ = nullptr;        ///< orders set_stream()'s new stream after the old one
  cusparseHandle_t cusparse_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  DeviceBuffer<std::byte> workspace_;
  DeviceBuffer<unsigned> counters_;
  DeviceBuffer<std::byte> l2_flush_;
  unsigned char flush_value_ = 0;  ///< alternates, so no flush ever writes what is already there
};

/// The properties of `device` without creating a context (what `spx info --device` prints).
DeviceProps query_device(int device = 0);

}  // namespace spx::cuda
