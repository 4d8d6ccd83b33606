// The distributed products and CG on the GPUs this machine has (spx/cuda/dist.hpp,
// spx/cuda/dist_cg.hpp): every team size from 1 to min(4, GPUs) — so one GPU runs the distributed
// path in every GPU test run, and 2, 3 and 4 GPUs run where they exist — against spx::ref on the
// whole matrix: random shapes (odd sizes, empty rows, one long row, rectangular), a stencil, an
// R-MAT graph and the shared matrices; SpMM with L = 3 and 8; distributed CG against the CPU solver
// and against itself (one and two reductions give identical iterates); bad input.
#include "spx/cuda/dist.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "spx/cg.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/dist_cg.hpp"
#include "spx/dist.hpp"
#include "spx/generate.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

namespace cd = spx::cuda::dist;

// Team sizes to test: 1 .. min(4, GPUs).
std::vector<int> team_sizes() {
  std::vector<int> sizes;
  for (int n = 1; n <= std::min(4, cd::device_count()); ++n) sizes.push_back(n);
  return sizes;
}

// One team per size for the whole binary (communicator setup takes a while); never destroyed, like
// test::gpu().
cd::Team& team(int n) {
  static std::map<int, cd::Team*> teams;
  auto& t = teams[n];
  if (!t) t = new cd::Team(n);
  return *t;
}

template <class T>
std::vector<test::NamedMatrix<T, int32_t>> dist_matrices(uint64_t seed) {
  auto out = test::random_matrices<T, int32_t>(seed);
  out.push_back({"stencil27 n=23", gen::stencil_3d_27pt<T, int32_t>(23, 23, 23)});
  out.push_back({"rmat scale 13",
                 gen::generate<T, int32_t>(fmt::format("rmat:scale=13,ef=12,seed={}", seed % 1000 + 1))});
  out.push_back(
      {"random 5003x4001 rows 0..30", test::random_csr<T, int32_t>(5003, 4001, 0, 30, seed + 9, 0.05)});
  return out;
}

// Splits A over n ranks, or returns false when the shape cannot be (fewer rows or x entries than
// ranks: a rank would own nothing).
template <class T>
bool splittable(const Csr<T, int32_t>& A, int n) {
  return A.rows >= n && A.cols >= n;
}

// Rows balanced by nonzeros, x split like the rows when square; the local parts cut into slices of
// at most slice_nnz nonzeros.
template <class T>
dist::DistMatrix<T> split(const Csr<T, int32_t>& A, int n, int64_t slice_nnz) {
  const auto rows = dist::partition_rows(A, n);
  return dist::distribute(A, rows, A.rows == A.cols ? rows : dist::partition_even(A.cols, n), slice_nnz);
}

template <class T>
void check_spmv(cd::Team& tm, const std::string& name, const Csr<T, int32_t>& A, uint64_t seed,
                int64_t slice_nnz = dist::kMaxSliceNnz, const cd::DistOptions& options = {}) {
  const auto D = split(A, tm.size(), slice_nnz);
  cd::DistSparseMatrix<T> dA(tm, D, options);
  const auto x = test::random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  cd::DistVector<T> dx(tm, dA.col_partition()), dy(tm, dA.row_partition());
  dx.upload(x);
  for (const auto& c : test::spmv_cases(A, x, seed)) {
    dy.upload(c.y0);
    cd::spmv(dA, dx, dy, c.alpha, c.beta);
    c.expect_close(dy.download(), fmt::format("{} on {} GPUs{}", name, tm.size(), c.label()));
  }
}

template <class T>
void check_spmm(cd::Team& tm, const std::string& name, const Csr<T, int32_t>& A, int64_t L, uint64_t seed,
                int64_t slice_nnz = dist::kMaxSliceNnz, const cd::DistOptions& options = {}) {
  const auto D = split(A, tm.size(), slice_nnz);
  cd::DistSparseMatrix<T> dA(tm, D, options);
  const auto B = test::random_dense<T>(A.cols, L, Layout::RowMajor, seed, 0);
  cd::DistVector<T> dB(tm, dA.col_partition(), L), dC(tm, dA.row_partition(), L);
  dB.upload(B.data);
  for (auto [alpha, beta] : {std::pair<T, T>{T{1}, T{0}}, std::pair<T, T>{T(0.75), T(-2)}}) {
    const auto c = test::spmm_case(A, B, Layout::RowMajor, alpha, beta, seed, 0);
    dC.upload(c.C0.data);
    cd::spmm(dA, dB, dC, alpha, beta);
    Dense<T> got = c.C0;
    got.data = dC.download();
    c.expect_close(got, fmt::format("{} L={} on {} GPUs alpha={} beta={}", name, L, tm.size(), alpha, beta));
  }
}

