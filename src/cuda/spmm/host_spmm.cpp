// Host-resident SpMM in column chunks: FastSpMM* (Algorithm 2, one lane) and FastSpMM (Algorithm 3,
// several lanes overlapping copies and kernels). The design and the measurements behind the
// defaults are in docs/spmm-streaming.md.
//
// Streams. `streams` is the number of lanes (buffer sets: a device chunk of B and of C and, when
// staging, pinned copies of them); chunk i uses lane i % lanes. With one lane everything is serial
// (Algorithm 2). With more, three streams run the stages (Algorithm 3):
//   up (H2D):     wait kernel(i - lanes) [read lane's B], copy B_i (+ C_i when beta != 0)
//   ctx.stream(): wait up(i) and down(i - lanes) [lane's C emptied], chunk product
//   down (D2H):   wait kernel(i), copy C_i
// so H2D(i+1), the kernel of chunk i and D2H(i-1) overlap, each direction's copies run in order at
// full bandwidth, and PCIe carries both directions at once. Each stage of each chunk is bracketed
// by events on its stream; the host reads them once at the end (staging waits only where it must
// refill or empty a pinned buffer).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/format_bytes.hpp"
#include "spx/cuda/spmm_host.hpp"
#include "spx/cuda/stream.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

const char* to_string(HostTransfer transfer) {
  switch (transfer) {
    case HostTransfer::Auto:
      return "auto";
    case HostTransfer::Staged:
      return "staged";
    case HostTransfer::Registered:
      return "registered";
    case HostTransfer::Direct:
      return "direct";
  }
  return "?";
}

HostTransfer parse_host_transfer(const std::string& text) {
  for (HostTransfer t :
       {HostTransfer::Auto, HostTransfer::Staged, HostTransfer::Registered, HostTransfer::Direct}) {
    if (text == to_string(t)) return t;
  }
  throw Error(fmt::format("unknown host transfer '{}' (auto, staged, registered, direct)", text));
}

