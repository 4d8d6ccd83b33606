#include "bench/cuda_support.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuda/common/check.hpp"
#include "spx/convert.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/timing.hpp"

namespace spx::bench {

namespace {
constexpr int kColdRuns = 100;
}  // namespace

cuda::Context& bench_context() {
  static cuda::Context* ctx = new cuda::Context(0);
  return *ctx;
}

double CudaInstance::timed_run_ms() {
  cuda::EventTimer timer(bench_context());
  timer.start();
  parts_.launch();
  timer.stop();
  return timer.elapsed_ms();
}

Timing CudaInstance::time(const TimingPolicy& policy, bool cold) {
  cuda::TimingOptions o;
  o.flush_l2 = cold;
  // The engine's checked run already warmed up module loading and handles; one more call
  // settles clocks and caches after the download of the check.
  o.warmup = policy.extra_warmup_runs + (cold ? 0 : 1);
  if (policy.fixed_runs > 0) {
    o.min_runs = o.max_runs = policy.fixed_runs;
    o.min_seconds = 0;
  } else {
    o.min_runs = policy.min_runs;
    o.max_runs = policy.max_runs;
    o.min_seconds = policy.min_seconds;
    // time_kernel has no time cap, so honour the policy's max_seconds here as the engine does for
    // host kernels: a kernel slow on this matrix (one thread walking a row of 10^6 nonzeros) gets
    // as many runs as fit, but never fewer than 3.
    const double one_ms = timed_run_ms();
    if (one_ms * o.min_runs > 1e3 * policy.max_seconds) {
      o.min_runs = std::max(3, static_cast<int>(1e3 * policy.max_seconds / std::max(one_ms, 1e-6)));
    }
    // A cold run costs a 2 x L2 flush (~40 us on H100) besides the kernel, and only small working
    // sets are timed cold, so reaching min_seconds of kernel time would take thousands of flushes
    // for a 10 us kernel. The median of kColdRuns is steady enough.
    if (cold) o.max_runs = std::max(o.min_runs, std::min(o.max_runs, kColdRuns));
  }
  const Timing t = cuda::time_kernel(bench_context(), parts_.launch, o);
  return {t.median_ms, t.min_ms, t.max_ms, t.runs};
}

bool CudaInstance::measure(const TimingPolicy& policy, Timing& out) {
  out = time(policy, false);
  return true;
}

bool CudaInstance::measure_cold(const TimingPolicy& policy, Timing& out) {
  // Past the L2 size warm and cold runs both stream the data from memory (measured: 2-15% apart
  // for matrices of hundreds of MB, docs/cuda-runtime.md); only small working sets differ.
  if (parts_.working_set > bench_context().props().l2_bytes) return false;
  out = time(policy, true);
  return true;
}

void CudaInstance::poison_output() {
  if (parts_.output_bytes == 0) return;
  SPX_CUDA_CHECK(cudaMemsetAsync(parts_.output, 0xFF, parts_.output_bytes, bench_context().stream()));
}

OutputView CudaInstance::output() {
  if (parts_.view) return parts_.view();
  downloaded_ = parts_.download();
  return OutputView(std::span<const double>(downloaded_));
}

std::string DeviceCache::owner_of(const Problem& p) {
  const void* A =
      p.precision == Precision::F32 ? static_cast<const void*>(p.f32.A) : static_cast<const void*>(p.f64.A);
  return fmt::format("{}|{}|{}|{}", p.matrix, to_string(p.precision), A, p.nnz);
}

DeviceCache& device_cache() {
  static DeviceCache* cache = new DeviceCache();  // like the context it refers to: never destroyed
  return *cache;
}

template <class T>
std::shared_ptr<const cuda::DeviceCsr<T, int32_t>> device_csr(const Problem& p) {
  return device_cache().get<cuda::DeviceCsr<T, int32_t>>(
      p, "csr", [&] { return cuda::upload(bench_context(), *p.input<T>().A); });
}

template <class T>
std::shared_ptr<const cuda::DeviceCoo<T, int32_t>> device_coo(const Problem& p) {
  return device_cache().get<cuda::DeviceCoo<T, int32_t>>(
      p, "coo", [&] { return cuda::upload(bench_context(), to_coo(*p.input<T>().A)); });
}

template <class T>
std::shared_ptr<const cuda::DeviceBuffer<T>> device_x(const Problem& p) {
  return device_cache().get<cuda::DeviceBuffer<T>>(
      p, "x", [&] { return cuda::to_device(bench_context(), p.input<T>().x, "x"); });
}

template std::shared_ptr<const cuda::DeviceCsr<float, int32_t>> device_csr<float>(const Problem&);
template std::shared_ptr<const cuda::DeviceCsr<double, int32_t>> device_csr<double>(const Problem&);
template std::shared_ptr<const cuda::DeviceCoo<float, int32_t>> device_coo<float>(const Problem&);
template std::shared_ptr<const cuda::DeviceCoo<double, int32_t>> device_coo<double>(const Problem&);
template std::shared_ptr<const cuda::DeviceBuffer<float>> device_x<float>(const Problem&);
template std::shared_ptr<const cuda::DeviceBuffer<double>> device_x<double>(const Problem&);

namespace {

// The leading dimension of a row-major operand with n columns: n rounded up to 16 bytes.
template <class T>
int64_t aligned_ld(int64_t n) {
  const int64_t per16 = 16 / static_cast<int64_t>(sizeof(T));
  return std::max<int64_t>(per16, (n + per16 - 1) / per16 * per16);
}

}  // namespace

template <class T>
Dense<T> copy_in_layout(const Dense<T>& M, Layout layout, int64_t ld) {
  Dense<T> R;
  R.rows = M.rows;
  R.cols = M.cols;
  R.ld = ld;
  R.layout = layout;
  R.data.assign(static_cast<std::size_t>(ld * (layout == Layout::ColMajor ? M.cols : M.rows)), T{0});
  const int64_t rows = M.rows;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < M.cols; ++j) R(i, j) = M(i, j);
  return R;
}