template <class T>
class DistGpu : public ::testing::Test {};
TYPED_TEST_SUITE(DistGpu, test::Precisions);

TYPED_TEST(DistGpu, SpmvMatchesTheReferenceOnEveryTeamSize) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (int n : team_sizes())
    for (const auto& m : dist_matrices<T>(seed)) {
      if (!splittable(m.A, n)) continue;
      check_spmv<T>(team(n), m.name, m.A, seed);
      if (::testing::Test::HasFailure()) return;
    }
}

TYPED_TEST(DistGpu, SpmmMatchesTheReferenceOnEveryTeamSize) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (int n : team_sizes())
    for (const auto& m : dist_matrices<T>(seed)) {
      if (!splittable(m.A, n) || m.A.rows > 20000) continue;  // the CPU reference bounds are O(nnz·L)
      for (int64_t L : {3, 8}) check_spmm<T>(team(n), m.name, m.A, L, seed);
      if (::testing::Test::HasFailure()) return;
    }
}

// The halo in chunks: a remote piece per chunk that brings entries, each after its own NCCL group;
// the same products. 64 chunks leave most chunks of the small messages empty.
TYPED_TEST(DistGpu, HaloInChunksMatchesTheReference) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (int n : team_sizes())
    for (int chunks : {3, 64})
      for (const auto& m : dist_matrices<T>(seed)) {
        if (!splittable(m.A, n)) continue;
        cd::DistOptions options;
        options.halo_chunks = chunks;
        const auto D = split(m.A, n, dist::kMaxSliceNnz);
        cd::DistSparseMatrix<T> dA(team(n), D, options);
        EXPECT_EQ(dA.halo_chunks(), chunks);
        for (int r = 0; r < n; ++r) {
          int64_t halo = 0;
          for (const auto& msg : D.messages)
            if (msg.to == r) halo += msg.count();
          EXPECT_LE(dA.remote_pieces(r), std::min<int64_t>(chunks, halo)) << m.name << " rank " << r;
          EXPECT_EQ(dA.remote_pieces(r) > 0, D.parts[static_cast<std::size_t>(r)].remote.nnz() > 0);
        }
        check_spmv<T>(team(n), m.name, m.A, seed, dist::kMaxSliceNnz, options);
        if (m.A.rows <= 20000) check_spmm<T>(team(n), m.name, m.A, 3, seed, dist::kMaxSliceNnz, options);
        if (::testing::Test::HasFailure()) return;
      }
}

// The halo through registered buffers (the default: sends write into the receiver's buffer) or
// through cudaMalloc'd ones and NCCL's staging copies: the same messages, so the same bits.
TEST(DistGpu, RegisteredAndPlainHaloBuffersGiveTheSameBits) {
  SPX_REQUIRE_GPU();
  if (cd::device_count() < 2) GTEST_SKIP() << "needs 2 GPUs";
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const int n = team_sizes().back();
  const auto A = gen::generate<double, int32_t>(fmt::format("rmat:scale=14,ef=10,seed={}", seed % 1000 + 1));
  const auto D = split(A, n, dist::kMaxSliceNnz);
  const auto x = test::random_vector<double>(static_cast<std::size_t>(A.cols), seed);
  std::vector<std::vector<double>> y;
  for (bool registered : {true, false}) {
    cd::DistOptions o;
    o.plan.kernels = {"csr_vector"};  // the same kernels on both
    o.halo_chunks = 2;
    o.register_halo_buffers = registered;
    cd::DistSparseMatrix<double> dA(team(n), D, o);
    cd::DistVector<double> dx(team(n), dA.col_partition()), dy(team(n), dA.row_partition());
    dx.upload(x);
    cd::spmv(dA, dx, dy);
    y.push_back(dy.download());
  }
  EXPECT_TRUE(test::same_bits(y[0], y[1]));
  std::vector<double> want(static_cast<std::size_t>(A.rows));
  ref::spmv(A, std::span<const double>(x), std::span<double>(want));
  EXPECT_LT(test::relative_error(std::span<const double>(y[0]), std::span<const double>(want)), 1e-12);
}

