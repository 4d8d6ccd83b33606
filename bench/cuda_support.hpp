// What the CUDA entries of the kernel registry share: the benchmark's one Context, a generic
// device Instance (CUDA-event timing, cold runs, NaN poisoning, download for the check) and a
// cache of device copies shared by the kernels of one matrix and precision.
//
// Entries (cuda_spmv.cpp, cuda_spmm.cpp, cuda_gemm.cpp) build a CudaInstance from parts: a launch
// that only enqueues the product on the context's stream, a view of the output staged to the host
// (staged_view), the output's device bytes and the working set. Everything else — timing
// included — is common, so our kernels and the vendor baselines are measured the same way.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bench/problem.hpp"
#include "bench/registry.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"

namespace spx::bench {

// The context every CUDA entry uses (one stream, so runs never overlap). Created on first use and
// never destroyed: tearing down cuSPARSE/cuBLAS handles after the CUDA runtime has shut down at
// exit can crash, and the process is ending anyway (the GPU tests do the same).
cuda::Context& bench_context();

struct CudaInstanceParts {
  std::function<void()> launch;  // enqueues one product on bench_context()'s stream
  // The output for the check: `view` (staged_view: the output in its own precision and layout,
  // staged once into the shared pinned buffer), or the simpler `download` of a vector output (SpMV)
  // copied back as doubles. One of the two.
  std::function<OutputView()> view;
  std::function<std::vector<double>()> download;
  void* output = nullptr;        // device output, poisoned byte-wise
  std::size_t output_bytes = 0;  // including leading-dimension padding
  std::size_t working_set = 0;   // device bytes one product touches
  Params params;
};

class CudaInstance final : public Instance {
 public:
  explicit CudaInstance(CudaInstanceParts parts) : parts_(std::move(parts)) {}

  void run() override { parts_.launch(); }
  double timed_run_ms() override;
  // Warm: spx::cuda::time_kernel over back-to-back calls on the same inputs (the headline).
  bool measure(const TimingPolicy& policy, Timing& out) override;
  // Cold: L2 flushed before every call; only when the working set fits in L2, where it differs.
  bool measure_cold(const TimingPolicy& policy, Timing& out) override;
  // All-ones bytes are a NaN in both f32 and f64, so one memset poisons any output.
  void poison_output() override;
  OutputView output() override;
  Params params() const override { return parts_.params; }

 private:
  Timing time(const TimingPolicy& policy, bool cold);

  CudaInstanceParts parts_;
  std::vector<double> downloaded_;  // what `download` returned, viewed by output()
};

// Device copies of one matrix's data (A in CSR or COO, x, B in a layout), shared by every kernel
// of one (matrix, precision): uploaded once, not once per kernel. Holds only the current
// matrix's items; a new matrix or precision drops the old ones first, so device memory holds one
// matrix at a time (plus what the running instances hold).
class DeviceCache {
 public:
  template <class V, class Make>
  std::shared_ptr<const V> get(const Problem& p, const std::string& item, Make&& make) {
    const std::string owner = owner_of(p);
    if (owner != owner_) {
      items_.clear();  // before the new upload: the old matrix's memory is free for it
      owner_ = owner;
    }
    auto& slot = items_[item];
    if (!slot) slot = std::shared_ptr<const V>(std::make_shared<V>(make()));
    return std::static_pointer_cast<const V>(slot);
  }
  // Drops every item (an instance still holding one keeps it alive until it goes).
  void clear() {
    items_.clear();
    owner_.clear();
  }

 private:
  static std::string owner_of(const Problem& p);

  std::string owner_;
  std::map<std::string, std::shared_ptr<const void>> items_;
};

DeviceCache& device_cache();

// The Problem's matrix and dense inputs on the device, through the cache.
template <class T>
std::shared_ptr<const cuda::DeviceCsr<T, int32_t>> device_csr(const Problem& p);
template <class T>
std::shared_ptr<const cuda::DeviceCoo<T, int32_t>> device_coo(const Problem& p);
template <class T>
std::shared_ptr<const cuda::DeviceBuffer<T>> device_x(const Problem& p);

// The SpMM dense operands, shared by the cuSPARSE entries (cuda_spmm.cpp) and spx's own
// (cuda_spmm_spx.cpp) so they run on the same B. The engine's B is column-major unless the options
// name one layout (Problem::b_layout); a row-major operand's leading dimension is padded to a
// multiple of 16 bytes (CSR ALG3 faults on rows that start off a 16-byte boundary,
// docs/cuda-runtime.md), so B is uploaded as it is only where it has the layout and that ld already,
// else from a host copy. B is cached per problem; C is made per kernel (tight column-major, or
// row-major with the padded leading dimension).
template <class T>
std::shared_ptr<const cuda::DeviceDense<T>> device_b(const Problem& p, Layout layout);
template <class T>
cuda::DeviceDense<T> make_c(const Problem& p, Layout layout);
// M's elements in `layout` with leading dimension `ld` (padding zero), copied by all threads.
template <class T>
Dense<T> copy_in_layout(const Dense<T>& M, Layout layout, int64_t ld);

// Copies n elements of device memory into a pinned host buffer that every download reuses, and
// returns them (valid until the next call). Outputs of the large suite reach 1 GB (16.8M rows x 8
// columns in f64): a fresh host vector per kernel would pay for its page faults every time, and
// pinned memory copies at full PCIe speed.
template <class T>
std::span<const T> stage_to_host(const T* device, std::size_t n);

// A device output staged to the host (stage_to_host) and viewed as the checker reads it: a vector of
// n elements, or a dense matrix in its layout and leading dimension.
template <class T>
OutputView staged_view(const cuda::DeviceBuffer<T>& vector);
template <class T>
OutputView staged_view(const cuda::DeviceDense<T>& M);

// Calls make(T{}) with T = float or double as the Problem asks.
template <class Make>
std::unique_ptr<Instance> with_precision(const Problem& p, Make&& make) {
  if (p.precision == Precision::F32) return make(float{});
  return make(double{});
}

// A KernelEntry of the cuda backend for the precisions given.
KernelEntry cuda_entry(std::string name, OpKind op, Format format, bool vendor, std::string summary);

// Defined in cuda_spmv.cpp, cuda_spmm.cpp, cuda_gemm.cpp and cuda_support.cpp; called by
// register_cuda_kernels() (cuda_kernels.cu).
void register_cuda_backend(Registry& registry);
void register_cuda_spmv(Registry& registry);
void register_cuda_spmm(Registry& registry);
void register_cuda_gemm(Registry& registry);

}  // namespace spx::bench