std::string to_string(const SpmmHostReport& r) {
  return fmt::format(
      "{} chunks of {} columns on {} stream(s), {}: PT {:.3f} ms, CT {:.3f} ms (H2D {:.3f}, D2H {:.3f}), "
      "staging {:.3f} ms, runtime {:.3f} ms, {:.1f}% communication",
      r.chunks, r.chunk_cols, r.streams, to_string(r.transfer), r.processing_ms, r.communication_ms, r.h2d_ms,
      r.d2h_ms, r.staging_ms, r.runtime_ms, r.percent_communication);
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// cudaHostRegister for the duration of a call; a no-op for memory that is already pinned.
class HostRegistration {
 public:
  HostRegistration(const void* ptr, std::size_t bytes) {
    if (ptr == nullptr || bytes == 0 || is_pinned(ptr)) return;
    // cudaHostRegister does not write the memory; it only takes a non-const pointer. It pins whole
    // pages, so two small matrices sharing a page make the second call fail (already registered);
    // then, or if the system refuses, the copies still work: the driver stages unpinned memory itself.
    const cudaError_t status = cudaHostRegister(const_cast<void*>(ptr), bytes, cudaHostRegisterDefault);
    if (status != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    ptr_ = const_cast<void*>(ptr);
  }
  ~HostRegistration() {
    if (ptr_ != nullptr && cudaHostUnregister(ptr_) != cudaSuccess) cudaGetLastError();
  }
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

  static bool is_pinned(const void* ptr) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return attr.type == cudaMemoryTypeHost;
  }

 private:
  void* ptr_ = nullptr;
};

// Where columns [first, first + count) of a host matrix start, and how they are strided: `rows_of`
// runs of `run` contiguous elements, `pitch` apart (RowMajor: one run per row; ColMajor: one per column).
template <class T>
struct HostColumns {
  T* base = nullptr;
  int64_t runs = 0;
  int64_t run = 0;
  int64_t pitch = 0;
};

template <class T>
HostColumns<T> host_columns(T* data, int64_t rows, int64_t ld, Layout layout, int64_t first, int64_t count) {
  if (layout == Layout::RowMajor) return {data + first, rows, count, ld};
  return {data + first * ld, count, rows, ld};
}

// The device chunk of a host matrix: the same layout, tight (ld = width for RowMajor, rows for ColMajor).
template <class T>
DenseView<T> device_chunk(T* data, int64_t rows, int64_t width, Layout layout) {
  const int64_t ld = layout == Layout::RowMajor ? std::max<int64_t>(width, 1) : std::max<int64_t>(rows, 1);
  return {data, rows, width, ld, layout};
}

// Host gather/scatter between the user's strided columns and a tight staging buffer. Rows of a
// row-major chunk are short (width * sizeof(T) bytes), so one memcpy per row, spread over the OpenMP
// threads: one core copies ~10 GB/s, below one PCIe direction (~55 GB/s on the H100 machine).
template <class T>
void pack(HostColumns<const T> src, T* tight) {
  const std::size_t run_bytes = static_cast<std::size_t>(src.run) * sizeof(T);
  const int64_t runs = src.runs;
  if (src.pitch == src.run) {  // already contiguous: split one big copy over the threads
    const int64_t total = runs * src.run, piece = int64_t{1} << 18;
#pragma omp parallel for schedule(static) if (total > 4 * piece)
    for (int64_t p = 0; p < (total + piece - 1) / piece; ++p) {
      const int64_t n = std::min(piece, total - p * piece);
      std::memcpy(tight + p * piece, src.base + p * piece, static_cast<std::size_t>(n) * sizeof(T));
    }
    return;
  }
#pragma omp parallel for schedule(static) if (runs * src.run > (int64_t{1} << 16))
  for (int64_t r = 0; r < runs; ++r) std::memcpy(tight + r * src.run, src.base + r * src.pitch, run_bytes);
}

template <class T>
void unpack(const T* tight, HostColumns<T> dst) {
  const std::size_t run_bytes = static_cast<std::size_t>(dst.run) * sizeof(T);
  const int64_t runs = dst.runs;
  if (dst.pitch == dst.run) {
    const int64_t total = runs * dst.run, piece = int64_t{1} << 18;
#pragma omp parallel for schedule(static) if (total > 4 * piece)
    for (int64_t p = 0; p < (total + piece - 1) / piece; ++p) {
      const int64_t n = std::min(piece, total - p * piece);
      std::memcpy(dst.base + p * piece, tight + p * piece, static_cast<std::size_t>(n) * sizeof(T));
    }
    return;
  }
#pragma omp parallel for schedule(static) if (runs * dst.run > (int64_t{1} << 16))
  for (int64_t r = 0; r < runs; ++r) std::memcpy(dst.base + r * dst.pitch, tight + r * dst.run, run_bytes);
}

// One strided host<->device copy; a contiguous one goes through cudaMemcpyAsync (the 2D engine path
// is slower for one long run).
void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
             std::size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  if (width == 0 || height == 0) return;
  if ((dpitch == width && spitch == width) || height == 1) {
    SPX_CUDA_CHECK(cudaMemcpyAsync(dst, src, width * height, kind, stream));
  } else {
    SPX_CUDA_CHECK(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream));
  }
}

}  // namespace

PinnedRegion::PinnedRegion(const void* ptr, std::size_t bytes) {
  if (ptr == nullptr || bytes == 0 || HostRegistration::is_pinned(ptr)) return;
  SPX_CUDA_CHECK(cudaHostRegister(const_cast<void*>(ptr), bytes, cudaHostRegisterDefault));
  ptr_ = const_cast<void*>(ptr);
}

PinnedRegion::~PinnedRegion() {
  if (ptr_ != nullptr && cudaHostUnregister(ptr_) != cudaSuccess) cudaGetLastError();
}