TEST(DistGpuShared, SpmvOnTheLargestTeam) {
  SPX_REQUIRE_GPU();
  const int n = team_sizes().back();
  test::for_each_shared_matrix<double>(
      [&](const std::string& name, const Csr<double, int32_t>& A, uint64_t seed) {
        if (splittable(A, n)) check_spmv<double>(team(n), name, A, seed);
      });
}

TEST(DistGpu, RemotePartsCompressedAndNot) {
  SPX_REQUIRE_GPU();
  if (cd::device_count() < 2) GTEST_SKIP() << "needs 2 GPUs";
  const auto A = gen::stencil_3d_27pt<double, int32_t>(20, 20, 20);
  const auto D = dist::distribute(A, 2);
  cd::DistSparseMatrix<double> compressed(team(2), D);
  EXPECT_TRUE(compressed.remote_compressed(0));
  EXPECT_EQ(compressed.remote_rows(0), 20 * 20);  // the plane next to rank 1
  cd::DistOptions full;
  full.compress_remote_below = 0;
  cd::DistSparseMatrix<double> spanning(team(2), D, full);
  EXPECT_FALSE(spanning.remote_compressed(0));
  EXPECT_EQ(spanning.remote_rows(0), D.parts[0].row_end - D.parts[0].row_begin);
  const auto x = test::random_vector<double>(static_cast<std::size_t>(A.cols), test::fresh_seed());
  std::vector<double> want(x.size());
  ref::spmv(A, std::span<const double>(x), std::span<double>(want));
  for (auto* M : {&compressed, &spanning}) {
    cd::DistVector<double> dx(team(2), M->col_partition()), dy(team(2), M->row_partition());
    dx.upload(x);
    cd::spmv(*M, dx, dy);
    EXPECT_LT(test::relative_error(std::span<const double>(dy.download()), std::span<const double>(want)),
              1e-14);
  }
  EXPECT_NE(compressed.describe().find("compressed"), std::string::npos) << compressed.describe();
}

template <class T>
CgResult dist_solve(cd::Team& tm, const Csr<T, int32_t>& A, const std::vector<T>& b, const CgOptions& opt,
                    cd::Reductions red, std::vector<T>& x, int64_t slice_nnz = dist::kMaxSliceNnz,
                    int halo_chunks = 0) {
  const auto D = split(A, tm.size(), slice_nnz);
  cd::DistOptions dopt;
  dopt.plan.deterministic_only = true;  // one and two reductions are compared bit for bit
  dopt.halo_chunks = halo_chunks;
  cd::DistSparseMatrix<T> dA(tm, D, dopt);
  cd::DistVector<T> db(tm, dA.row_partition()), dx(tm, dA.row_partition());
  db.upload(b);
  std::vector<T> nan(b.size(), std::numeric_limits<T>::quiet_NaN());
  dx.upload(nan);  // poisoned: the zero initial guess must overwrite it
  std::optional<cd::DistVector<T>> inv;
  if (opt.preconditioner == Preconditioner::Jacobi) inv.emplace(cd::inverse_diagonal(tm, D));
  cd::DistCgSolver<T> solver(dA, red);
  EXPECT_EQ(solver.reductions_per_iteration(), red == cd::Reductions::One ? 1 : 2);
  const CgResult r = solver.solve(inv ? &*inv : nullptr, db, dx, opt);
  x = dx.download();
  return r;
}

