// The distributed CG driver (spx/cuda/dist_cg.hpp). Each rank this process drives (all of them, or
// its one rank under MPI) has its work enqueued by a thread of its own (Team::on_ranks), a batch of
// iterations per dispatch; every rank runs the same sequence and takes the same decisions:
// the fused kernels of the single-GPU solver in their "totals" form (they write the grid's sums
// instead of deciding), an NCCL all-gather of those sums, and the decide kernel, which adds them in
// rank order and makes the single-GPU solver's decisions on them. Batches of check_every
// iterations; the lead rank's state (the same bits on every rank) is copied back after each and read
// one batch late, as on one GPU.
#include "spx/cuda/dist_cg.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/dist/nccl.hpp"
#include "cuda/dist/rank_product.hpp"
#include "cuda/solve/cg_driver.hpp"
#include "cuda/solve/cg_kernels.hpp"
#include "spx/cuda/stream.hpp"
#include "spx/error.hpp"

namespace spx::cuda::dist {

using spx::cuda::detail::CgStage;
using spx::cuda::detail::CgState;

const char* to_string(Reductions r) { return r == Reductions::One ? "one" : "two"; }

namespace {
constexpr int kTotals = 5;  // the update's four sums, then δ
}

template <class T>
struct DistCgSolver<T>::Impl {
  DistSparseMatrix<T>& A;
  Team& team;
  Reductions reductions;
  DistVector<T> r, u, w, p, s;
  std::vector<unsigned> grid;
  std::vector<DeviceBuffer<double>> partials, totals, gathered;
  std::vector<DeviceBuffer<unsigned>> counter;
  std::vector<DeviceBuffer<CgState>> state;
  DeviceBuffer<double> history;  // the lead rank's
  PinnedBuffer<CgState> host_state;
  std::optional<Event> batch_done[2];  // on the lead rank's device

  Impl(DistSparseMatrix<T>& a, Reductions red)
      : A(a),
        team(a.team()),
        reductions(red),
        r(team, a.row_partition()),
        u(team, a.row_partition()),
        w(team, a.row_partition()),
        p(team, a.row_partition()),
        s(team, a.row_partition()),
        host_state(3, "dist cg state (host)") {
    const auto ranks = static_cast<std::size_t>(team.size());
    grid.resize(ranks);
    partials.resize(ranks);
    totals.resize(ranks);
    gathered.resize(ranks);
    counter.resize(ranks);
    state.resize(ranks);
    for (int k : team.members()) {
      Context& ctx = team.context(k);
      DeviceScope scope(ctx.device());
      const auto K = static_cast<std::size_t>(k);
      const int64_t n = a.row_partition().block_size(k);
      grid[K] = grid_for_resident(ctx, std::max<int64_t>(n, 1), spx::cuda::detail::kCgBlock,
                                  spx::cuda::detail::kCgBlocksPerSm);
      partials[K] = DeviceBuffer<double>(static_cast<std::size_t>(grid[K]) * 4, "dist cg partials");
      totals[K] = DeviceBuffer<double>(kTotals, "dist cg totals");
      gathered[K] =
          DeviceBuffer<double>(static_cast<std::size_t>(kTotals * team.size()), "dist cg gathered totals");
      counter[K] = DeviceBuffer<unsigned>(1, "dist cg counter");
      state[K] = DeviceBuffer<CgState>(1, "dist cg state");
      SPX_CUDA_CHECK(cudaMemsetAsync(counter[K].data(), 0, sizeof(unsigned), ctx.stream()));
      SPX_CUDA_CHECK(cudaMemsetAsync(totals[K].data(), 0, totals[K].bytes(), ctx.stream()));
    }
    DeviceScope scope(team.context(team.lead()).device());
    batch_done[0].emplace();
    batch_done[1].emplace();
    // One all-gather now: NCCL sets up the collective's connections on first use (milliseconds),
    // which belongs to the solver's setup, not to its first solve.
    team.on_ranks([&](int k) { gather(k, 0, kTotals); });
    team.synchronize();
  }

  int64_t n(int k) const { return A.row_partition().block_size(k); }
  T* u_of(int k, const DistVector<T>* inv_diag) { return inv_diag ? u.part(k).data() : r.part(k).data(); }
  const T* dinv(int k, const DistVector<T>* inv_diag) {
    return inv_diag ? inv_diag->part(k).data() : nullptr;
  }

