// GPU conjugate gradients (spx/cuda/cg.hpp) against the CPU solver, which runs the same
// recurrences: the same residual sequence within rounding and the same iteration count on FEM
// problems of every degree with every operator (CSR, ELL, LMA with atomics and with colours), f32
// and f64, with and without Jacobi, and on the SPD shared matrix bcsstk13; the true residual
// ‖b − Ax‖ recomputed on the host; the LMA product against the assembled one; breakdown, zero
// right-hand side, one-step convergence, the iteration cap, graph and no graph.
#include "spx/cg.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/fem.hpp"
#include "spx/io.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

using cuda::LinearOperator;

template <class T>
double true_relative_residual(const Csr<T, int32_t>& A, const std::vector<T>& b, const std::vector<T>& x) {
  double num = 0, den = 0;
  for (int32_t r = 0; r < A.rows; ++r) {
    double ax = 0;
    for (int32_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      ax += static_cast<double>(A.values[k]) * static_cast<double>(x[static_cast<std::size_t>(A.col_idx[k])]);
    num += (b[r] - ax) * (b[r] - ax);
    den += static_cast<double>(b[r]) * b[r];
  }
  return std::sqrt(num / den);
}

template <class T>
std::unique_ptr<LinearOperator<T>> make_operator(const std::string& kind, const fem::Problem<T>& P) {
  cuda::Context& ctx = test::gpu();
  if (kind == "csr" || kind == "auto") return cuda::make_planned_operator(ctx, P.A, kind == "csr");
  if (kind == "csr_param") return cuda::make_csr_operator(ctx, P.A);
  if (kind == "ell") return cuda::make_ell_operator(ctx, P.A);
  return cuda::make_lma_operator(ctx, P.elements,
                                 kind == "lma_atomic" ? cuda::LmaScatter::Atomic : cuda::LmaScatter::Colour);
}

struct GpuSolve {
  CgResult result;
  std::vector<double> x;
};

template <class T>
GpuSolve gpu_solve(LinearOperator<T>& op, const std::vector<T>& inv_diag, const std::vector<T>& b,
                   const CgOptions& opt) {
  cuda::Context& ctx = test::gpu();
  auto d_b = cuda::to_device(ctx, b);
  cuda::DeviceBuffer<T> d_x(b.size());
  std::vector<T> nan(b.size(), std::numeric_limits<T>::quiet_NaN());
  cuda::copy_to_device_sync(ctx, d_x.data(), nan.data(), nan.size() * sizeof(T));  // poisoned
  cuda::DeviceBuffer<T> d_inv;
  if (!inv_diag.empty()) d_inv = cuda::to_device(ctx, inv_diag);
  cuda::CgSolver<T> solver(ctx, op);
  GpuSolve out;
  out.result = solver.solve(std::span<const T>(d_inv.data(), d_inv.size()), std::span<const T>(d_b.span()),
                            d_x.span(), opt);
  const auto x = cuda::to_host(ctx, d_x);
  out.x.assign(x.begin(), x.end());
  return out;
}

// f64: the same iteration count within 1 (or 1%); f32 rounds differently in the SpMV's summation
// order, so its count may drift a little more (2, or 3%).
template <class T>
void expect_same_solve(const CgResult& gpu, const CgResult& cpu, double tol) {
  EXPECT_EQ(gpu.status, cpu.status) << summary(gpu) << " / " << summary(cpu);
  const double slack = std::is_same_v<T, double> ? std::max(1.0, 0.01 * static_cast<double>(cpu.iterations))
                                                 : std::max(2.0, 0.03 * static_cast<double>(cpu.iterations));
  EXPECT_NEAR(static_cast<double>(gpu.iterations), static_cast<double>(cpu.iterations), slack);
  ASSERT_EQ(gpu.history.size(), static_cast<std::size_t>(gpu.iterations) + 1);
  const std::size_t early = std::min<std::size_t>({gpu.history.size(), cpu.history.size(), 15});
  for (std::size_t i = 0; i < early; ++i)
    EXPECT_NEAR(gpu.history[i] / cpu.history[i], 1.0, tol) << "iteration " << i;
}

template <class T>
class CgGpu : public ::testing::Test {};
TYPED_TEST_SUITE(CgGpu, test::Precisions);

TYPED_TEST(CgGpu, SameIteratesAsTheCpuEveryDegreeEveryOperator) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  constexpr double tol = std::is_same_v<T, double> ? 1e-9 : 2e-3;
  for (int p = 1; p <= 4; ++p) {
    fem::FemSpec spec;
    spec.n = 40 / p + 1;  // odd sizes
    spec.p = p;
    const auto P = fem::build<T>(spec);
    const auto b = test::random_vector<T>(static_cast<std::size_t>(P.A.rows), test::fresh_seed());
    for (Preconditioner pc : {Preconditioner::None, Preconditioner::Jacobi}) {
      CgOptions opt;
      opt.rtol = std::is_same_v<T, double> ? 1e-9 : 1e-4;
      opt.preconditioner = pc;
      std::vector<T> x_cpu(b.size());
      const CgResult cpu = cg(P.A, std::span<const T>(b), std::span<T>(x_cpu), opt);
      ASSERT_EQ(cpu.status, CgStatus::Converged);
      const std::vector<T> inv = pc == Preconditioner::Jacobi ? inverse_diagonal(P.A) : std::vector<T>{};
      for (const std::string kind : {"csr", "csr_param", "auto", "ell", "lma_atomic", "lma_colour"}) {
        SCOPED_TRACE(fmt::format("Q{} {} {}", p, kind, to_string(pc)));
        auto op = make_operator<T>(kind, P);
        EXPECT_EQ(op->name(), kind);
        const GpuSolve g = gpu_solve<T>(*op, inv, b, opt);
        expect_same_solve<T>(g.result, cpu, tol);
        std::vector<T> xg(g.x.begin(), g.x.end());
        EXPECT_LT(true_relative_residual(P.A, b, xg), (std::is_same_v<T, double> ? 1e-8 : 1e-3));
      }
    }
  }
}

