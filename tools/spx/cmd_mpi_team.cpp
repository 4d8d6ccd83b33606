// `spx bench|cg --dist --backend cuda` when every rank has a GPU of its own (mpi_ranks.hpp): the
// ranks form one spx::cuda::dist::Team spread over the processes (spx/cuda/dist_mpi.hpp), so each
// runs the single-process path's products and DistCgSolver on its own rank, vectors on the device.
// With the same split and kernels, every product and iterate has the bits of `spx bench --gpus N`
// and `spx cg --gpus N` (one process driving N GPUs); the options below are theirs.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cg_rhs.hpp"
#include "cli_common.hpp"
#include "mpi_ranks.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/error.hpp"
#include "spx/reorder.hpp"
#if defined(SPX_HAVE_CUDA) && defined(SPX_HAVE_MPI)
#include "bench/team_timing.hpp"
#include "spx/cuda/dist.hpp"
#include "spx/cuda/dist_cg.hpp"
#include "spx/cuda/dist_mpi.hpp"
#endif

namespace spx::cli {

#if defined(SPX_HAVE_CUDA) && defined(SPX_HAVE_MPI)

namespace cd = spx::cuda::dist;
namespace mpi = spx::dist::mpi;
using json = nlohmann::ordered_json;

class RankTeam {
 public:
  explicit RankTeam(std::unique_ptr<cd::Team> t) : team(std::move(t)) {}
  std::unique_ptr<cd::Team> team;
};

std::shared_ptr<RankTeam> join_rank_team(int device) {
  return std::make_shared<RankTeam>(mpi::join_team(mpi::Group::World, device));
}

namespace {

constexpr int kTimedRounds = 5;  // as `spx bench --gpus` (bench/multigpu.hpp)

// This rank's part of the split of `source` (collective).
template <class T>
struct TeamSplit {
  RankRows<T> rows;  // the rows moved into D; the rest stays
  dist::DistMatrix<T> D;
};

template <class T>
TeamSplit<T> split_for_team(const bench::MatrixSource& source, bool keep_whole, const std::string& partition,
                            int64_t products = 1000) {
  TeamSplit<T> s;
  s.rows = load_rank_rows<T>(source, keep_whole, partition, products);
  s.D = mpi::distribute_parts(mpi::Group::World, s.rows.mine, s.rows.row_partition, s.rows.col_partition);
  s.rows.mine = {};
  return s;
}

// The rank's parts on its GPU, planned with the single-process path's options; every rank learns
// whether every rank's setup succeeded.
template <class T>
cd::DistSparseMatrix<T> upload_to_team(cd::Team& team, dist::DistMatrix<T>&& D, cd::DistOptions options) {
  options.agree = mpi::agree_on_setup(mpi::Group::World);
  return cd::DistSparseMatrix<T>(team, std::move(D), options);
}

// This rank's kernels: "csr_vector" or "csr_vector + csr_param" (local + remote part).
template <class T>
std::string kernels_of(cd::DistSparseMatrix<T>& A, int rank) {
  const auto name = [](const cuda::SparseMatrix<T>& M) {
    const plan::Report* r = M.spmv_report();
    return r ? r->winner().kernel : std::string("unplanned");
  };
  std::string s = name(A.local(rank));
  for (int p = 0; p < A.remote_pieces(rank); ++p) s += " + " + name(*A.remote(rank, p));
  return s;
}

}  // namespace

template <class T>
json team_bench_one(const MpiBenchOptions& o, const bench::MatrixSource& source, std::ostream& out,
                    RankTeam& rt) {
  cd::Team& team = *rt.team;
  const int me = mpi::rank();
  cd::DistOptions dopt;  // the multi-GPU benchmark's (bench/cuda_multigpu.cpp)
  dopt.plan.mode = plan::Mode::Measure;
  dopt.plan.expected_calls = 1000;
  dopt.plan.kernels = o.kernels;
  dopt.halo_chunks = o.halo_chunks;
  const auto t0 = std::chrono::steady_clock::now();
  TeamSplit<T> m = split_for_team<T>(source, true, o.partition);
  cd::DistSparseMatrix<T> A = upload_to_team(team, std::move(m.D), dopt);
  const double setup = mpi::max_over_ranks(seconds_since(t0));
  std::vector<T> x_whole(static_cast<std::size_t>(A.cols()));
  for (std::size_t i = 0; i < x_whole.size(); ++i)
    x_whole[i] = static_cast<T>(1.0 + 0.5 * std::sin(0.1 * static_cast<double>(i)));
  cd::DistVector<T> x(team, A.col_partition()), y(team, A.row_partition());
  x.upload_part(me, my_block(x_whole, A.col_partition(), me));
  cd::spmv(A, x, y);
  const std::vector<T> my_y = y.download_part(me);
  const std::string check =
      check_against_cpu(m.rows, std::span<const T>(x_whole), std::span<const T>(my_y), false);
  m.rows.whole.reset();
  RankBenchRun r;
  static_cast<RankRun&>(r) = rank_run<T>(
      source.name, "cuda", "team", "nccl", fmt::format("{}, kernels {}", team.summary(), kernels_of(A, me)),
      m.rows.built, m.rows.partition, A.rows(), A.stats().halo_entries, setup);
  r.median_seconds = 1e-3 * bench::time_team(
                                team, [&] { cd::spmv(A, x, y); }, o.min_seconds, kTimedRounds,
                                [](double v) { return mpi::max_over_ranks(v); });
  r.runs = kTimedRounds;
  r.check = check;
  r.cols = A.cols();
  r.nnz = A.nnz();
  return report_rank_bench(r, out);
}

template <class T>
json team_cg_one(const CgCliOptions& o, const bench::MatrixSource& source, std::ostream& out, RankTeam& rt) {
  cd::Team& team = *rt.team;
  const int me = mpi::rank();
  CgOptions opt = solver_options(o);
  opt.history = o.history;
  cd::DistOptions dopt;  // spx cg --gpus's (cmd_cg_dist.cpp)
  dopt.plan.mode = plan::Mode::Measure;
  dopt.plan.deterministic_only = true;
  dopt.plan.expected_calls = std::max<int64_t>(o.maxit, 100);
  if (o.operators != "auto") dopt.plan.kernels = split_list(o.operators);
  const auto t0 = std::chrono::steady_clock::now();
  TeamSplit<T> m = split_for_team<T>(source, false, o.partition, o.maxit);
  if (m.D.rows != m.D.cols)
    throw mpi::JobError(
        fmt::format("{}: cg needs a square matrix; it is {} x {}", source.name, m.D.rows, m.D.cols), me == 0);
  std::optional<cd::DistVector<T>> inv;
  if (opt.preconditioner == Preconditioner::Jacobi) {
    std::string error;
    try {
      inv.emplace(cd::inverse_diagonal(team, m.D));
    } catch (const Error& e) {
      error = e.what();
    }
    if (mpi::sum_over_ranks(static_cast<int64_t>(!error.empty())) > 0)
      throw mpi::JobError(error.empty() ? "another rank's Jacobi diagonal failed" : error, !error.empty());
  }
  cd::DistSparseMatrix<T> A = upload_to_team(team, std::move(m.D), dopt);
  const double setup = mpi::max_over_ranks(seconds_since(t0));
  std::vector<T> b_whole = make_rhs<T>(o.rhs, A.rows());
  if (!m.rows.perm.empty())
    b_whole = reorder::permute(std::span<const T>(b_whole), std::span<const int32_t>(m.rows.perm));
  const std::vector<T> b = my_block(b_whole, A.row_partition(), me);
  b_whole = {};
  cd::DistVector<T> db(team, A.row_partition()), dx(team, A.row_partition()), dy(team, A.row_partition());
  db.upload_part(me, b);
  cd::DistCgSolver<T> solver(A, o.reductions == "two" ? cd::Reductions::Two : cd::Reductions::One);
  RankCgRun r;
  static_cast<RankRun&>(r) = rank_run<T>(
      source.name, "cuda", "team", "nccl", fmt::format("{}, kernels {}", team.summary(), kernels_of(A, me)),
      m.rows.built, m.rows.partition, A.rows(), A.stats().halo_entries, setup);
  r.result = solver.solve(inv ? &*inv : nullptr, db, dx, opt);
  cd::spmv(A, dx, dy);  // the true residual from the distributed product
  const std::vector<T> ax = dy.download_part(me);
  r.true_relative_residual =
      true_relative_residual(std::span<const T>(b), std::span<const T>(ax), r.result.rhs_norm);
  r.preconditioner = opt.preconditioner;
  r.history = o.history;
  return report_rank_cg(r, out);
}

#else  // the CLI refuses --backend cuda before reaching these without CUDA or MPI

namespace {
[[noreturn]] void no_gpu_ranks() { throw Error("GPU ranks: this spx was built without CUDA or MPI"); }
}  // namespace

class RankTeam {};
std::shared_ptr<RankTeam> join_rank_team(int) { no_gpu_ranks(); }
template <class T>
nlohmann::ordered_json team_bench_one(const MpiBenchOptions&, const bench::MatrixSource&, std::ostream&,
                                      RankTeam&) {
  no_gpu_ranks();
}
template <class T>
nlohmann::ordered_json team_cg_one(const CgCliOptions&, const bench::MatrixSource&, std::ostream&,
                                   RankTeam&) {
  no_gpu_ranks();
}

#endif

template nlohmann::ordered_json team_bench_one<float>(const MpiBenchOptions&, const bench::MatrixSource&,
                                                      std::ostream&, RankTeam&);
template nlohmann::ordered_json team_bench_one<double>(const MpiBenchOptions&, const bench::MatrixSource&,
                                                       std::ostream&, RankTeam&);
template nlohmann::ordered_json team_cg_one<float>(const CgCliOptions&, const bench::MatrixSource&,
                                                   std::ostream&, RankTeam&);
template nlohmann::ordered_json team_cg_one<double>(const CgCliOptions&, const bench::MatrixSource&,
                                                    std::ostream&, RankTeam&);

}  // namespace spx::cli