  // Rank k's part of the all-gather of every rank's sums totals[offset, offset + count) onto every
  // rank (gathered[r·count ..]), on its compute stream and the thread that drives it.
  void gather(int k, int offset, int count) {
    const auto K = static_cast<std::size_t>(k);
    SPX_NCCL_CHECK(ncclAllGather(totals[K].data() + offset, gathered[K].data(),
                                 static_cast<std::size_t>(count), ncclFloat64,
                                 static_cast<ncclComm_t>(team.nccl_comm(k)), team.context(k).stream()));
  }

  // gather(), then the decisions of `stage` on the rank-ordered sum (cg_kernels.hpp): an all-gather
  // instead of an all-reduce, so the sums do not depend on NCCL's algorithm, the message size or
  // the rank.
  void reduce_and_decide(int k, int offset, CgStage stage, double* hist) {
    gather(k, offset, spx::cuda::detail::cg_stage_sums(stage));
    spx::cuda::detail::launch_cg_decide<T>(
        team.context(k).stream(), stage, gathered[static_cast<std::size_t>(k)].data(), team.size(),
        state[static_cast<std::size_t>(k)].data(), k == team.lead() ? hist : nullptr);
  }

  // δ = (w, u) on rank k into totals[4].
  void scalars(int k, const DistVector<T>* inv_diag) {
    const auto K = static_cast<std::size_t>(k);
    spx::cuda::detail::launch_cg_scalars<T>(team.context(k).stream(), grid[K], n(k), w.part(k).data(),
                                            u_of(k, inv_diag), partials[K].data(), counter[K].data(),
                                            state[K].data(), totals[K].data() + 4);
  }

  // w = A·u on rank k.
  void product(int k, const DistVector<T>* inv_diag) { detail::rank_spmv(A, k, inv_diag ? u : r, w); }