TYPED_TEST(CgGpu, LmaProductEqualsTheAssembledProduct) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  cuda::Context& ctx = test::gpu();
  for (int p = 1; p <= 4; ++p) {
    fem::FemSpec spec;
    spec.n = 23;
    spec.p = p;
    const auto P = fem::build<T>(spec);
    const auto x = test::random_vector<T>(static_cast<std::size_t>(P.A.rows), test::fresh_seed());
    std::vector<T> y_ref(x.size());
    ref::spmv(P.A, std::span<const T>(x), std::span<T>(y_ref));
    auto d_x = cuda::to_device(ctx, x);
    cuda::DeviceBuffer<T> d_y(x.size());
    for (auto scatter : {cuda::LmaScatter::Atomic, cuda::LmaScatter::Colour}) {
      auto op = cuda::make_lma_operator(ctx, P.elements, scatter);
      std::vector<T> nan(x.size(), std::numeric_limits<T>::quiet_NaN());
      cuda::copy_to_device_sync(ctx, d_y.data(), nan.data(), nan.size() * sizeof(T));
      op->apply(ctx, std::span<const T>(d_x.span()), d_y.span());
      const auto y = cuda::to_host(ctx, d_y);
      EXPECT_LT(test::relative_error(std::span<const T>(y), std::span<const T>(y_ref)),
                (std::is_same_v<T, double> ? 1e-13 : 1e-5))
          << "Q" << p << " " << op->name();
    }
  }
}

