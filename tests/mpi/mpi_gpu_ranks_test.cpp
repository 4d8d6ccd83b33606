// GPU ranks (spx/dist_mpi_gpu.hpp) under mpirun with 1, 2 and 4 ranks on whatever GPUs exist (ranks
// share a GPU when there are fewer; the halo then goes over MPI through the host). Every rank
// checks its own rows: SpMV bitwise against the same kernel (csr_vector, pinned: its row sums depend
// on the row alone) on the whole matrix on one GPU and within rounding of the CPU; CG bitwise
// against the same solver on this process alone (one GPU rank, MPI_COMM_SELF), and to rounding
// against the CPU ranks. Without a GPU every test skips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "mpi_test_support.hpp"
#include "spx/cg.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/dist_mpi_gpu.hpp"
#include "spx/generate.hpp"

namespace mpi = spx::dist::mpi;
using spx::Csr;
using spx::dist::Partition;

namespace {

// The kernel the bitwise checks pin: a warp per row, its lanes and their order fixed by the row.
const char* const kRowKernel = "csr_vector";

#define SKIP_WITHOUT_GPU() \
  if (spx::cuda::device_count() == 0) GTEST_SKIP() << "no GPU: " << spx::cuda::gpu_unavailable_reason()

using spx::test::mpi_ranks::block;
using spx::test::mpi_ranks::same_bits;
using spx::test::mpi_ranks::test_vector;

mpi::GpuRankOptions pinned(mpi::HaloTransport halo) {
  mpi::GpuRankOptions o;
  o.halo = halo;
  o.plan.kernels = {kRowKernel};
  return o;
}

// NCCL needs a GPU per rank: the transports this job can run.
std::vector<mpi::HaloTransport> transports() {
  std::vector<mpi::HaloTransport> t{mpi::HaloTransport::Mpi};
  if (spx::cuda::device_count() >= mpi::size()) t.push_back(mpi::HaloTransport::Nccl);
  return t;
}

template <class T>
void expect_spmv_matches(const Csr<T, int32_t>& whole, const Partition& rows, const Partition& cols) {
  const int r = mpi::rank();
  const auto A = mpi::distribute(mpi::Group::World,
                                 mpi::rows_of(whole, rows.begin[static_cast<std::size_t>(r)],
                                              rows.begin[static_cast<std::size_t>(r) + 1]),
                                 rows, cols);
  const std::vector<T> x = test_vector<T>(whole.cols);
  // The same kernel on the whole matrix, on this rank's GPU.
  std::vector<T> want(static_cast<std::size_t>(whole.rows));
  {
    spx::cuda::Context ctx(0);
    spx::cuda::SparseMatrix<T> M(ctx, whole);
    spx::plan::Options po;
    po.kernels = {kRowKernel};
    M.plan_spmv(po);
    spx::cuda::DeviceBuffer<T> dx = spx::cuda::to_device(ctx, x), dy(want.size(), "y");
    spx::cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
    want = spx::cuda::to_host(ctx, dy);
  }
  // The CPU's product and the rows' |A| |x| (the scale of their rounding).
  std::vector<T> cpu(want.size()), scale(want.size()), ax(x.size());
  spx::omp::spmv(whole, std::span<const T>(x), std::span<T>(cpu));
  auto abs_whole = whole;
  for (auto& v : abs_whole.values) v = std::abs(v);
  for (std::size_t i = 0; i < x.size(); ++i) ax[i] = std::abs(x[i]);
  spx::omp::spmv(abs_whole, std::span<const T>(ax), std::span<T>(scale));
  for (const auto halo : transports()) {
    mpi::GpuProduct<T> product(A, pinned(halo));
    EXPECT_EQ(product.halo(), halo);
    EXPECT_NE(product.describe().find(kRowKernel), std::string::npos) << product.describe();
    std::vector<T> got(static_cast<std::size_t>(rows.block_size(r)));
    for (int repeat = 0; repeat < 2; ++repeat) {  // the buffers are reused
      product(block(x, cols, r), std::span<T>(got));
      EXPECT_TRUE(same_bits(std::span<const T>(got), block(want, rows, r)))
          << "rank " << r << " of " << mpi::size() << ", halo " << mpi::to_string(halo);
    }
    const auto c = block(cpu, rows, r), s = block(scale, rows, r);
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(static_cast<double>(got[i]), static_cast<double>(c[i]),
                  64 * std::numeric_limits<T>::epsilon() * static_cast<double>(s[i]))
          << "row " << rows.begin[static_cast<std::size_t>(r)] + static_cast<int64_t>(i);
  }
}

TEST(MpiGpuRanks, SpmvIsBitwiseTheSameKernelOnTheWholeMatrix) {
  SKIP_WITHOUT_GPU();
  const int P = mpi::size();
  const auto stencil = spx::gen::stencil_2d_5pt<double>(23, 17);
  const auto ps = spx::dist::partition_rows(stencil, P);
  expect_spmv_matches(stencil, ps, ps);
  const auto pl = spx::gen::power_law<double, int32_t>(600, 8.0, 2.1, 3);
  const auto p = spx::dist::partition_rows(pl, P);
  expect_spmv_matches(pl, p, p);
  expect_spmv_matches(spx::gen::power_law<float, int32_t>(600, 8.0, 2.1, 3), p, p);
  const auto rect = spx::gen::random_uniform<double, int32_t>(301, 157, 9, 5);
  expect_spmv_matches(rect, spx::dist::partition_rows(rect, P), spx::dist::partition_even(157, P));
}

template <class T>
void expect_cg_is_rank_independent(const Csr<T, int32_t>& whole, spx::Preconditioner pre) {
  const int P = mpi::size(), r = mpi::rank();
  const auto rows = spx::dist::partition_rows(whole, P);
  const auto A = mpi::distribute(mpi::Group::World,
                                 mpi::rows_of(whole, rows.begin[static_cast<std::size_t>(r)],
                                              rows.begin[static_cast<std::size_t>(r) + 1]),
                                 rows, rows);
  const auto one = spx::dist::partition_even(whole.rows, 1);
  const auto alone = mpi::distribute(mpi::Group::Self, mpi::rows_of(whole, 0, whole.rows), one, one);
  spx::CgOptions o;
  o.rtol = 1e-6;
  o.max_iterations = 2000;
  o.preconditioner = pre;
  o.history = true;
  const std::vector<T> b = test_vector<T>(whole.rows);
  std::vector<T> x1(b.size());
  mpi::GpuProduct<T> single_gpu(alone, pinned(mpi::HaloTransport::Mpi));
  const auto want = mpi::cg(alone, single_gpu, std::span<const T>(b), std::span<T>(x1), o);
  EXPECT_EQ(want.status, spx::CgStatus::Converged) << want.message;
  for (const auto halo : transports()) {
    std::vector<T> x(static_cast<std::size_t>(rows.block_size(r)));
    mpi::GpuProduct<T> gpus(A, pinned(halo));
    const auto got = mpi::cg(A, gpus, block(b, rows, r), std::span<T>(x), o);
    EXPECT_EQ(got.iterations, want.iterations) << mpi::to_string(halo);
    EXPECT_TRUE(same_bits(std::span<const double>(got.history), std::span<const double>(want.history)));
    EXPECT_TRUE(same_bits(std::span<const T>(x), block(x1, rows, r)))
        << "rank " << r << " of " << P << ", halo " << mpi::to_string(halo);
  }
  // The CPU ranks (the same driver, rows summed in another order) agree to rounding.
  std::vector<T> xc(static_cast<std::size_t>(rows.block_size(r)));
  const auto cpu = mpi::cg(A, block(b, rows, r), std::span<T>(xc), o);
  EXPECT_EQ(cpu.status, spx::CgStatus::Converged);
  EXPECT_NEAR(static_cast<double>(cpu.iterations), static_cast<double>(want.iterations),
              std::max(2.0, 0.1 * static_cast<double>(want.iterations)));
}

TEST(MpiGpuRanks, CgIteratesAreIdenticalForEveryRankCountAndTransport) {
  SKIP_WITHOUT_GPU();
  expect_cg_is_rank_independent(spx::gen::stencil_2d_5pt<double>(31, 29), spx::Preconditioner::None);
  expect_cg_is_rank_independent(spx::gen::stencil_3d_7pt<double>(9, 8, 10), spx::Preconditioner::Jacobi);
  expect_cg_is_rank_independent(spx::gen::stencil_2d_5pt<float>(20, 20), spx::Preconditioner::Jacobi);
}

TEST(MpiGpuRanks, AutoPicksNcclOnlyWhenEveryRankHasItsOwnGpu) {
  SKIP_WITHOUT_GPU();
  const auto whole = spx::gen::stencil_2d_5pt<double>(12, 12);
  const int P = mpi::size(), r = mpi::rank();
  const auto rows = spx::dist::partition_rows(whole, P);
  const auto A = mpi::distribute(mpi::Group::World,
                                 mpi::rows_of(whole, rows.begin[static_cast<std::size_t>(r)],
                                              rows.begin[static_cast<std::size_t>(r) + 1]),
                                 rows, rows);
  const bool own = spx::cuda::device_count() >= P;
  mpi::GpuProduct<double> autod(A);
  EXPECT_EQ(autod.halo(), own ? mpi::HaloTransport::Nccl : mpi::HaloTransport::Mpi) << autod.describe();
  if (!own) {  // NCCL refuses two ranks on one GPU: every rank learns it, none hangs
    EXPECT_THROW(mpi::GpuProduct<double>(A, pinned(mpi::HaloTransport::Nccl)), mpi::JobError);
  }
}

TEST(MpiGpuRanks, TheEnvironmentPicksTheGpu) {
  SKIP_WITHOUT_GPU();
  const auto whole = spx::gen::stencil_2d_5pt<double>(8, 8);
  const int P = mpi::size(), r = mpi::rank();
  const auto rows = spx::dist::partition_rows(whole, P);
  const auto A = mpi::distribute(mpi::Group::World,
                                 mpi::rows_of(whole, rows.begin[static_cast<std::size_t>(r)],
                                              rows.begin[static_cast<std::size_t>(r) + 1]),
                                 rows, rows);
  const int last = spx::cuda::device_count() - 1;
  setenv(mpi::kRankGpuEnv, std::to_string(last).c_str(), 1);
  {
    mpi::GpuProduct<double> product(A);
    EXPECT_EQ(product.device(), last);
    if (P > 1) {  // every rank on one GPU
      EXPECT_EQ(product.halo(), mpi::HaloTransport::Mpi);
    }
  }
  setenv(mpi::kRankGpuEnv, "first", 1);
  EXPECT_THROW(mpi::GpuProduct<double>{A}, mpi::JobError);
  unsetenv(mpi::kRankGpuEnv);
}

TEST(MpiGpuRanks, AGpuIndexOutOfRangeStopsEveryRank) {
  SKIP_WITHOUT_GPU();
  const auto whole = spx::gen::stencil_2d_5pt<double>(8, 8);
  const int P = mpi::size(), r = mpi::rank();
  const auto rows = spx::dist::partition_rows(whole, P);
  const auto A = mpi::distribute(mpi::Group::World,
                                 mpi::rows_of(whole, rows.begin[static_cast<std::size_t>(r)],
                                              rows.begin[static_cast<std::size_t>(r) + 1]),
                                 rows, rows);
  mpi::GpuRankOptions o;
  o.device = r == P - 1 ? spx::cuda::device_count() : 0;  // only the last rank asks for a missing GPU
  try {
    mpi::GpuProduct<double> product(A, o);
    ADD_FAILURE() << "rank " << r << " set up without error";
  } catch (const mpi::JobError& e) {
    EXPECT_EQ(e.origin, r == P - 1) << e.what();
    if (r == P - 1) {
      EXPECT_NE(std::string(e.what()).find("sees"), std::string::npos) << e.what();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  mpi::Session session;
  if (mpi::rank() != 0) GTEST_FLAG_SET(brief, true);
  const int status = RUN_ALL_TESTS();
  // CTest reads this to report the test skipped rather than passed.
  if (mpi::rank() == 0 && spx::cuda::device_count() == 0)
    std::printf("spx GPU ranks: no GPU, every test skipped\n");
  return status;
}