namespace {

// One buffer set: chunk i uses lane i % lanes.
template <class T>
struct Lane {
  DeviceBuffer<T> b_dev, c_dev;
  PinnedBuffer<T> b_pin, c_pin;
};

// The six events of one chunk: each stage bracketed on the stream that runs it.
struct ChunkEvents {
  Event in_start, in_done, product_start, product_done, out_start, out_done;
};

void check_options(const SpmmHostOptions& o) {
  if (o.streams < 1 || o.streams > 16)
    throw Error(fmt::format("host-resident SpMM: streams = {} (must be 1..16)", o.streams));
  if (o.chunk_cols < 0)
    throw Error(fmt::format("host-resident SpMM: chunk_cols = {} (must be >= 0; 0 sizes it from free memory)",
                            o.chunk_cols));
}

}  // namespace

int64_t resolve_chunk_cols(const Context& ctx, int64_t a_rows, int64_t a_cols, std::size_t a_device_bytes,
                           std::size_t value_bytes, int64_t dense_cols, const SpmmHostOptions& options) {
  check_options(options);
  if (dense_cols <= 0) return 0;
  if (options.chunk_cols > 0) return std::min(options.chunk_cols, dense_cols);

  std::size_t free_bytes = 0, total_bytes = 0;
  SPX_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  (void)ctx;
  // Margin: the CUDA context, cuSPARSE/cuBLAS workspaces and the kernels' own scratch come later.
  const std::size_t margin = std::max<std::size_t>(std::size_t{256} << 20, total_bytes / 50);
  std::size_t budget = free_bytes > margin ? free_bytes - margin : 0;
  std::string limit_text;
  if (options.device_memory_limit > 0) {
    const std::size_t left =
        options.device_memory_limit > a_device_bytes ? options.device_memory_limit - a_device_bytes : 0;
    budget = std::min(budget, left);
    limit_text = fmt::format(", device_memory_limit {} less A's {}",
                             format_bytes(options.device_memory_limit), format_bytes(a_device_bytes));
  }
  const std::size_t per_column = static_cast<std::size_t>(options.streams) *
                                 static_cast<std::size_t>(std::max<int64_t>(a_rows + a_cols, 1)) *
                                 value_bytes;
  if (budget < per_column) {
    throw Error(fmt::format(
        "host-resident SpMM: one column of B and C on {} stream(s) needs {} of device memory, but only {} "
        "is available ({} free of {}, {} kept back{})",
        options.streams, format_bytes(per_column), format_bytes(budget), format_bytes(free_bytes),
        format_bytes(total_bytes), format_bytes(margin), limit_text));
  }
  int64_t cols = std::min<int64_t>(dense_cols, static_cast<int64_t>(budget / per_column));
  if (options.streams >= 2) {
    // About 16 chunks: the pipeline's fill and drain cost about two chunks' stage times, so n chunks
    // reach n / (n + 2) of the slowest stage's rate (16: 89%; 8 measured 60-76% on the H100).
    const int64_t target = (dense_cols + 15) / 16;
    cols = std::min(cols, std::max<int64_t>(8, (target + 7) / 8 * 8));
  }
  return std::max<int64_t>(cols, 1);
}

