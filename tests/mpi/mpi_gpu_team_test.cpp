// One spx::cuda::dist::Team spread over the MPI ranks, a GPU each (spx/cuda/dist_mpi.hpp): every
// rank builds only its part (distribute_parts) and runs the single-process products and CG on it.
// Checked: SpMV and SpMM within rounding of the CPU on every rank's rows, the statistics of the
// whole split, and CG's iterates, history and solution bitwise those of one process driving the
// same GPUs (rank 0 runs that afterwards, the others waiting). Skipped unless every rank has a GPU
// of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mpi_test_support.hpp"
#include "spx/cg.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/dist.hpp"
#include "spx/cuda/dist_cg.hpp"
#include "spx/cuda/dist_mpi.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/dist_mpi_gpu.hpp"
#include "spx/generate.hpp"

namespace mpi = spx::dist::mpi;
namespace cd = spx::cuda::dist;
using spx::Csr;
using spx::dist::Partition;

namespace {

using spx::test::mpi_ranks::block;
using spx::test::mpi_ranks::same_bits;
using spx::test::mpi_ranks::test_vector;

#define SKIP_WITHOUT_A_GPU_PER_RANK()          \
  if (spx::cuda::device_count() < mpi::size()) \
  GTEST_SKIP() << mpi::size() << " ranks, " << spx::cuda::device_count() << " GPUs: the team needs one each"

// The team of this job, made once (NCCL's setup costs ~1 s) and kept for every test.
cd::Team& job_team() {
  static std::unique_ptr<cd::Team> team = [] {
    const mpi::RankGpu g = mpi::choose_rank_gpu(mpi::Group::World);
    return mpi::join_team(mpi::Group::World, g.device);
  }();
  return *team;
}

template <class T>
spx::dist::DistMatrix<T> my_parts(const Csr<T, int32_t>& whole, const Partition& rows,
                                  const Partition& cols) {
  const auto r = static_cast<std::size_t>(mpi::rank());
  return mpi::distribute_parts(mpi::Group::World, mpi::rows_of(whole, rows.begin[r], rows.begin[r + 1]), rows,
                               cols);
}

cd::DistOptions agreed(std::vector<std::string> kernels = {}) {
  cd::DistOptions o;
  o.plan.kernels = std::move(kernels);
  o.agree = mpi::agree_on_setup(mpi::Group::World);
  return o;
}

// Every entry of this rank's rows of Y (L columns, row-major) within 2 (n_i + 2) u (|A| |X|)_i of
// the CPU's product.
template <class T>
void expect_product_within_rounding(const Csr<T, int32_t>& whole, const Partition& rows,
                                    const Partition& cols, int64_t L) {
  cd::Team& team = job_team();
  const int r = mpi::rank();
  cd::DistSparseMatrix<T> A(team, my_parts(whole, rows, cols), agreed());
  EXPECT_EQ(A.nnz(), static_cast<int64_t>(whole.nnz()));
  EXPECT_EQ(A.stats().halo_entries,
            spx::dist::statistics(spx::dist::distribute(whole, rows, cols)).halo_entries);
  const std::vector<T> x = test_vector<T>(whole.cols * L);
  cd::DistVector<T> X(team, cols, L), Y(team, rows, L);
  X.upload_part(
      r, std::span<const T>(x).subspan(static_cast<std::size_t>(cols.begin[static_cast<std::size_t>(r)] * L),
                                       static_cast<std::size_t>(cols.block_size(r) * L)));
  Y.upload_part(r, std::vector<T>(static_cast<std::size_t>(rows.block_size(r) * L),
                                  std::numeric_limits<T>::quiet_NaN()));  // poisoned
  if (L == 1)
    cd::spmv(A, X, Y);
  else
    cd::spmm(A, X, Y);
  const std::vector<T> got = Y.download_part(r);
  const int64_t first = rows.begin[static_cast<std::size_t>(r)];
  const double u = std::numeric_limits<T>::epsilon();
  int64_t bad = 0;
  for (int64_t i = 0; i < rows.block_size(r); ++i)
    for (int64_t c = 0; c < L; ++c) {
      double want = 0, scale = 0;
      const auto k0 = whole.row_ptr[static_cast<std::size_t>(first + i)];
      const auto k1 = whole.row_ptr[static_cast<std::size_t>(first + i) + 1];
      for (auto k = k0; k < k1; ++k) {
        const double term =
            static_cast<double>(whole.values[static_cast<std::size_t>(k)]) *
            static_cast<double>(
                x[static_cast<std::size_t>(whole.col_idx[static_cast<std::size_t>(k)] * L + c)]);
        want += term;
        scale += std::abs(term);
      }
      const double g = static_cast<double>(got[static_cast<std::size_t>(i * L + c)]);
      if (!(std::abs(g - want) <= 2.0 * static_cast<double>(k1 - k0 + 2) * u * scale)) ++bad;
    }
  EXPECT_EQ(bad, 0) << "rank " << r << " of " << mpi::size() << ", L = " << L;
}

TEST(MpiGpuTeam, ProductsAreWithinRoundingOfTheCpu) {
  SKIP_WITHOUT_A_GPU_PER_RANK();
  const int P = mpi::size();
  const auto pl = spx::gen::power_law<double, int32_t>(3000, 8.0, 2.1, 7);  // most columns remote
  const auto p = spx::dist::partition_rows(pl, P);
  expect_product_within_rounding(pl, p, p, 1);
  expect_product_within_rounding(pl, p, p, 3);
  const auto rect = spx::gen::random_uniform<float, int32_t>(1201, 577, 9, 5);  // x split unlike the rows
  expect_product_within_rounding(rect, spx::dist::partition_rows(rect, P), spx::dist::partition_even(577, P),
                                 1);
}

// CG on the team of processes against one process driving the same GPUs with the same split and
// kernel: the same decisions on the same rank-ordered sums, so the same bits.
template <class T>
void expect_cg_matches_one_process(const Csr<T, int32_t>& whole, spx::Preconditioner precond) {
  cd::Team& team = job_team();
  const int P = mpi::size(), r = mpi::rank();
  const Partition rows = spx::dist::partition_rows(whole, P);
  spx::CgOptions opt;
  opt.rtol = sizeof(T) == 4 ? 1e-5 : 1e-8;  // float stagnates before 1e-8
  opt.max_iterations = 2000;
  opt.preconditioner = precond;
  opt.history = true;
  const std::vector<T> b = test_vector<T>(whole.rows);
  const auto solve = [&](cd::Team& t, spx::dist::DistMatrix<T> D, cd::DistOptions o) {
    std::optional<cd::DistVector<T>> inv;
    if (precond == spx::Preconditioner::Jacobi) inv.emplace(cd::inverse_diagonal(t, D));
    cd::DistSparseMatrix<T> A(t, std::move(D), o);
    cd::DistVector<T> db(t, rows), dx(t, rows);
    for (int k : t.members()) db.upload_part(k, block(b, rows, k));
    cd::DistCgSolver<T> solver(A);
    spx::CgResult res = solver.solve(inv ? &*inv : nullptr, db, dx, opt);
    std::vector<T> x;
    for (int k : t.members()) {
      const std::vector<T> part = dx.download_part(k);
      x.insert(x.end(), part.begin(), part.end());
    }
    return std::pair{res, x};
  };
  const auto [res, mine] = solve(team, my_parts(whole, rows, rows), agreed({"csr_vector"}));
  EXPECT_EQ(res.status, spx::CgStatus::Converged);
  const std::vector<T> x = mpi::gather_rows(mpi::Group::World, rows, std::span<const T>(mine));
  mpi::barrier();
  if (r == 0) {  // one process driving every GPU, the others waiting
    cd::Team all(P);
    cd::DistOptions o;
    o.plan.kernels = {"csr_vector"};
    const auto [want, want_x] = solve(all, spx::dist::distribute(whole, rows, rows), o);
    EXPECT_EQ(res.iterations, want.iterations);
    EXPECT_TRUE(same_bits(std::span<const double>(res.history), std::span<const double>(want.history)));
    EXPECT_TRUE(same_bits(std::span<const T>(x), std::span<const T>(want_x)));
  }
  mpi::barrier();
}

TEST(MpiGpuTeam, CgIsBitwiseTheSingleProcessSolver) {
  SKIP_WITHOUT_A_GPU_PER_RANK();
  expect_cg_matches_one_process(spx::gen::stencil_2d_5pt<double>(61, 47), spx::Preconditioner::None);
  expect_cg_matches_one_process(spx::gen::stencil_3d_7pt<double>(19, 18, 17), spx::Preconditioner::Jacobi);
  expect_cg_matches_one_process(spx::gen::stencil_2d_5pt<float>(40, 40), spx::Preconditioner::Jacobi);
}

TEST(MpiGpuTeam, ASetupErrorOnOneRankStopsEveryRank) {
  SKIP_WITHOUT_A_GPU_PER_RANK();
  const int P = mpi::size(), r = mpi::rank();
  const auto whole = spx::gen::stencil_2d_5pt<double>(20, 20);
  const Partition rows = spx::dist::partition_rows(whole, P);
  // The last rank's plan allows no kernel that exists: its setup fails; no rank may wait for it.
  cd::DistOptions o =
      agreed(r == P - 1 ? std::vector<std::string>{"no_such_kernel"} : std::vector<std::string>{});
  try {
    cd::DistSparseMatrix<double> A(job_team(), my_parts(whole, rows, rows), o);
    ADD_FAILURE() << "rank " << r << " set up without error";
  } catch (const mpi::JobError& e) {
    EXPECT_EQ(e.origin, r == P - 1) << e.what();
  }
}

}  // namespace