  // One iteration on rank k (Team::on_ranks runs a batch of them per rank, each on its own thread;
  // the ranks meet only in NCCL's messages and all-gathers, on the devices).
  void iteration(int k, const DistVector<T>* inv_diag, DistVector<T>& x, double* hist) {
    const auto K = static_cast<std::size_t>(k);
    spx::cuda::detail::launch_cg_update<T>(
        team.context(k).stream(), grid[K], n(k), w.part(k).data(), u_of(k, inv_diag), p.part(k).data(),
        s.part(k).data(), x.part(k).data(), r.part(k).data(), dinv(k, inv_diag), partials[K].data(),
        counter[K].data(), state[K].data(), nullptr, totals[K].data());
    if (reductions == Reductions::Two) reduce_and_decide(k, 0, CgStage::Update, hist);
    product(k, inv_diag);
    scalars(k, inv_diag);
    if (reductions == Reductions::Two)
      reduce_and_decide(k, 4, CgStage::Scalars, hist);
    else
      reduce_and_decide(k, 0, CgStage::UpdateThenScalars, hist);
  }
};

template <class T>
DistCgSolver<T>::DistCgSolver(DistSparseMatrix<T>& A, Reductions reductions) {
  if (A.rows() != A.cols())
    throw Error(fmt::format("dist cg: the matrix is {} × {}, not square", A.rows(), A.cols()));
  if (A.row_partition().begin != A.col_partition().begin)
    throw Error("dist cg: the matrix's rows and columns must be split alike (x and b share one layout)");
  impl_ = std::make_unique<Impl>(A, reductions);
}

template <class T>
DistCgSolver<T>::~DistCgSolver() = default;

template <class T>
Reductions DistCgSolver<T>::reductions() const {
  return impl_->reductions;
}
template <class T>
int DistCgSolver<T>::reductions_per_iteration() const {
  return impl_->reductions == Reductions::One ? 1 : 2;
}

template <class T>
CgResult DistCgSolver<T>::solve(const DistVector<T>* inv_diag, const DistVector<T>& b, DistVector<T>& x,
                                const CgOptions& options, const CgProgress& progress) {
  Impl& m = *impl_;
  Team& team = m.team;
  const auto start = std::chrono::steady_clock::now();
  const auto& layout = m.A.row_partition().begin;
  if (b.partition().begin != layout || x.partition().begin != layout || b.cols() != 1 || x.cols() != 1)
    throw Error("dist cg: b and x must be vectors split like the matrix's rows");
  if (inv_diag && (inv_diag->partition().begin != layout || inv_diag->cols() != 1))
    throw Error("dist cg: the Jacobi diagonal must be split like the matrix's rows");
  const CgState init = spx::cuda::detail::initial_cg_state(options);
  const int lead = team.lead();
  double* hist = nullptr;
  if (options.history) {
    DeviceScope scope(team.context(lead).device());
    if (m.history.size() < static_cast<std::size_t>(options.max_iterations) + 1)
      m.history =
          DeviceBuffer<double>(static_cast<std::size_t>(options.max_iterations) + 1, "dist cg history");
    hist = m.history.data();
  }

  if (options.zero_initial_guess) x.fill(T{0});
  m.p.fill(T{0});
  m.s.fill(T{0});
  for (int k : team.members()) {
    DeviceScope scope(team.context(k).device());
    copy_to_device_sync(team.context(k), m.state[static_cast<std::size_t>(k)].data(), &init, sizeof(CgState));
  }
  // r = b − A·x, u = M·r, the first decisions; then w = A·u and the first α.
  team.on_ranks([&](int k) {
    const auto K = static_cast<std::size_t>(k);
    detail::rank_spmv(m.A, k, x, m.w);
    spx::cuda::detail::launch_cg_init<T>(team.context(k).stream(), m.grid[K], m.n(k), b.part(k).data(),
                                         m.w.part(k).data(), m.r.part(k).data(), m.u_of(k, inv_diag),
                                         m.dinv(k, inv_diag), m.partials[K].data(), m.counter[K].data(),
                                         m.state[K].data(), nullptr, m.totals[K].data());
    m.reduce_and_decide(k, 0, CgStage::Init, hist);
    m.product(k, inv_diag);
    m.scalars(k, inv_diag);
    m.reduce_and_decide(k, 4, CgStage::Scalars, hist);
  });

  Context& ctx0 = team.context(lead);
  const auto L = static_cast<std::size_t>(lead);
  CgState* host = m.host_state.data();
  {
    DeviceScope scope(ctx0.device());
    copy_to_host_async(ctx0, &host[2], m.state[L].data(), sizeof(CgState));
    ctx0.synchronize();
  }
  if (host[2].status == spx::cuda::detail::kCgRunning) {
    {
      DeviceScope scope(ctx0.device());  // the state copies and events are the lead rank's
      spx::cuda::detail::run_cg_batches(
          ctx0, m.state[L].data(), host, *m.batch_done[0], *m.batch_done[1], options,
          [&] {
            team.on_ranks([&](int k) {
              for (int i = 0; i < options.check_every; ++i) m.iteration(k, inv_diag, x, hist);
            });
          },
          progress);
    }
    team.synchronize();
    DeviceScope scope(ctx0.device());
    copy_to_host_async(ctx0, &host[2], m.state[L].data(), sizeof(CgState));
    ctx0.synchronize();
  }

  const CgState st = host[2];
  CgResult res = spx::cuda::detail::cg_result(st, options);
  if (st.reason == spx::cuda::detail::kReasonZeroRhs) x.fill(T{0});
  if (options.history) {
    DeviceScope scope(ctx0.device());
    res.history.resize(static_cast<std::size_t>(st.it) + 1);
    copy_to_host_sync(ctx0, res.history.data(), m.history.data(), res.history.size() * sizeof(double));
    if (st.reason == spx::cuda::detail::kReasonZeroRhs) res.history[0] = 0;
  }
  team.synchronize();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

template <class T>
DistVector<T> inverse_diagonal(Team& team, const spx::dist::DistMatrix<T>& D) {
  if (D.rows != D.cols || D.row_partition.begin != D.col_partition.begin)
    throw Error("dist: Jacobi needs a square matrix whose rows and columns are split alike");
  DistVector<T> v(team, D.row_partition);
  for (int r : team.members()) {
    const auto& part = D.parts.at(static_cast<std::size_t>(r));
    std::vector<T> mine;
    mine.reserve(static_cast<std::size_t>(part.row_end - part.row_begin));
    for (const auto& slice : part.local) {
      try {
        const std::vector<T> d = spx::inverse_diagonal(slice.A, slice.row_begin);
        mine.insert(mine.end(), d.begin(), d.end());
      } catch (const Error& e) {
        throw Error(fmt::format("dist: rank {} (its rows from {}): {}", part.rank, part.row_begin, e.what()));
      }
    }
    v.upload_part(r, mine);
  }
  return v;
}

template class DistCgSolver<float>;
template class DistCgSolver<double>;
template DistVector<float> inverse_diagonal<float>(Team&, const spx::dist::DistMatrix<float>&);
template DistVector<double> inverse_diagonal<double>(Team&, const spx::dist::DistMatrix<double>&);

}  // namespace spx::cuda::dist