template <class T>
SpmmHostReport spmm_host(Context& ctx, int64_t a_rows, int64_t a_cols, std::size_t a_device_bytes,
                         const ChunkProduct<T>& product, bool reads_c, const Dense<T>& B, Dense<T>& C,
                         const SpmmHostOptions& options) {
  check_options(options);
  if (B.rows != a_cols || C.rows != a_rows || B.cols != C.cols) {
    throw Error(fmt::format(
        "host-resident SpMM: A is {} x {}, B is {} x {} and C is {} x {} (need B = {} x L and C = {} x L)",
        a_rows, a_cols, B.rows, B.cols, C.rows, C.cols, a_cols, a_rows));
  }
  B.validate();
  C.validate();

  SpmmHostReport report;
  report.streams = options.streams;
  const int64_t L = B.cols;
  if (L == 0 || a_rows == 0) return report;  // nothing to compute or to write

  const auto setup_start = Clock::now();
  const int64_t width = resolve_chunk_cols(ctx, a_rows, a_cols, a_device_bytes, sizeof(T), L, options);
  report.chunk_cols = width;
  report.chunks = (L + width - 1) / width;
  // More buffer sets than chunks would only hold memory.
  const int lanes = static_cast<int>(std::min<int64_t>(options.streams, report.chunks));

  HostTransfer transfer = options.transfer;
  if (transfer == HostTransfer::Auto) {
    const bool pinned =
        HostRegistration::is_pinned(B.data.data()) && HostRegistration::is_pinned(C.data.data());
    transfer = pinned ? HostTransfer::Direct : HostTransfer::Staged;
  }
  report.transfer = transfer;
  const bool staged = transfer == HostTransfer::Staged;

  const std::size_t b_chunk = static_cast<std::size_t>(a_cols * width);
  const std::size_t c_chunk = static_cast<std::size_t>(a_rows * width);
  std::vector<Lane<T>> lane(static_cast<std::size_t>(lanes));
  for (auto& l : lane) {
    l.b_dev = DeviceBuffer<T>(b_chunk, "a host-resident SpMM chunk of B");
    l.c_dev = DeviceBuffer<T>(c_chunk, "a host-resident SpMM chunk of C");
    report.device_bytes += l.b_dev.bytes() + l.c_dev.bytes();
    if (staged) {
      l.b_pin = PinnedBuffer<T>(b_chunk, "pinned staging of a chunk of B");
      l.c_pin = PinnedBuffer<T>(c_chunk, "pinned staging of a chunk of C");
      report.pinned_bytes += l.b_pin.bytes() + l.c_pin.bytes();
    }
  }
  // FastSpMM* (one lane): every copy on one stream, so chunk i+1's H2D waits for chunk i's D2H
  // (Algorithm 2). FastSpMM: one stream per direction. Copies of one direction then run in chunk
  // order at full bandwidth instead of sharing it (lanes on their own streams started their H2Ds
  // together, finished them together, and fell into lockstep: all H2D, then all D2H — measured on
  // the H100: the directions did not overlap at all), and a lane's next H2D waits only for the
  // kernel that read its B chunk, not for its D2H.
  Stream up, down_own;
  const cudaStream_t down = lanes == 1 ? up.get() : down_own.get();
  // The copies start after whatever the caller enqueued on ctx.stream() (e.g. A's upload).
  Event ctx_ready;
  ctx_ready.record(ctx.stream());
  up.wait(ctx_ready.get());
  std::vector<std::unique_ptr<ChunkEvents>> ev(static_cast<std::size_t>(report.chunks));
  report.setup_ms = ms_since(setup_start);

  const auto run_start = Clock::now();
  std::unique_ptr<HostRegistration> reg_b, reg_c;
  if (transfer == HostTransfer::Registered) {
    const auto t0 = Clock::now();
    reg_b = std::make_unique<HostRegistration>(B.data.data(), B.data.size() * sizeof(T));
    reg_c = std::make_unique<HostRegistration>(C.data.data(), C.data.size() * sizeof(T));
    report.staging_ms += ms_since(t0);
  }

  const auto columns_of = [&](int64_t chunk) {
    const int64_t first = chunk * width;
    return std::pair<int64_t, int64_t>{first, std::min(width, L - first)};
  };
  const auto events = [&](int64_t chunk) -> ChunkEvents& { return *ev[static_cast<std::size_t>(chunk)]; };
  // Staged: waits for a chunk's D2H and scatters its C from pinned staging into the user's C.
  int64_t unpacked = 0;  // chunks [0, unpacked) are in the user's C
  const auto unpack_through = [&](int64_t chunk) {
    for (; unpacked <= chunk; ++unpacked) {
      events(unpacked).out_done.synchronize();
      const auto [first, w] = columns_of(unpacked);
      const auto t0 = Clock::now();
      unpack(lane[static_cast<std::size_t>(unpacked % lanes)].c_pin.data(),
             host_columns(C.data.data(), C.rows, C.ld, C.layout, first, w));
      report.staging_ms += ms_since(t0);
    }
  };

  for (int64_t chunk = 0; chunk < report.chunks; ++chunk) {
    Lane<T>& l = lane[static_cast<std::size_t>(chunk % lanes)];
    const int64_t prev = chunk - lanes;  // the last chunk that used these buffers, or < 0
    ev[static_cast<std::size_t>(chunk)] = std::make_unique<ChunkEvents>();
    ChunkEvents& e = events(chunk);
    const auto [first, w] = columns_of(chunk);
    const DenseView<T> b_view = device_chunk(l.b_dev.data(), a_cols, w, B.layout);
    const DenseView<T> c_view = device_chunk(l.c_dev.data(), a_rows, w, C.layout);
    const HostColumns<const T> b_host = host_columns(B.data.data(), B.rows, B.ld, B.layout, first, w);
    const HostColumns<T> c_host = host_columns(C.data.data(), C.rows, C.ld, C.layout, first, w);
    // Device chunk geometry as copy arguments: runs of `run` elements, tight.
    const std::size_t bw = static_cast<std::size_t>(b_host.run) * sizeof(T);
    const std::size_t cw = static_cast<std::size_t>(c_host.run) * sizeof(T);
    const std::size_t b_bytes = bw * static_cast<std::size_t>(b_host.runs);
    const std::size_t c_bytes = cw * static_cast<std::size_t>(c_host.runs);

    if (staged) {
      if (prev >= 0) events(prev).in_done.synchronize();  // b_pin was sent
      // FastSpMM* stays strictly serial (Algorithm 2); with beta != 0 c_pin is about to take C as input.
      if (prev >= 0 && (reads_c || lanes == 1)) unpack_through(prev);
      const auto t0 = Clock::now();
      pack(b_host, l.b_pin.data());
      if (reads_c)
        pack(HostColumns<const T>{c_host.base, c_host.runs, c_host.run, c_host.pitch}, l.c_pin.data());
      report.staging_ms += ms_since(t0);
    }
    // H2D: the B buffer is free once the kernel of `prev` ran; with beta != 0 the C buffer also
    // takes input, so it must have gone out.
    if (prev >= 0) {
      up.wait(events(prev).product_done.get());
      if (reads_c) up.wait(events(prev).out_done.get());
    }
    e.in_start.record(up.get());
    const void* b_src = staged ? static_cast<const void*>(l.b_pin.data()) : b_host.base;
    const std::size_t b_pitch = staged ? bw : static_cast<std::size_t>(b_host.pitch) * sizeof(T);
    copy_2d(b_view.data, bw, b_src, b_pitch, bw, static_cast<std::size_t>(b_host.runs),
            cudaMemcpyHostToDevice, up.get());
    const std::size_t c_pitch = staged ? cw : static_cast<std::size_t>(c_host.pitch) * sizeof(T);
    if (reads_c) {
      const void* c_src = staged ? static_cast<const void*>(l.c_pin.data()) : c_host.base;
      copy_2d(c_view.data, cw, c_src, c_pitch, cw, static_cast<std::size_t>(c_host.runs),
              cudaMemcpyHostToDevice, up.get());
    }
    e.in_done.record(up.get());
    report.h2d_bytes += b_bytes + (reads_c ? c_bytes : 0);

    // Kernel: after its inputs arrived and after the D2H of `prev` emptied the C buffer.
    SPX_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(), e.in_done.get(), 0));
    if (prev >= 0) SPX_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(), events(prev).out_done.get(), 0));
    e.product_start.record(ctx.stream());
    product(DenseView<const T>{b_view.data, b_view.rows, b_view.cols, b_view.ld, b_view.layout}, c_view);
    e.product_done.record(ctx.stream());

    // D2H (staged: into c_pin, which the host must have emptied of `prev` first).
    if (staged && prev >= 0) unpack_through(prev);
    SPX_CUDA_CHECK(cudaStreamWaitEvent(down, e.product_done.get(), 0));
    e.out_start.record(down);
    void* c_dst = staged ? static_cast<void*>(l.c_pin.data()) : static_cast<void*>(c_host.base);
    copy_2d(c_dst, c_pitch, c_view.data, cw, cw, static_cast<std::size_t>(c_host.runs),
            cudaMemcpyDeviceToHost, down);
    e.out_done.record(down);
    report.d2h_bytes += c_bytes;
  }
  if (staged) unpack_through(report.chunks - 1);
  up.synchronize();
  SPX_CUDA_CHECK(cudaStreamSynchronize(down));
  ctx.synchronize();  // an asynchronous fault in a kernel becomes an spx::Error here
  reg_b.reset();
  reg_c.reset();
  report.runtime_ms = ms_since(run_start);
  for (const auto& e : ev) {
    report.h2d_ms += elapsed_ms(e->in_start, e->in_done);
    report.processing_ms += elapsed_ms(e->product_start, e->product_done);
    report.d2h_ms += elapsed_ms(e->out_start, e->out_done);
  }
  report.communication_ms = report.h2d_ms + report.d2h_ms;
  report.percent_communication =
      report.runtime_ms > 0 ? 100.0 * report.communication_ms / report.runtime_ms : 0;
  report.exposed_ms = std::max(0.0, report.runtime_ms - report.processing_ms);
  return report;
}

