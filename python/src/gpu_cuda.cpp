// The device half of a Python matrix on the CUDA backend. One Context per device for the whole
// process (created on first use, never destroyed: tearing cuSPARSE down after the runtime has shut
// down at exit can crash), following the caller's stream (Context::set_stream: no host wait).
//
// Products: SpMV is spx's parametrised CSR kernel with its fixed rule and long-row plan
// (spmv_csr.hpp), SpMM spx's CSR SpMM with spmm_csr_rule — both chosen once per matrix (and L).
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

#include "gpu.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/rules.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"
#include "spx/stats.hpp"

namespace spx::python {

bool built_with_cuda() { return true; }
int gpu_count() { return cuda::device_count(); }
std::string gpu_unavailable() { return cuda::gpu_unavailable_reason(); }

int pointer_device(uintptr_t ptr) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(ptr)) != cudaSuccess) {
    cudaGetLastError();  // not a pointer the runtime knows: host memory
    return -1;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? attr.device : -1;
}

void synchronize(int device, uintptr_t stream) {
  (void)device;
  if (cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)) != cudaSuccess)
    throw Error(fmt::format("cudaStreamSynchronize failed: {}", cudaGetErrorString(cudaGetLastError())));
}

namespace {

// Makes `device` current for one call and puts the previous device back (CuPy keeps its own idea
// of the current device in the runtime's).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    cudaGetDevice(&previous_);
    if (previous_ != device) cudaSetDevice(device);
  }
  ~DeviceGuard() {
    int now = 0;
    cudaGetDevice(&now);
    if (now != previous_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

cuda::Context& context(int device) {
  static std::mutex mutex;
  static std::map<int, cuda::Context*> contexts;  // never destroyed (see above)
  std::lock_guard lock(mutex);
  cuda::Context*& ctx = contexts[device];
  if (ctx == nullptr) {
    if (cuda::device_count() == 0) throw Error("no usable CUDA device: " + cuda::gpu_unavailable_reason());
    DeviceGuard guard(device);  // the Context selects its device; the caller's stays current
    ctx = new cuda::Context(device, nullptr);
  }
  return *ctx;
}

template <class T>
class CudaMatrix final : public GpuMatrix {
 public:
  CudaMatrix(const Csr<T, int32_t>& A, int device)
      : device_(device), ctx_(context(device)), stats_(spx::stats(A)) {
    DeviceGuard guard(device_);
    dA_ = cuda::upload(ctx_, A);
    plan_ = cuda::plan_csr_spmv<T>(ctx_, dA_, A);
    ctx_.synchronize();
  }

  int device() const override { return device_; }
  std::size_t device_bytes() const override { return dA_.bytes(); }

  void spmv(uintptr_t x, uintptr_t y, double alpha, double beta, uintptr_t stream) override {
    DeviceGuard guard(device_);
    ctx_.set_stream(reinterpret_cast<cudaStream_t>(stream));
    cuda::spmv_csr<T>(ctx_, plan_, dA_, {reinterpret_cast<const T*>(x), static_cast<std::size_t>(dA_.cols)},
                      {reinterpret_cast<T*>(y), static_cast<std::size_t>(dA_.rows)}, static_cast<T>(alpha),
                      static_cast<T>(beta));
  }

  void spmm(uintptr_t B, int64_t ldb, uintptr_t C, int64_t ldc, bool row_major, int64_t L, double alpha,
            double beta, uintptr_t stream) override {
    DeviceGuard guard(device_);
    ctx_.set_stream(reinterpret_cast<cudaStream_t>(stream));
    run_spmm(reinterpret_cast<const T*>(B), ldb, reinterpret_cast<T*>(C), ldc, row_major, L, alpha, beta);
  }

  void spmv_host(const void* x, void* y, double alpha, double beta) override {
    DeviceGuard guard(device_);
    cuda::DeviceBuffer<T> dx(static_cast<std::size_t>(dA_.cols), "x (copied from the host)");
    cuda::DeviceBuffer<T> dy(static_cast<std::size_t>(dA_.rows), "y (copied from the host)");
    cuda::copy_to_device_async(ctx_, dx.data(), x, dx.bytes());
    if (beta != 0) cuda::copy_to_device_async(ctx_, dy.data(), y, dy.bytes());
    cuda::spmv_csr<T>(ctx_, plan_, dA_, dx.span(), dy.span(), static_cast<T>(alpha), static_cast<T>(beta));
    cuda::copy_to_host_sync(ctx_, y, dy.data(), dy.bytes());
  }

  void spmm_host(const void* B, void* C, bool row_major, int64_t L, double alpha, double beta) override {
    DeviceGuard guard(device_);
    const auto n = static_cast<std::size_t>(dA_.cols), m = static_cast<std::size_t>(dA_.rows);
    const auto l = static_cast<std::size_t>(L);
    cuda::DeviceBuffer<T> dB(n * l, "B (copied from the host)");
    cuda::DeviceBuffer<T> dC(m * l, "C (copied from the host)");
    cuda::copy_to_device_async(ctx_, dB.data(), B, dB.bytes());
    if (beta != 0) cuda::copy_to_device_async(ctx_, dC.data(), C, dC.bytes());
    run_spmm(dB.data(), row_major ? L : dA_.cols, dC.data(), row_major ? L : dA_.rows, row_major, L, alpha, beta);
    cuda::copy_to_host_sync(ctx_, C, dC.data(), dC.bytes());
  }

  PlanInfo plan(const PlanRequest& request) override { return current_plan(request); }

  // Without the plan layer the products run spx's fixed rules; this says which.
  PlanInfo current_plan(const PlanRequest& request) override {
    PlanInfo info;
    info.op = request.spmm ? "spmm" : "spmv";
    info.cols_dense = request.spmm ? request.cols_dense : 0;
    info.mode = "rule";
    info.decided_by = "rule";
    info.owner = "spx";
    info.format = "csr";
    info.predicted_us = info.measured_us = std::numeric_limits<double>::quiet_NaN();
    info.candidates = 1;
    if (request.spmm) {
      info.kernel = "spmm_csr";
      info.params = cuda::to_string(spmm_config(request.cols_dense));
    } else {
      info.kernel = "csr_param";
      info.params = cuda::to_string(plan_.params) +
                    (plan_.has_long_rows() ? fmt::format(" long_rows={}", plan_.long_rows.size()) : "");
    }
    info.explain = fmt::format("{} of a {} x {} matrix with {} nonzeros on {}: spx {} ({}), chosen by spx's fixed rule\n",
                               info.op, dA_.rows, dA_.cols, dA_.nnz, ctx_.props().name, info.kernel, info.params);
    return info;
  }

 private:
  const cuda::SpmmCsrConfig& spmm_config(int64_t L) {
    auto it = spmm_configs_.find(L);
    if (it == spmm_configs_.end())
      it = spmm_configs_.emplace(L, cuda::spmm_csr_rule(stats_, L, ctx_.props(), static_cast<int>(sizeof(T)))).first;
    return it->second;
  }

  void run_spmm(const T* B, int64_t ldb, T* C, int64_t ldc, bool row_major, int64_t L, double alpha, double beta) {
    const Layout layout = row_major ? Layout::RowMajor : Layout::ColMajor;
    cuda::DenseView<const T> b{B, dA_.cols, L, ldb, layout};
    cuda::DenseView<T> c{C, dA_.rows, L, ldc, layout};
    cuda::spmm_csr<T, int32_t>(ctx_, dA_, b, c, spmm_config(L), static_cast<T>(alpha), static_cast<T>(beta));
  }

  int device_;
  cuda::Context& ctx_;
  MatrixStats stats_;
  cuda::DeviceCsr<T, int32_t> dA_;
  cuda::CsrSpmvPlan plan_;
  std::map<int64_t, cuda::SpmmCsrConfig> spmm_configs_;
};

}  // namespace

std::shared_ptr<GpuMatrix> to_gpu(const Csr<float, int32_t>& A, int device) {
  return std::make_shared<CudaMatrix<float>>(A, device);
}
std::shared_ptr<GpuMatrix> to_gpu(const Csr<double, int32_t>& A, int device) {
  return std::make_shared<CudaMatrix<double>>(A, device);
}

}  // namespace spx::python
