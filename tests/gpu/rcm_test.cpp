// RCM on the GPU: RcmCsr's product (gather, csr_param on P A P^T, scatter) against spx::ref on
// random and shuffled matrices, the front door's rcm_csr and rcm_sell_c16 candidates (the latter with
// and without a value dictionary, y written through the permutation), and CG in RCM's numbering
// giving the unreordered solution. Outputs poisoned (beta = 0 cases) before each run.
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "spx/cg.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/cg_reorder.hpp"
#include "spx/cuda/reorder.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/generate.hpp"
#include "spx/plan.hpp"
#include "spx/reorder.hpp"

namespace spx::test {
namespace {

template <class T>
class GpuRcm : public ::testing::Test {};
TYPED_TEST_SUITE(GpuRcm, Precisions);

template <class T>
std::vector<NamedMatrix<T, int32_t>> square_matrices(uint64_t seed) {
  std::vector<NamedMatrix<T, int32_t>> out;
  out.push_back(
      {"odd 1001x1001, rows of 0..20, 10% empty", random_csr<T, int32_t>(1001, 1001, 0, 20, seed, 0.1)});
  out.push_back(
      {"one long row (4000 of 4001) among rows of 0..8",
       with_long_row(random_csr<T, int32_t>(4001, 4001, 0, 8, seed + 1, 0.2), 1234, 4000, seed + 2)});
  out.push_back({"shuffled 5-point mesh 123x77", gen::generate<T, int32_t>("stencil2d:nx=123,ny=77,shuffle=" +
                                                                           std::to_string(seed % 100000))});
  out.push_back({"shuffled 27-point mesh 19^3",
                 gen::generate<T, int32_t>("stencil27:n=19,shuffle=" + std::to_string(seed % 100000 + 1))});
  out.push_back({"1x1", random_csr<T, int32_t>(1, 1, 1, 1, seed + 3)});
  out.push_back({"all rows empty 65x65", random_csr<T, int32_t>(65, 65, 0, 0, seed + 4)});
  out.push_back({"70001x70001, rows of 1..40", random_csr<T, int32_t>(70001, 70001, 1, 40, seed + 5)});
  return out;
}

TYPED_TEST(GpuRcm, ProductEqualsTheReference) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : square_matrices<T>(seed)) {
    const std::string what = m.name + " " + precision_name<T>();
    cuda::RcmCsr<T> R(ctx, m.A);
    const auto x = random_vector<T>(static_cast<std::size_t>(m.A.cols), seed);
    const auto dx = cuda::to_device(ctx, x, "x");
    cuda::DeviceBuffer<T> dy(static_cast<std::size_t>(m.A.rows), "y");
    for (const SpmvCase<T>& c : spmv_cases(m.A, x, seed)) {
      cuda::copy_to_device_sync(ctx, dy.data(), c.y0.data(), dy.bytes());
      R.spmv(ctx, std::span<const T>(dx.span()), dy.span(), c.alpha, c.beta);
      std::vector<T> got(c.y0.size());
      cuda::copy_to_host_sync(ctx, got.data(), dy.data(), dy.bytes());
      c.expect_close(got, what + c.label());
    }
  }
}

TYPED_TEST(GpuRcm, FrontDoorPicksItOnlyWhereXIsGatheredPoorly) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  plan::Options o;
  o.mode = plan::Mode::Model;
  o.kernels = {"rcm_csr"};
  o.tuning_cache = "-";
  // 27-point rows: rcm_csr needs rows of rcm_min_avg_row (12) nonzeros on average.
  const auto shuffled = gen::generate<T, int32_t>("stencil27:n=24,shuffle=9");
  cuda::SparseMatrix<T> M(ctx, shuffled);
  EXPECT_EQ(M.plan_spmv(o).winner().kernel, "rcm_csr");
  const auto x = random_vector<T>(static_cast<std::size_t>(shuffled.cols), 5);
  for (const SpmvCase<T>& c : spmv_cases(shuffled, x, 5)) {
    const auto dx = cuda::to_device(ctx, x, "x");
    auto dy = cuda::to_device(ctx, c.y0, "y");
    cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span(), c.alpha, c.beta);
    c.expect_close(cuda::to_host(ctx, dy), "front door rcm_csr" + c.label());
  }
  // A mesh in its own numbering: not a candidate.
  cuda::SparseMatrix<T> G(ctx, gen::generate<T, int32_t>("stencil27:n=24"));
  EXPECT_THROW(G.plan_spmv(o), Error);
}