// The chunk width from the free memory, then the format's rule for it, then the chunked product.
template <class T, class Matrix, class Rule, class Product>
SpmmHostReport spmm_host_with(Context& ctx, const Matrix& A, const Dense<T>& B, Dense<T>& C,
                              const SpmmHostOptions& options, bool reads_c, Rule rule, Product product) {
  SpmmHostOptions o = options;
  o.chunk_cols = resolve_chunk_cols(ctx, A.rows, A.cols, A.bytes(), sizeof(T), B.cols, options);
  const auto config = rule(std::max<int64_t>(o.chunk_cols, 1));
  const ChunkProduct<T> chunk = [&](DenseView<const T> Bc, DenseView<T> Cc) { product(config, Bc, Cc); };
  return spmm_host<T>(ctx, A.rows, A.cols, A.bytes(), chunk, reads_c, B, C, o);
}

template <class T, class I>
SpmmHostReport spmm_host(Context& ctx, const DeviceEllR<T, I>& A, const MatrixStats& stats, const Dense<T>& B,
                         Dense<T>& C, const SpmmHostOptions& options, T alpha, T beta) {
  return spmm_host_with<T>(
      ctx, A, B, C, options, beta != T{0},
      [&](int64_t cols) { return plan::spmm_ellr_rule(stats, cols, ctx.props()); },
      [&](const SpmmEllrParams& config, DenseView<const T> Bc, DenseView<T> Cc) {
        spmm_ellr_t(ctx, A, Bc, Cc, config, alpha, beta);
      });
}

