// The GPU CG driver (spx/cuda/cg.hpp): allocation once per solver, then batches of check_every
// iterations (a CUDA graph replayed, or the same launches directly) with the device state copied
// back after each batch and read one batch late, so the host never stalls the GPU.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/solve/cg_driver.hpp"
#include "cuda/solve/cg_kernels.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/stream.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

using detail::CgState;

template <class T>
struct CgSolver<T>::Impl {
  Context& ctx;
  LinearOperator<T>& A;
  int64_t n;
  unsigned grid;
  DeviceBuffer<T> r, u, w, p, s;
  DeviceBuffer<double> partials;
  DeviceBuffer<unsigned> counter;
  DeviceBuffer<CgState> state;
  DeviceBuffer<double> history;
  PinnedBuffer<CgState> host_state;
  Event batch_done[2];

  Impl(Context& c, LinearOperator<T>& op)
      : ctx(c),
        A(op),
        n(op.size()),
        grid(grid_for_resident(c, std::max<int64_t>(op.size(), 1), detail::kCgBlock, detail::kCgBlocksPerSm)),
        r(static_cast<std::size_t>(n), "cg r"),
        u(static_cast<std::size_t>(n), "cg u"),
        w(static_cast<std::size_t>(n), "cg w"),
        p(static_cast<std::size_t>(n), "cg p"),
        s(static_cast<std::size_t>(n), "cg s"),
        partials(static_cast<std::size_t>(grid) * 4, "cg partials"),
        counter(1, "cg counter"),
        state(1, "cg state"),
        host_state(3, "cg state (host)") {
    SPX_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned), ctx.stream()));
  }

  // u = M·r; without a preconditioner u is r itself (the kernels then neither store nor read u).
  T* u_of(const T* inv_diag) { return inv_diag ? u.data() : r.data(); }

  // One iteration: w = A·u, the scalars, the update.
  void iteration(const T* inv_diag, T* x) {
    const std::size_t N = static_cast<std::size_t>(n);
    T* uu = u_of(inv_diag);
    A.apply(ctx, std::span<const T>(uu, N), std::span<T>(w.data(), N));
    detail::launch_cg_scalars<T>(ctx.stream(), grid, n, w.data(), uu, partials.data(), counter.data(),
                                 state.data());
    detail::launch_cg_update<T>(ctx.stream(), grid, n, w.data(), uu, p.data(), s.data(), x, r.data(),
                                inv_diag, partials.data(), counter.data(), state.data(),
                                history.empty() ? nullptr : history.data());
  }
};

template <class T>
CgSolver<T>::CgSolver(Context& ctx, LinearOperator<T>& A) : impl_(std::make_unique<Impl>(ctx, A)) {}
template <class T>
CgSolver<T>::~CgSolver() = default;
template <class T>
int64_t CgSolver<T>::size() const {
  return impl_->n;
}

template <class T>
double CgSolver<T>::vector_bytes_per_iteration(bool jacobi) const {
  // scalars: read w, u. update with Jacobi: read u, w, p, s, x, r, M; write p, s, x, r, u (14 words);
  // without: u is r, so read r, w, p, s, x; write p, s, x, r (11 words).
  return static_cast<double>(impl_->n) * sizeof(T) * (jacobi ? 2 + 7 + 5 : 2 + 5 + 4);
}