template Dense<float> copy_in_layout<float>(const Dense<float>&, Layout, int64_t);
template Dense<double> copy_in_layout<double>(const Dense<double>&, Layout, int64_t);

template <class T>
std::shared_ptr<const cuda::DeviceDense<T>> device_b(const Problem& p, Layout layout) {
  const bool col = layout == Layout::ColMajor;
  return device_cache().get<cuda::DeviceDense<T>>(
      p, fmt::format("B:{}:{}", col ? "col" : "row", p.cols_dense), [&] {
        const Dense<T>& B = *p.input<T>().B;
        const int64_t ld = col ? B.rows : aligned_ld<T>(B.cols);
        // The Problem's B as it is where it has the layout and ld already (no host copy of B).
        if (B.layout == layout && B.ld == ld) return cuda::upload(bench_context(), B);
        return cuda::upload(bench_context(), copy_in_layout(B, layout, ld));
      });
}

// C for `layout`: tight column-major, or row-major with the padded leading dimension.
template <class T>
cuda::DeviceDense<T> make_c(const Problem& p, Layout layout) {
  if (layout == Layout::ColMajor) return cuda::make_device_dense<T>(p.rows, p.cols_dense, layout);
  cuda::DeviceDense<T> C;
  C.rows = p.rows;
  C.cols = p.cols_dense;
  C.ld = aligned_ld<T>(p.cols_dense);
  C.layout = layout;
  C.data = cuda::DeviceBuffer<T>(static_cast<std::size_t>(C.rows * C.ld), "C");
  return C;
}

template std::shared_ptr<const cuda::DeviceDense<float>> device_b<float>(const Problem&, Layout);
template std::shared_ptr<const cuda::DeviceDense<double>> device_b<double>(const Problem&, Layout);
template cuda::DeviceDense<float> make_c<float>(const Problem&, Layout);
template cuda::DeviceDense<double> make_c<double>(const Problem&, Layout);

template <class T>
std::span<const T> stage_to_host(const T* device, std::size_t n) {
  static cuda::PinnedBuffer<std::byte>* staging = new cuda::PinnedBuffer<std::byte>();
  const std::size_t bytes = cuda::checked_bytes(n, sizeof(T), "download staging buffer");
  if (staging->bytes() < bytes) {
    *staging = cuda::PinnedBuffer<std::byte>();  // free first: the old and new may not both fit
    *staging = cuda::PinnedBuffer<std::byte>(bytes, "download staging buffer");
  }
  cuda::copy_to_host_sync(bench_context(), staging->data(), device, bytes);
  return {reinterpret_cast<const T*>(staging->data()), n};
}

template std::span<const float> stage_to_host<float>(const float*, std::size_t);
template std::span<const double> stage_to_host<double>(const double*, std::size_t);

template <class T>
OutputView staged_view(const cuda::DeviceBuffer<T>& vector) {
  return OutputView(stage_to_host(vector.data(), vector.size()));
}

template <class T>
OutputView staged_view(const cuda::DeviceDense<T>& M) {
  const std::span<const T> h = stage_to_host(M.data.data(), M.data.size());
  return OutputView(h.data(), M.rows, M.cols, M.ld, M.layout);
}

template OutputView staged_view<float>(const cuda::DeviceBuffer<float>&);
template OutputView staged_view<double>(const cuda::DeviceBuffer<double>&);
template OutputView staged_view<float>(const cuda::DeviceDense<float>&);
template OutputView staged_view<double>(const cuda::DeviceDense<double>&);

KernelEntry cuda_entry(std::string name, OpKind op, Format format, bool vendor, std::string summary) {
  KernelEntry e;
  e.name = std::move(name);
  e.backend = "cuda";
  e.op = op;
  e.format = format;
  e.vendor = vendor;
  e.summary = std::move(summary);
  return e;
}

void register_cuda_backend(Registry& registry) {
  BackendEntry backend;
  backend.name = "cuda";
  backend.unavailable_reason = [] { return cuda::gpu_unavailable_reason(); };
  backend.describe = [] {
    cuda::Context& ctx = bench_context();
    model::DeviceBasics d = model::device_basics(ctx.props());
    d.copy_gbs = cuda::measure_copy_bandwidth(ctx).gbs;
    // Source and destination together a half of the L2: warm runs never leave it.
    d.l2_gbs =
        cuda::measure_copy_bandwidth(ctx, std::max<std::size_t>(ctx.props().l2_bytes / 4, 1 << 20)).gbs;
    return d;
  };
  backend.free_memory = [] {
    device_cache().clear();
    std::size_t free_bytes = 0, total_bytes = 0;
    SPX_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return static_cast<uint64_t>(free_bytes);
  };
  registry.add_backend(std::move(backend));
}

}  // namespace spx::bench