template <class T>
double true_relative_residual(const Csr<T, int32_t>& A, const std::vector<T>& b, const std::vector<T>& x) {
  std::vector<double> xd(x.begin(), x.end()), ax(b.size());
  ref::spmv(cast<double, int32_t>(A), std::span<const double>(xd), std::span<double>(ax));
  double num = 0, den = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    num += (b[i] - ax[i]) * (b[i] - ax[i]);
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

TYPED_TEST(DistGpu, CgFollowsTheCpuSolverOneAndTwoReductionsAgree) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto A = gen::stencil_3d_27pt<T, int32_t>(29, 23, 17);
  const auto b = test::random_vector<T>(static_cast<std::size_t>(A.rows), seed);
  for (Preconditioner pc : {Preconditioner::None, Preconditioner::Jacobi}) {
    CgOptions opt;
    opt.rtol = std::is_same_v<T, double> ? 1e-9 : 1e-4;
    opt.preconditioner = pc;
    opt.check_every = 7;
    std::vector<T> x_cpu(b.size());
    const CgResult cpu = cg(A, std::span<const T>(b), std::span<T>(x_cpu), opt);
    ASSERT_EQ(cpu.status, CgStatus::Converged);
    for (int n : team_sizes())
      for (int chunks : {1, 3}) {
        SCOPED_TRACE(fmt::format("{} GPUs, {}, {} halo chunks", n, to_string(pc), chunks));
        std::vector<T> x1, x2;
        const CgResult one =
            dist_solve(team(n), A, b, opt, cd::Reductions::One, x1, dist::kMaxSliceNnz, chunks);
        const CgResult two =
            dist_solve(team(n), A, b, opt, cd::Reductions::Two, x2, dist::kMaxSliceNnz, chunks);
        EXPECT_EQ(one.status, CgStatus::Converged) << summary(one);
        const double slack = std::is_same_v<T, double>
                                 ? std::max(1.0, 0.01 * static_cast<double>(cpu.iterations))
                                 : std::max(2.0, 0.03 * static_cast<double>(cpu.iterations));
        EXPECT_NEAR(static_cast<double>(one.iterations), static_cast<double>(cpu.iterations), slack);
        ASSERT_EQ(one.history.size(), static_cast<std::size_t>(one.iterations) + 1);
        EXPECT_EQ(one.iterations, two.iterations);
        EXPECT_TRUE(test::same_bits(x1, x2)) << "one and two reductions must give the same iterates";
        EXPECT_LT(true_relative_residual(A, b, x1), (std::is_same_v<T, double> ? 1e-8 : 1e-3));
      }
  }
}

TEST(DistGpu, CgOnOneGpuMatchesTheSingleGpuSolver) {
  SPX_REQUIRE_GPU();
  const auto A = gen::stencil_3d_27pt<double, int32_t>(31, 31, 31);
  const auto b = test::random_vector<double>(static_cast<std::size_t>(A.rows), test::fresh_seed());
  CgOptions opt;
  opt.rtol = 1e-10;
  std::vector<double> x_dist;
  const CgResult d = dist_solve(team(1), A, b, opt, cd::Reductions::One, x_dist);
  auto op = cuda::make_planned_operator(test::gpu(), A);
  cuda::CgSolver<double> solver(test::gpu(), *op);
  auto d_b = cuda::to_device(test::gpu(), b);
  cuda::DeviceBuffer<double> d_x(b.size());
  const CgResult s = solver.solve({}, std::span<const double>(d_b.span()), d_x.span(), opt);
  EXPECT_EQ(d.status, s.status);
  EXPECT_NEAR(static_cast<double>(d.iterations), static_cast<double>(s.iterations), 1.0);
}

TEST(DistGpu, CgEdgesZeroRhsAndTheCap) {
  SPX_REQUIRE_GPU();
  const int n = team_sizes().back();
  const auto A = gen::stencil_3d_27pt<double, int32_t>(12, 11, 10);
  std::vector<double> x;
  const CgResult z = dist_solve(team(n), A, std::vector<double>(static_cast<std::size_t>(A.rows), 0.0), {},
                                cd::Reductions::One, x);
  EXPECT_EQ(z.status, CgStatus::Converged);
  EXPECT_EQ(z.iterations, 0);
  for (double v : x) ASSERT_EQ(v, 0.0);
  CgOptions cap;
  cap.max_iterations = 5;
  cap.rtol = 1e-14;
  const auto b = test::random_vector<double>(static_cast<std::size_t>(A.rows), test::fresh_seed());
  const CgResult c = dist_solve(team(n), A, b, cap, cd::Reductions::Two, x);
  EXPECT_EQ(c.status, CgStatus::MaxIterations);
  EXPECT_EQ(c.iterations, 5);
}

