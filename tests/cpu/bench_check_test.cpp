// The benchmark's one checker (bench/check.hpp): its fused SpMV/SpMM reference is spx::ref's
// arithmetic to the bit (ref's own output passes with zero error in every layout), one wrong or
// unwritten element fails at its index, and GEMM's projection accepts ref::gemm and nothing far off.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "bench/check.hpp"
#include "spx/cpu.hpp"
#include "test_support.hpp"

namespace spx::test {
namespace {

using bench::OutputView;

template <class T>
class BenchCheck : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BenchCheck, ValueTypes);

// rows x cols in `layout` with `pad` extra elements per leading dimension, filled from v.
template <class T>
Dense<T> dense_of(int64_t rows, int64_t cols, Layout layout, int64_t pad, uint64_t seed) {
  Dense<T> D;
  D.rows = rows;
  D.cols = cols;
  D.layout = layout;
  D.ld = (layout == Layout::ColMajor ? rows : cols) + pad;
  D.data.assign(static_cast<std::size_t>(D.ld * (layout == Layout::ColMajor ? cols : rows)),
                std::numeric_limits<T>::quiet_NaN());  // padding: never read
  const auto v = random_vector<T>(static_cast<std::size_t>(rows * cols), seed);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) D(i, j) = v[static_cast<std::size_t>(i + j * rows)];
  return D;
}

TYPED_TEST(BenchCheck, RefSpmvPassesWithZeroErrorAndOneWrongElementFails) {
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  // Rows from empty to 300 long, so the per-row bound varies.
  const auto A = random_csr<T, int32_t>(517, 389, 0, 300, seed, 0.1);
  const auto x = random_vector<T>(389, seed + 1);
  std::vector<T> y(517);
  ref::spmv(A, std::span<const T>(x), std::span<T>(y));
  bench::CheckResult r = bench::check_spmv(A, std::span<const T>(x), OutputView(std::span<const T>(y)));
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.worst_ratio, 0.0);  // the fused reference is ref::spmv to the bit
  EXPECT_EQ(r.max_error, 0.0);
  EXPECT_EQ(r.first_bad, -1);

  // One element off by 0.1: far above the bound (at most ~1e-3 for f32 rows of 300); found at its index.
  int32_t row = 0;
  while (A.row_length(row) < 50) ++row;
  y[static_cast<std::size_t>(row)] += static_cast<T>(0.1);
  r = bench::check_spmv(A, std::span<const T>(x), OutputView(std::span<const T>(y)));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.first_bad, row);
  EXPECT_GT(r.worst_ratio, 1.0);
  EXPECT_NEAR(r.max_error, 0.1, 1e-3);

  // An element left poisoned fails with an infinite ratio; the wrong length fails without an index.
  ref::spmv(A, std::span<const T>(x), std::span<T>(y));
  y[3] = std::numeric_limits<T>::quiet_NaN();
  r = bench::check_spmv(A, std::span<const T>(x), OutputView(std::span<const T>(y)));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.first_bad, 3);
  EXPECT_TRUE(std::isinf(r.worst_ratio));
  const std::vector<T> short_y(516);
  r = bench::check_spmv(A, std::span<const T>(x), OutputView(std::span<const T>(short_y)));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.first_bad, -1);
}

TYPED_TEST(BenchCheck, RefSpmmPassesInEveryLayoutAndFailuresNameTheElement) {
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto A = random_csr<T, int32_t>(301, 277, 0, 40, seed, 0.2);
  for (Layout b_layout : {Layout::ColMajor, Layout::RowMajor}) {
    for (Layout c_layout : {Layout::ColMajor, Layout::RowMajor}) {
      SCOPED_TRACE(std::string("B ") + (b_layout == Layout::ColMajor ? "col" : "row") + ", C " +
                   (c_layout == Layout::ColMajor ? "col" : "row"));
      const Dense<T> B = dense_of<T>(277, 7, b_layout, 3, seed + 2);
      Dense<T> C = dense_of<T>(301, 7, c_layout, 5, seed + 3);
      ref::spmm(A, B, C);
      bench::CheckResult r = bench::check_spmm(A, B, OutputView(C));
      EXPECT_TRUE(r.passed);
      EXPECT_EQ(r.worst_ratio, 0.0);
      // The first bad element in column-major order, whatever C's layout: (250, 1) before (4, 6).
      C(4, 6) = std::numeric_limits<T>::quiet_NaN();
      C(250, 1) += static_cast<T>(0.5);
      r = bench::check_spmm(A, B, OutputView(C));
      EXPECT_FALSE(r.passed);
      EXPECT_EQ(r.first_bad, 250 + 1 * 301);
      EXPECT_TRUE(std::isinf(r.worst_ratio));
      EXPECT_NEAR(r.max_error, 0.5, 1e-6);
    }
  }
}

TYPED_TEST(BenchCheck, RoundingWithinTheBoundPasses) {
  using T = TypeParam;
  // One row of 2000 products whose sum cancels: a kernel summing in T in another order is off by
  // far more than an ulp of the result, and still within the bound (gamma_k + 2u) |A||x|.
  Csr<T, int32_t> A(1, 2000);
  std::vector<T> x(2000);
  for (int32_t k = 0; k < 2000; ++k) {
    A.col_idx.push_back(k);
    A.values.push_back(static_cast<T>(k % 2 == 0 ? 1.0 + k * 1e-4 : -(1.0 + (k - 1) * 1e-4)));
    x[static_cast<std::size_t>(k)] = static_cast<T>(1.0 / 3.0);
  }
  A.row_ptr[1] = 2000;
  T backwards = 0;
  for (int32_t k = 1999; k >= 0; --k)
    backwards += A.values[static_cast<std::size_t>(k)] * x[static_cast<std::size_t>(k)];
  const std::vector<T> y{backwards};
  const bench::CheckResult r = bench::check_spmv(A, std::span<const T>(x), OutputView(std::span<const T>(y)));
  EXPECT_TRUE(r.passed) << "ratio " << r.worst_ratio;
  EXPECT_LE(r.worst_ratio, 1.0);
}

TYPED_TEST(BenchCheck, GemmProjectionAcceptsRefGemmOnly) {
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const Dense<T> A = dense_of<T>(37, 29, Layout::ColMajor, 0, seed);
  const Dense<T> B = dense_of<T>(29, 23, Layout::ColMajor, 0, seed + 1);
  Dense<T> C(37, 23, Layout::ColMajor);
  ref::gemm(Op::N, Op::N, C.rows, C.cols, A.cols, T{1}, A.data.data(), A.ld, B.data.data(), B.ld, T{0},
            C.data.data(), C.ld);
  const bench::Projection p = bench::gemm_projection(A, B, seed + 2);
  EXPECT_TRUE(bench::check_projection(OutputView(C), p).passed);
  C(20, 11) += static_cast<T>(0.25);
  const bench::CheckResult r = bench::check_projection(OutputView(C), p);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.first_bad, 20);  // the projection has one element per row of C
  EXPECT_FALSE(bench::check_projection(OutputView(A), p).passed);  // the wrong shape
}

}  // namespace
}  // namespace spx::test