TEST(CgGpuShared, Bcsstk13WithJacobiFollowsTheCpu) {
  SPX_REQUIRE_GPU();
  const auto dir = test::shared_matrices_dir();
  if (dir.empty() || !std::filesystem::exists(dir / "bcsstk13.mtx.gz")) GTEST_SKIP() << "bcsstk13 not found";
  const auto A = read_matrix_market<double, int32_t>((dir / "bcsstk13.mtx.gz").string());
  std::vector<double> b(static_cast<std::size_t>(A.rows), 1.0), x(b.size());
  CgOptions opt;
  opt.preconditioner = Preconditioner::Jacobi;
  opt.rtol = 1e-6;
  opt.max_iterations = 5000;
  const CgResult cpu = cg(A, std::span<const double>(b), std::span<double>(x), opt);
  auto op = cuda::make_planned_operator(test::gpu(), A, false);
  const GpuSolve g = gpu_solve<double>(*op, inverse_diagonal(A), b, opt);
  expect_same_solve<double>(g.result, cpu, 1e-8);
  if (cpu.status == CgStatus::Converged) {
    EXPECT_LT(true_relative_residual(A, b, std::vector<double>(g.x)), 1e-5);
  }
}

TEST(CgGpuEdges, ZeroRhsOneStepBreakdownCapGraph) {
  SPX_REQUIRE_GPU();
  cuda::Context& ctx = test::gpu();
  // Zero right-hand side: x = 0 at iteration 0 (x was poisoned).
  const auto P = fem::build<double>(fem::FemSpec{.n = 9, .p = 2});
  auto op = cuda::make_planned_operator(ctx, P.A);  // the front door, captured into the graph below
  std::vector<double> zero(static_cast<std::size_t>(P.A.rows), 0.0);
  GpuSolve g = gpu_solve<double>(*op, {}, zero, {});
  EXPECT_EQ(g.result.status, CgStatus::Converged);
  EXPECT_EQ(g.result.iterations, 0);
  for (double v : g.x) ASSERT_EQ(v, 0.0);
  // One step on 3·I.
  Csr<double, int32_t> I3(37, 37);
  for (int32_t i = 0; i < 37; ++i) {
    I3.col_idx.push_back(i);
    I3.values.push_back(3.0);
    I3.row_ptr[i + 1] = i + 1;
  }
  auto op3 = cuda::make_csr_operator(ctx, I3);
  const auto b3 = test::random_vector<double>(37, test::fresh_seed());
  g = gpu_solve<double>(*op3, {}, b3, {});
  EXPECT_EQ(g.result.status, CgStatus::Converged);
  EXPECT_EQ(g.result.iterations, 1);
  for (std::size_t i = 0; i < 37; ++i) EXPECT_NEAR(g.x[i], b3[i] / 3, 1e-15);
  // Breakdown on an indefinite diagonal: a status, x finite.
  Csr<double, int32_t> D(3, 3);
  D.col_idx = {0, 1, 2};
  D.values = {1.0, -3.0, 2.0};
  D.row_ptr = {0, 1, 2, 3};
  auto opd = cuda::make_csr_operator(ctx, D);
  g = gpu_solve<double>(*opd, {}, {1.0, 1.0, 0.0}, {});
  EXPECT_EQ(g.result.status, CgStatus::Breakdown);
  EXPECT_NE(g.result.message.find("not SPD"), std::string::npos) << g.result.message;
  for (double v : g.x) EXPECT_TRUE(std::isfinite(v));
  // Iteration cap, with a batch size that does not divide it; graph and direct launches agree bit
  // for bit (deterministic reductions).
  const auto b = test::random_vector<double>(zero.size(), test::fresh_seed());
  CgOptions opt;
  opt.max_iterations = 45;
  opt.rtol = 1e-14;
  opt.check_every = 7;
  const GpuSolve graph = gpu_solve<double>(*op, {}, b, opt);
  EXPECT_EQ(graph.result.status, CgStatus::MaxIterations);
  EXPECT_EQ(graph.result.iterations, 45);
  opt.use_graph = false;
  opt.check_every = 1;
  const GpuSolve direct = gpu_solve<double>(*op, {}, b, opt);
  EXPECT_EQ(direct.result.iterations, 45);
  EXPECT_EQ(graph.x, direct.x);
  EXPECT_EQ(graph.result.history, direct.result.history);
  // Refused shapes.
  EXPECT_THROW(cuda::make_csr_operator(ctx, Csr<double, int32_t>(3, 4)), Error);
  EXPECT_THROW(cuda::make_planned_operator(ctx, Csr<double, int32_t>(3, 4)), Error);
}

}  // namespace
}  // namespace spx