// A rank's local part in several slices (what a rank of more than int32_t nonzeros gets; here cut
// small): products and Jacobi CG as with one slice, on every team size.
TEST(DistGpu, LocalSlicesGiveTheSameResults) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (int n : team_sizes())
    for (const auto& m : dist_matrices<double>(seed)) {
      if (!splittable(m.A, n) || m.A.rows > 20000) continue;
      const int64_t limit = std::max<int64_t>(1, m.A.nnz() / (3 * n) + 1);  // about 3 slices a rank
      check_spmv<double>(team(n), m.name + " in slices", m.A, seed, limit);
      check_spmm<double>(team(n), m.name + " in slices", m.A, 3, seed, limit);
      if (::testing::Test::HasFailure()) return;
    }
  const auto A = gen::stencil_3d_27pt<double, int32_t>(21, 19, 17);
  const auto b = test::random_vector<double>(static_cast<std::size_t>(A.rows), seed);
  CgOptions opt;
  opt.rtol = 1e-9;
  opt.preconditioner = Preconditioner::Jacobi;
  for (int n : team_sizes()) {
    SCOPED_TRACE(fmt::format("CG on {} GPUs", n));
    std::vector<double> x_whole, x_sliced;
    const CgResult whole = dist_solve(team(n), A, b, opt, cd::Reductions::One, x_whole);
    const CgResult sliced = dist_solve(team(n), A, b, opt, cd::Reductions::One, x_sliced, A.nnz() / (4 * n));
    EXPECT_EQ(sliced.status, CgStatus::Converged) << summary(sliced);
    EXPECT_NEAR(static_cast<double>(sliced.iterations), static_cast<double>(whole.iterations), 1.0);
    EXPECT_LT(true_relative_residual(A, b, x_sliced), 1e-8);
  }
  const auto D = split(A, 1, A.nnz() / 4);
  cd::DistSparseMatrix<double> dA(team(1), D);
  EXPECT_GE(dA.local_slices(0), 4);
  EXPECT_NE(dA.describe().find("slice 1 of"), std::string::npos) << dA.describe();
}

// A sliced local part of more nonzeros than wide_local_above (here 0; in use 2^31 - 1) runs as one
// matrix of 64-bit row offsets: products as with one int32 part, on every team size.
TEST(DistGpu, SlicedLocalPartsRunAsOneMatrixOf64BitOffsets) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  cd::DistOptions wide;
  wide.wide_local_above = 0;
  for (int n : team_sizes())
    for (const auto& m : dist_matrices<double>(seed)) {
      if (!splittable(m.A, n) || m.A.rows > 20000) continue;
      const int64_t limit = std::max<int64_t>(1, m.A.nnz() / (3 * n) + 1);  // about 3 slices a rank
      check_spmv<double>(team(n), m.name + " joined", m.A, seed, limit, wide);
      check_spmm<double>(team(n), m.name + " joined", m.A, 3, seed, limit, wide);
      if (::testing::Test::HasFailure()) return;
    }
  const auto A = gen::stencil_3d_27pt<double, int32_t>(21, 19, 17);
  const auto D = split(A, 1, A.nnz() / 4);
  ASSERT_GE(D.parts[0].local.size(), 4u);
  cd::DistSparseMatrix<double> dA(team(1), D, wide);
  EXPECT_EQ(dA.local_slices(0), 1);
  EXPECT_NE(dA.describe().find("64-bit row offsets"), std::string::npos) << dA.describe();
}

TEST(DistGpu, BadInputIsAClearError) {
  SPX_REQUIRE_GPU();
  EXPECT_THROW(cd::Team(cd::device_count() + 1), Error);
  EXPECT_THROW(cd::Team(std::vector<int>{0, 0}), Error);
  const auto A = gen::stencil_3d_27pt<double, int32_t>(8, 8, 8);
  const auto D = dist::distribute(A, 1);
  cd::DistSparseMatrix<double> dA(team(1), D);
  cd::DistVector<double> x(team(1), dA.col_partition(), 2), y(team(1), dA.row_partition());
  EXPECT_THROW(cd::spmv(dA, x, y), Error);  // two columns
  EXPECT_THROW(dA.local(1), Error);         // no rank 1
  EXPECT_THROW((void)dA.remote_rows(-1), Error);
  EXPECT_EQ(dA.remote_pieces(0), 0);
  EXPECT_EQ(dA.remote(0, 3), nullptr);
  EXPECT_THROW((void)dA.remote_rows(0, 1), Error);  // no piece 1
  cd::DistOptions negative;
  negative.halo_chunks = -1;
  EXPECT_THROW(cd::DistSparseMatrix<double>(team(1), D, negative), Error);
  EXPECT_THROW((void)team(1).context(1), Error);
  EXPECT_THROW(x.upload_part(0, std::vector<double>(3)), Error);  // not rank 0's block
  const auto D2 = dist::distribute(A, 2);
  EXPECT_THROW(cd::DistSparseMatrix<double>(team(1), D2), Error);  // 2 ranks on a team of 1
  const auto R = test::random_csr<double, int32_t>(40, 30, 1, 5, 3);
  const auto DR = dist::distribute(R, 1);
  cd::DistSparseMatrix<double> dR(team(1), DR);
  EXPECT_THROW(cd::DistCgSolver<double>{dR}, Error);  // not square
}

}  // namespace
}  // namespace spx
