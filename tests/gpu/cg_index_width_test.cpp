// CG's front-door operator on a matrix with 64-bit indices (spx cg --index, Python index="64"):
// held with the offsets asked for, and solving as the 32-bit operator does.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu/gpu_test_support.hpp"
#include "spx/cg.hpp"
#include "spx/convert.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/fem.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

struct Solved {
  CgResult result;
  std::vector<double> x;
};

Solved solve(cuda::LinearOperator<double>& op, const std::vector<double>& b) {
  cuda::Context& ctx = test::gpu();
  const auto d_b = cuda::to_device(ctx, b);
  cuda::DeviceBuffer<double> d_x(b.size());
  cuda::CgSolver<double> solver(ctx, op);
  CgOptions opt;
  opt.rtol = 1e-10;
  Solved s;
  s.result = solver.solve({}, std::span<const double>(d_b.span()), d_x.span(), opt);
  s.x = cuda::to_host(ctx, d_x);
  return s;
}

TEST(CgGpuIndexWidth, SixtyFourBitOperatorSolvesAsTheThirtyTwoBitOne) {
  SPX_REQUIRE_GPU();
  cuda::Context& ctx = test::gpu();
  const auto P = fem::build<double>(fem::FemSpec{.n = 9, .p = 2});
  const Csr<double, int64_t> wide = cast<double, int64_t>(P.A);
  auto op32 = cuda::make_planned_operator(ctx, P.A, true);
  auto op64 = cuda::make_planned_operator(ctx, wide, plan::IndexWidth::Bits64, true);
  auto op_auto = cuda::make_planned_operator(ctx, wide, plan::IndexWidth::Auto, false);
  EXPECT_NE(op32->details().find("32-bit offsets"), std::string::npos) << op32->details();
  EXPECT_NE(op64->details().find("64-bit offsets"), std::string::npos) << op64->details();
  // Auto narrows a 64-bit matrix that fits 32-bit offsets.
  EXPECT_NE(op_auto->details().find("32-bit offsets"), std::string::npos) << op_auto->details();
  // The CSR as held: 4 more bytes a row pointer.
  EXPECT_EQ(op64->bytes(), op32->bytes() + 4 * (static_cast<std::size_t>(P.A.rows) + 1));
  const auto b = test::random_vector<double>(static_cast<std::size_t>(P.A.rows), test::fresh_seed());
  const Solved s32 = solve(*op32, b), s64 = solve(*op64, b);
  ASSERT_EQ(s32.result.status, CgStatus::Converged);
  ASSERT_EQ(s64.result.status, CgStatus::Converged);
  // Other kernels may run at 64 bits (other summation orders): a few iterations either way.
  EXPECT_LE(std::abs(s64.result.iterations - s32.result.iterations), 3);
  for (std::size_t i = 0; i < b.size(); ++i) EXPECT_NEAR(s64.x[i], s32.x[i], 1e-7 * (1 + std::abs(s32.x[i])));
  EXPECT_THROW(cuda::make_planned_operator(ctx, Csr<double, int64_t>(3, 4), plan::IndexWidth::Bits64),
               Error);  // not square
}

}  // namespace
}  // namespace spx