template <class T>
CgResult CgSolver<T>::solve(std::span<const T> inv_diag, std::span<const T> b, std::span<T> x,
                            const CgOptions& options, const CgProgress& progress) {
  Impl& m = *impl_;
  const auto start = std::chrono::steady_clock::now();
  const int64_t n = m.n;
  const std::size_t N = static_cast<std::size_t>(n);
  if (static_cast<int64_t>(b.size()) != n || static_cast<int64_t>(x.size()) != n)
    throw Error(
        fmt::format("cg: b has {} and x {} entries; the operator has {} rows", b.size(), x.size(), n));
  if (!inv_diag.empty() && static_cast<int64_t>(inv_diag.size()) != n)
    throw Error(fmt::format("cg: Jacobi diagonal has {} entries, not {}", inv_diag.size(), n));
  const CgState init = detail::initial_cg_state(options);
  const T* dinv = inv_diag.empty() ? nullptr : inv_diag.data();
  cudaStream_t stream = m.ctx.stream();
  if (options.history && m.history.size() < static_cast<std::size_t>(options.max_iterations) + 1)
    m.history = DeviceBuffer<double>(static_cast<std::size_t>(options.max_iterations) + 1, "cg history");
  double* hist = options.history ? m.history.data() : nullptr;

  copy_to_device_async(m.ctx, m.state.data(), &init, sizeof(CgState));  // pageable: copied before return
  if (options.zero_initial_guess) SPX_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, N * sizeof(T), stream));
  SPX_CUDA_CHECK(cudaMemsetAsync(m.p.data(), 0, N * sizeof(T), stream));
  SPX_CUDA_CHECK(cudaMemsetAsync(m.s.data(), 0, N * sizeof(T), stream));
  m.A.apply(m.ctx, std::span<const T>(x.data(), N), std::span<T>(m.w.data(), N));
  detail::launch_cg_init<T>(stream, m.grid, n, b.data(), m.w.data(), m.r.data(), m.u_of(dinv), dinv,
                            m.partials.data(), m.counter.data(), m.state.data(), hist);
  CgState* host = m.host_state.data();
  copy_to_host_async(m.ctx, &host[2], m.state.data(), sizeof(CgState));
  m.ctx.synchronize();

  if (host[2].status == detail::kCgRunning) {
    // Batches of k iterations (run_cg_batches), replayed as one CUDA graph when asked for.
    const int k = options.check_every;
    cudaGraphExec_t exec = nullptr;
    if (options.use_graph) {
      cudaGraph_t graph = nullptr;
      SPX_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      try {
        for (int i = 0; i < k; ++i) m.iteration(dinv, x.data());
      } catch (...) {
        cudaStreamEndCapture(stream, &graph);
        if (graph) cudaGraphDestroy(graph);
        throw;
      }
      SPX_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
      const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
      cudaGraphDestroy(graph);
      SPX_CUDA_CHECK(made);
    }
    try {
      detail::run_cg_batches(
          m.ctx, m.state.data(), host, m.batch_done[0], m.batch_done[1], options,
          [&] {
            if (exec)
              SPX_CUDA_CHECK(cudaGraphLaunch(exec, stream));
            else
              for (int i = 0; i < k; ++i) m.iteration(dinv, x.data());
          },
          progress);
    } catch (...) {
      if (exec) cudaGraphExecDestroy(exec);
      throw;
    }
    if (exec) SPX_CUDA_CHECK(cudaGraphExecDestroy(exec));
    m.ctx.synchronize();
    copy_to_host_async(m.ctx, &host[2], m.state.data(), sizeof(CgState));
    m.ctx.synchronize();
  }

  const CgState st = host[2];
  CgResult res = detail::cg_result(st, options);
  if (st.reason == detail::kReasonZeroRhs) {
    SPX_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, N * sizeof(T), stream));
  }
  if (options.history) {
    res.history.resize(static_cast<std::size_t>(st.it) + 1);
    copy_to_host_sync(m.ctx, res.history.data(), m.history.data(), res.history.size() * sizeof(double));
    if (st.reason == detail::kReasonZeroRhs) res.history[0] = 0;
  }
  m.ctx.synchronize();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

template <class T>
DeviceBuffer<T> device_inverse_diagonal(Context& ctx, const Csr<T, int32_t>& A) {
  return to_device(ctx, inverse_diagonal(A), "jacobi inverse diagonal");
}

template class CgSolver<float>;
template class CgSolver<double>;
template DeviceBuffer<float> device_inverse_diagonal<float>(Context&, const Csr<float, int32_t>&);
template DeviceBuffer<double> device_inverse_diagonal<double>(Context&, const Csr<double, int32_t>&);

}  // namespace spx::cuda