template <class T, class I>
SpmmHostReport spmm_host(Context& ctx, const DeviceCsr<T, I>& A, const MatrixStats& stats, const Dense<T>& B,
                         Dense<T>& C, const SpmmHostOptions& options, T alpha, T beta) {
  return spmm_host_with<T>(
      ctx, A, B, C, options, beta != T{0},
      [&](int64_t cols) {
        return plan::spmm_csr_rule(stats, cols, ctx.props(), static_cast<int>(sizeof(T)));
      },
      [&](const SpmmCsrParams& config, DenseView<const T> Bc, DenseView<T> Cc) {
        spmm_csr(ctx, A, Bc, Cc, config, alpha, beta);
      });
}

#define SPX_INSTANTIATE_SPMM_HOST(T)                                                                         \
  template SpmmHostReport spmm_host<T>(Context&, int64_t, int64_t, std::size_t, const ChunkProduct<T>&,      \
                                       bool, const Dense<T>&, Dense<T>&, const SpmmHostOptions&);            \
  template SpmmHostReport spmm_host<T, int32_t>(Context&, const DeviceEllR<T, int32_t>&, const MatrixStats&, \
                                                const Dense<T>&, Dense<T>&, const SpmmHostOptions&, T, T);   \
  template SpmmHostReport spmm_host<T, int32_t>(Context&, const DeviceCsr<T, int32_t>&, const MatrixStats&,  \
                                                const Dense<T>&, Dense<T>&, const SpmmHostOptions&, T, T);
SPX_INSTANTIATE_SPMM_HOST(float)
SPX_INSTANTIATE_SPMM_HOST(double)
#undef SPX_INSTANTIATE_SPMM_HOST

}  // namespace spx::cuda