// rcm_sell_c16 (SELL-C16 on the renumbered matrix, y written through the permutation): stencils hold
// two values (the dictionary), a band of random values does not; every alpha/beta case against
// spx::ref, y poisoned where beta = 0.
TYPED_TEST(GpuRcm, SellC16OnTheRenumberedMatrixEqualsTheReference) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  plan::Options o;
  o.mode = plan::Mode::Model;
  o.kernels = {"rcm_sell_c16"};
  o.tuning_cache = "-";
  const std::string s = std::to_string(seed % 100000 + 1);
  const std::vector<std::pair<std::string, std::string>> specs = {
      {"stencil2d:nx=123,ny=77,shuffle=" + s, "distinct values"},
      {"stencil27:n=19,shuffle=" + s, "distinct values"},
      {"banded:n=5003,bw=4,density=0.8,seed=" + s + ",shuffle=" + s, "SELL-C16,"},
  };
  for (const auto& [spec, described] : specs) {
    const auto A = gen::generate<T, int32_t>(spec);
    cuda::SparseMatrix<T> M(ctx, A);
    const plan::Report& r = M.plan_spmv(o);
    ASSERT_EQ(r.winner().kernel, "rcm_sell_c16") << spec << "\n" << r.explain();
    EXPECT_NE(r.winner().params.find(described), std::string::npos) << spec << ": " << r.winner().params;
    const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
    const auto dx = cuda::to_device(ctx, x, "x");
    for (const SpmvCase<T>& c : spmv_cases(A, x, seed)) {
      auto dy = cuda::to_device(ctx, c.y0, "y");
      cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span(), c.alpha, c.beta);
      c.expect_close(cuda::to_host(ctx, dy), spec + " rcm_sell_c16" + c.label());
    }
  }
  // A mesh in its own numbering: not a candidate (x is gathered well).
  cuda::SparseMatrix<T> G(ctx, gen::generate<T, int32_t>("stencil2d:n=60"));
  EXPECT_THROW(G.plan_spmv(o), Error);
}

TYPED_TEST(GpuRcm, CgInRcmNumberingGivesTheUnreorderedSolution) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto A = gen::generate<T, int32_t>("stencil2d:n=90,shuffle=" + std::to_string(seed % 100000));
  const auto b = random_vector<T>(static_cast<std::size_t>(A.rows), seed);
  const auto db = cuda::to_device(ctx, b, "b");
  const auto dinv = cuda::device_inverse_diagonal(ctx, A);
  CgOptions opt;
  opt.rtol = sizeof(T) == 4 ? 1e-5 : 1e-10;
  opt.preconditioner = Preconditioner::Jacobi;

  auto plain_op = cuda::make_csr_operator(ctx, A);
  cuda::CgSolver<T> plain(ctx, *plain_op);
  cuda::DeviceBuffer<T> x0(b.size(), "x plain");
  const CgResult r0 =
      plain.solve(std::span<const T>(dinv.span()), std::span<const T>(db.span()), x0.span(), opt);

  const auto R = reorder::reorder_for_solve(A, reorder::Choice::Auto);
  ASSERT_TRUE(R.reordered) << R.why;
  auto op = cuda::make_csr_operator(ctx, R.A);
  cuda::CgSolver<T> solver(ctx, *op);
  const auto perm = cuda::to_device(ctx, R.perm, "perm");
  cuda::DeviceBuffer<T> x1(b.size(), "x reordered");
  const CgResult r1 =
      cuda::solve_permuted(ctx, solver, std::span<const int32_t>(perm.span()),
                           std::span<const T>(dinv.span()), std::span<const T>(db.span()), x1.span(), opt);
  EXPECT_EQ(r0.status, CgStatus::Converged) << r0.message;
  EXPECT_EQ(r1.status, CgStatus::Converged) << r1.message;
  EXPECT_NEAR(static_cast<double>(r1.iterations), static_cast<double>(r0.iterations), 3);
  const auto a = cuda::to_host(ctx, x0), c = cuda::to_host(ctx, x1);
  EXPECT_LT(relative_error(std::span<const T>(c), std::span<const T>(a)), sizeof(T) == 4 ? 1e-3 : 1e-8);

  // A nonzero initial guess is permuted in too: starting from the solution converges at once.
  CgOptions warm = opt;
  warm.zero_initial_guess = false;
  const CgResult r2 =
      cuda::solve_permuted(ctx, solver, std::span<const int32_t>(perm.span()),
                           std::span<const T>(dinv.span()), std::span<const T>(db.span()), x1.span(), warm);
  EXPECT_LE(r2.iterations, 2);
}

}  // namespace
}  // namespace spx::test
