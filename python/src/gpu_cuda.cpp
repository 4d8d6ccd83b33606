// The device half of a Python matrix on the CUDA backend. One Context per device for the whole
// process (created on first use, never destroyed: tearing cuSPARSE down after the runtime has shut
// down at exit can crash), following the caller's stream (Context::set_stream: no host wait).
//
// Products go through the front door, cuda::SparseMatrix: planned on first use (or by A.plan()),
// over spx's kernels and cuSPARSE's. CG (spx.cg) runs cuda::CgSolver over the planned operator of
// spx/cuda/cg.hpp, made on a matrix's first solve and kept with it.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "common/host_memory.hpp"
#include "common/overlap.hpp"
#include "gpu.hpp"
#include "matrix.hpp"
#include "spx/cg.hpp"
#include "spx/convert.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/error.hpp"
#include "spx/plan.hpp"

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

int current_device() {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return device;
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

// A non-blocking stream of spx's own per device, never destroyed: where a context goes after a call
// on a stream handle the caller may destroy (GpuMatrix::release_stream). Work on the context's
// current stream (uploads, products of numpy operands) runs there until a call names a stream.
cudaStream_t parking_stream(int device) {
  static std::mutex mutex;
  static std::map<int, cudaStream_t> streams;
  std::lock_guard lock(mutex);
  cudaStream_t& s = streams[device];
  if (s == nullptr) {
    DeviceGuard guard(device);
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
      s = nullptr;
      throw Error(
          fmt::format("cudaStreamCreateWithFlags failed: {}", cudaGetErrorString(cudaGetLastError())));
    }
  }
  return s;
}

// Device memory for one call, allocated and freed in the order of `stream` (cudaMallocAsync): a
// temporary that needs no host wait and can be captured into a CUDA graph.
class StreamScratch {
 public:
  StreamScratch(std::size_t bytes, cudaStream_t stream, const char* label) : stream_(stream) {
    if (cudaMallocAsync(&ptr_, bytes, stream) != cudaSuccess) {
      ptr_ = nullptr;
      throw Error(fmt::format("cudaMallocAsync of {} bytes for {} failed: {}", bytes, label,
                              cudaGetErrorString(cudaGetLastError())));
    }
  }
  ~StreamScratch() {
    if (ptr_ != nullptr) cudaFreeAsync(ptr_, stream_);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

void check_copy(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(fmt::format("{} failed: {}", what, cudaGetErrorString(cudaGetLastError())));
}

plan::Options options_of(const PlanRequest& r) {
  plan::Options o;
  o.mode = plan::mode_from_string(r.mode);
  o.expected_calls = r.expected_calls;
  o.deterministic_only = r.deterministic_only;
  o.measure_top = r.measure_top;
  o.tuning_cache = r.tuning_cache;
  return o;
}

PlanInfo info_of(const plan::Report& r) {
  PlanInfo info;
  info.op = r.problem.op == plan::Operation::Spmm ? "spmm" : "spmv";
  info.cols_dense = r.problem.cols_dense;
  info.mode = plan::to_string(r.mode);
  info.decided_by = r.decided_by;
  info.planning_us = r.planning_us;
  info.setup_us = r.setup_us;
  info.candidates = r.candidates.size();
  info.predicted_us = info.measured_us = std::numeric_limits<double>::quiet_NaN();
  if (!r.candidates.empty()) {
    const plan::Candidate& w = r.winner();
    info.kernel = w.kernel;
    info.owner = w.owner;
    info.format = w.format;
    info.params = w.params;
    info.predicted_us = w.predicted_us;
    info.measured_us = w.measured_us;
  }
  info.explain = r.explain();
  return info;
}

// A's bytes at `index_bits`-bit indices (its own width by default) checked against the host memory
// available, then A: the front door's 32-bit constructor and the CG operator take their Csr by value,
// so such a call makes one host copy beside the Python matrix's.
template <class T, class I>
const Csr<T, I>& call_copy(const Csr<T, I>& A, const char* what,
                           int index_bits = static_cast<int>(8 * sizeof(I))) {
  detail::require_host_memory(
      host_csr_bytes(A.rows, A.nnz(), sizeof(T), index_bits),
      fmt::format("{} ({} x {}, {} nonzeros, {}-bit indices)", what, A.rows, A.cols, A.nnz(), index_bits));
  return A;
}

// The front door (spx/cuda/sparse_matrix.hpp) on the process's context for the device: it plans
// SpMV and each SpMM (L, layout) on first use (plan::Options{}: mode auto) or when asked, over spx's kernels
// and cuSPARSE's, and runs the plans.
template <class T>
class CudaMatrix final : public GpuMatrix {
 public:
  // I: the host copy's index type; an int64 copy goes to the front door's 64-bit constructor, which
  // narrows to 32-bit offsets on the way when `width` lets it (Auto, Bits32) and the matrix fits.
  template <class I>
  CudaMatrix(const Csr<T, I>& A, int device, plan::IndexWidth width)
      : device_(device), ctx_(context(device)), A_(make(ctx_, A, device, width)) {}
  ~CudaMatrix() override {
    cg_solver_.reset();
    cg_operator_.reset();
    if (cg_stream_ != nullptr) cudaStreamDestroy(cg_stream_);  // the context is never left on it
  }
  CudaMatrix(const CudaMatrix&) = delete;
  CudaMatrix& operator=(const CudaMatrix&) = delete;

  int device() const override { return device_; }
  std::size_t device_bytes() const override { return A_.device_bytes(); }
  int offset_bits() const override { return A_.offset_bits(); }

  // An out that overlaps x (out=x, views of one array) is computed through a copy of x made on the
  // caller's stream (docs/python.md, "Aliasing"); the front door itself refuses overlap.
  void spmv(uintptr_t x, uintptr_t y, double alpha, double beta, uintptr_t stream) override {
    DeviceGuard guard(device_);
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    ctx_.set_stream(s);
    const auto n = static_cast<std::size_t>(A_.cols()), m = static_cast<std::size_t>(A_.rows());
    const auto* xp = reinterpret_cast<const T*>(x);
    std::optional<StreamScratch> copy;
    if (overlap(vector_bytes(xp, n, sizeof(T)), vector_bytes(reinterpret_cast<const T*>(y), m, sizeof(T)))) {
      copy.emplace(n * sizeof(T), s, "a copy of x (out overlaps x)");
      cuda::copy_device_to_device_async(ctx_, copy->get(), xp, n * sizeof(T));
      xp = static_cast<const T*>(copy->get());
    }
    cuda::spmv<T>(ctx_, A_, {xp, n}, {reinterpret_cast<T*>(y), m}, static_cast<T>(alpha),
                  static_cast<T>(beta));
  }

  // As spmv: B overlapping C is copied first (tight, in B's layout).
  void spmm(uintptr_t B, int64_t ldb, uintptr_t C, int64_t ldc, bool row_major, int64_t L, double alpha,
            double beta, uintptr_t stream) override {
    DeviceGuard guard(device_);
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    ctx_.set_stream(s);
    const int64_t n = A_.cols(), m = A_.rows();
    const auto* bp = reinterpret_cast<const T*>(B);
    const ByteRange b_bytes =
        row_major ? dense_bytes(bp, n, L, ldb, sizeof(T)) : dense_bytes(bp, L, n, ldb, sizeof(T));
    const ByteRange c_bytes = row_major ? dense_bytes(reinterpret_cast<const T*>(C), m, L, ldc, sizeof(T))
                                        : dense_bytes(reinterpret_cast<const T*>(C), L, m, ldc, sizeof(T));
    std::optional<StreamScratch> copy;
    if (overlap(b_bytes, c_bytes)) {
      const int64_t outer = row_major ? n : L, inner = row_major ? L : n;
      const auto width = static_cast<std::size_t>(inner) * sizeof(T);
      copy.emplace(static_cast<std::size_t>(outer) * width, s, "a copy of X (out overlaps X)");
      check_copy(cudaMemcpy2DAsync(copy->get(), width, bp, static_cast<std::size_t>(ldb) * sizeof(T), width,
                                   static_cast<std::size_t>(outer), cudaMemcpyDeviceToDevice, s),
                 "cudaMemcpy2DAsync (a copy of X)");
      bp = static_cast<const T*>(copy->get());
      ldb = inner;
    }
    run_spmm(bp, ldb, reinterpret_cast<T*>(C), ldc, row_major, L, alpha, beta);
  }

  void spmv_host(const void* x, void* y, double alpha, double beta) override {
    DeviceGuard guard(device_);
    cuda::DeviceBuffer<T> dx(static_cast<std::size_t>(A_.cols()), "x (copied from the host)");
    cuda::DeviceBuffer<T> dy(static_cast<std::size_t>(A_.rows()), "y (copied from the host)");
    cuda::copy_to_device_async(ctx_, dx.data(), x, dx.bytes());
    if (beta != 0) cuda::copy_to_device_async(ctx_, dy.data(), y, dy.bytes());
    cuda::spmv<T>(ctx_, A_, dx.span(), dy.span(), static_cast<T>(alpha), static_cast<T>(beta));
    cuda::copy_to_host_sync(ctx_, y, dy.data(), dy.bytes());
  }

  void spmm_host(const void* B, void* C, bool row_major, int64_t L, double alpha, double beta) override {
    DeviceGuard guard(device_);
    const auto n = static_cast<std::size_t>(A_.cols()), m = static_cast<std::size_t>(A_.rows());
    const auto l = static_cast<std::size_t>(L);
    cuda::DeviceBuffer<T> dB(n * l, "B (copied from the host)");
    cuda::DeviceBuffer<T> dC(m * l, "C (copied from the host)");
    cuda::copy_to_device_async(ctx_, dB.data(), B, dB.bytes());
    if (beta != 0) cuda::copy_to_device_async(ctx_, dC.data(), C, dC.bytes());
    run_spmm(dB.data(), row_major ? L : A_.cols(), dC.data(), row_major ? L : A_.rows(), row_major, L, alpha,
             beta);
    cuda::copy_to_host_sync(ctx_, C, dC.data(), dC.bytes());
  }

  double spmv_call_ns(uintptr_t x, uintptr_t y, int64_t calls, uintptr_t stream) override {
    DeviceGuard guard(device_);
    ctx_.set_stream(reinterpret_cast<cudaStream_t>(stream));
    const std::span<const T> xs{reinterpret_cast<const T*>(x), static_cast<std::size_t>(A_.cols())};
    const std::span<T> ys{reinterpret_cast<T*>(y), static_cast<std::size_t>(A_.rows())};
    cuda::spmv<T>(ctx_, A_, xs, ys);
    ctx_.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < calls; ++i) cuda::spmv<T>(ctx_, A_, xs, ys);
    const auto t1 = std::chrono::steady_clock::now();
    ctx_.synchronize();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() /
           static_cast<double>(std::max<int64_t>(calls, 1));
  }

  void release_stream() override {
    DeviceGuard guard(device_);
    ctx_.set_stream(parking_stream(device_));
  }

  PlanInfo plan(const PlanRequest& r) override {
    DeviceGuard guard(device_);
    const plan::Options o = options_of(r);
    if (!r.spmm) return info_of(A_.plan_spmv(o));
    return info_of(A_.plan_spmm(r.cols_dense, layout_of(r.row_major), o));
  }

  PlanInfo current_plan(const PlanRequest& r) override {
    const plan::Report* report =
        r.spmm ? A_.spmm_report(r.cols_dense, layout_of(r.row_major)) : A_.spmv_report();
    if (report != nullptr) return info_of(*report);
    return plan(PlanRequest{r.spmm, r.cols_dense, r.row_major, "model", 100, false, 4, ""});
  }

  CgResult cg(const HostCsr& host, uintptr_t b, uintptr_t x, uintptr_t x0, const CgRequest& r,
              uintptr_t stream) override {
    DeviceGuard guard(device_);
    prepare_cg(host, r);
    const auto n = static_cast<std::size_t>(A_.rows());
    CgStream on(*this, reinterpret_cast<cudaStream_t>(stream));
    if (x0 != 0 && x0 != x)
      cuda::copy_device_to_device_async(ctx_, reinterpret_cast<void*>(x), reinterpret_cast<const void*>(x0),
                                        n * sizeof(T));
    return solve_cg({reinterpret_cast<const T*>(b), n}, {reinterpret_cast<T*>(x), n}, x0 != 0, r);
  }

  CgResult cg_host(const HostCsr& host, const void* b, void* x, bool initial_guess,
                   const CgRequest& r) override {
    DeviceGuard guard(device_);
    prepare_cg(host, r);
    const auto n = static_cast<std::size_t>(A_.rows());
    cuda::DeviceBuffer<T> db(n, "b (copied from the host)");
    cuda::DeviceBuffer<T> dx(n, "x (copied from the host)");
    CgStream on(*this, ctx_.stream());
    cuda::copy_to_device_async(ctx_, db.data(), b, db.bytes());
    if (initial_guess) cuda::copy_to_device_async(ctx_, dx.data(), x, dx.bytes());
    CgResult res = solve_cg(std::span<const T>(db.span()), dx.span(), initial_guess, r);
    cuda::copy_to_host_sync(ctx_, x, dx.data(), dx.bytes());
    return res;
  }

 private:
  static plan::DenseLayout layout_of(bool row_major) {
    return row_major ? plan::DenseLayout::RowMajor : plan::DenseLayout::ColMajor;
  }

  // An int64 host copy is read where it is (the front door's const& constructor): at 64-bit offsets
  // nothing is copied on the host, at 32 the front door keeps its narrowed copy (checked here).
  template <class I>
  static cuda::SparseMatrix<T> make(cuda::Context& ctx, const Csr<T, I>& A, int device,
                                    plan::IndexWidth width) {
    DeviceGuard guard(device);
    if constexpr (sizeof(I) == 8) {
      if (plan::offset_bits(width, A.rows, A.cols, A.nnz()) == 32)
        (void)call_copy(A, "the upload's 32-bit host copy", 32);
      cuda::SparseMatrix<T> M(ctx, A, width);
      ctx.synchronize();
      return M;
    } else {
      cuda::SparseMatrix<T> M(ctx, call_copy(A, "the upload's host copy"), width);
      ctx.synchronize();
      return M;
    }
  }

  void run_spmm(const T* B, int64_t ldb, T* C, int64_t ldc, bool row_major, int64_t L, double alpha,
                double beta) {
    const Layout layout = row_major ? Layout::RowMajor : Layout::ColMajor;
    cuda::DenseView<const T> b{B, A_.cols(), L, ldb, layout};
    cuda::DenseView<T> c{C, A_.rows(), L, ldc, layout};
    cuda::spmm<T>(ctx_, A_, b, c, static_cast<T>(alpha), static_cast<T>(beta));
  }

  // The solver's operator (the front door planned in Measure mode among the bitwise-reproducible
  // CSR kernels: CG's iterates do not change from run to run), the solver, and the Jacobi diagonal,
  // made on the first solve that needs them. The operator holds its own copy of the CSR on the
  // device. expected_calls, which amortises setup in the plan, is the first solve's iteration cap
  // kept within [100, 10000].
  void prepare_cg(const HostCsr& host, const CgRequest& r) {
    if (const auto* csr = std::get_if<Csr<T, int32_t>>(&host)) return prepare_cg(*csr, r);
    prepare_cg(std::get<Csr<T, int64_t>>(host), r);
  }

  template <class I>
  void prepare_cg(const Csr<T, I>& csr, const CgRequest& r) {
    std::vector<T> inv;
    if (r.jacobi && cg_inv_diag_.empty()) {
      try {
        inv = inverse_diagonal(csr);
      } catch (const Error& e) {
        throw InputError(e.what());
      }
    }
    if (!cg_solver_) {
      // The operator at the matrix's offset width (index="64": the 64-bit kernels, as the products).
      const int64_t calls = std::clamp<int64_t>(r.max_iterations, 100, 10000);
      cg_operator_ = make_cg_operator(csr, calls);
      cg_solver_ = std::make_unique<cuda::CgSolver<T>>(ctx_, *cg_operator_);
    }
    if (!inv.empty()) cg_inv_diag_ = cuda::to_device(ctx_, inv, "cg jacobi diagonal");
  }

  std::unique_ptr<cuda::LinearOperator<T>> make_cg_operator(const Csr<T, int32_t>& csr, int64_t calls) {
    if (A_.offset_bits() == 64)
      return cuda::make_planned_operator(ctx_, cast<T, int64_t>(call_copy(csr, "cg's 64-bit host copy", 64)),
                                         plan::IndexWidth::Bits64, true, calls);
    return cuda::make_planned_operator(ctx_, csr, true, calls);
  }
  // An int64 host copy is handed over as it is, at the products' width (Bits32 narrows it).
  std::unique_ptr<cuda::LinearOperator<T>> make_cg_operator(const Csr<T, int64_t>& csr, int64_t calls) {
    const auto width = A_.offset_bits() == 64 ? plan::IndexWidth::Bits64 : plan::IndexWidth::Bits32;
    return cuda::make_planned_operator(ctx_, call_copy(csr, "cg's host copy"), width, true, calls);
  }

  CgResult solve_cg(std::span<const T> b, std::span<T> x, bool initial_guess, const CgRequest& r) {
    const std::span<const T> inv =
        r.jacobi ? std::span<const T>(cg_inv_diag_.data(), cg_inv_diag_.size()) : std::span<const T>();
    return cg_solver_->solve(inv, b, x, cg_options(r, initial_guess));
  }

  cudaStream_t cg_stream() {
    if (cg_stream_ == nullptr && cudaStreamCreateWithFlags(&cg_stream_, cudaStreamNonBlocking) != cudaSuccess)
      throw Error(
          fmt::format("cudaStreamCreateWithFlags failed: {}", cudaGetErrorString(cudaGetLastError())));
    return cg_stream_;
  }

  // The stream a solve runs on. The solver replays its iterations as a CUDA graph, which the legacy
  // default stream (CuPy's default, handle 0) cannot capture; there the solve runs on a stream of
  // the matrix's own, ordered after the caller's work by the context's event, and the context goes
  // back to the caller's stream afterwards (the solve has finished then: CG waits for its result).
  class CgStream {
   public:
    CgStream(CudaMatrix& m, cudaStream_t caller) : m_(m), caller_(caller) {
      m_.ctx_.set_stream(caller_);
      if (legacy()) m_.ctx_.set_stream(m_.cg_stream());
    }
    ~CgStream() {
      if (!legacy()) return;
      try {
        m_.ctx_.set_stream(caller_);
      } catch (const Error&) {  // a device fault, already reported by the call that failed
      }
    }
    CgStream(const CgStream&) = delete;
    CgStream& operator=(const CgStream&) = delete;

   private:
    bool legacy() const { return caller_ == nullptr || caller_ == cudaStreamLegacy; }
    CudaMatrix& m_;
    cudaStream_t caller_;
  };

  int device_;
  cuda::Context& ctx_;
  cuda::SparseMatrix<T> A_;
  std::unique_ptr<cuda::LinearOperator<T>> cg_operator_;
  std::unique_ptr<cuda::CgSolver<T>> cg_solver_;
  cuda::DeviceBuffer<T> cg_inv_diag_;
  cudaStream_t cg_stream_ = nullptr;
};

}  // namespace

std::shared_ptr<GpuMatrix> to_gpu(const HostCsr& A, int device, plan::IndexWidth width) {
  return std::visit(
      [&](const auto& csr) -> std::shared_ptr<GpuMatrix> {
        using T = typename std::decay_t<decltype(csr)>::value_type;
        return std::make_shared<CudaMatrix<T>>(csr, device, width);
      },
      A);
}

}  // namespace spx::python
