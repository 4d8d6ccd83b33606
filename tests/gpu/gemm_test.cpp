// GemmIsEquivalentToRef: cuBLAS DGEMM/SGEMM through CublasGemm against spx::ref::gemm, every
// transpose combination with padded leading dimensions, and every layout combination of the
// Dense-matrix form.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::test {
namespace {

template <class T>
class GpuGemm : public ::testing::Test {};
TYPED_TEST_SUITE(GpuGemm, Precisions);

TYPED_TEST(GpuGemm, GemmIsEquivalentToRefForEveryTranspose) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const int64_t m = 67, n = 45, k = 129;
  for (Op op_a : {Op::N, Op::T})
    for (Op op_b : {Op::N, Op::T})
      for (auto [alpha, beta] : {std::pair<T, T>{T{1}, T{0}}, std::pair<T, T>{T(-0.5), T(1.5)}}) {
        const int64_t lda = (op_a == Op::N ? m : k) + 3, ldb = (op_b == Op::N ? k : n) + 1, ldc = m + 2;
        const auto A = random_vector<T>(static_cast<std::size_t>(lda * (op_a == Op::N ? k : m)), seed);
        const auto B = random_vector<T>(static_cast<std::size_t>(ldb * (op_b == Op::N ? n : k)), seed + 1);
        auto C0 = random_vector<T>(static_cast<std::size_t>(ldc * n), seed + 2);
        if (beta == T{0}) poison(std::span<T>(C0));
        auto want = C0;
        ref::gemm(op_a, op_b, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, want.data(), ldc);
        const auto mag =
            gemm_magnitude(op_a, op_b, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C0.data(), ldc);

        auto dA = cuda::to_device(ctx, A);
        auto dB = cuda::to_device(ctx, B);
        auto dC = cuda::to_device(ctx, C0);
        cuda::CublasGemm<T> gemm(ctx, op_a, op_b, m, n, k, alpha, dA.data(), lda, dB.data(), ldb, beta,
                                 dC.data(), ldc);
        gemm.run();
        const auto got = cuda::to_host(ctx, dC);
        const auto got_logical = column_major_entries(got, m, n, ldc);
        const auto want_logical = column_major_entries(want, m, n, ldc);
        const std::string what = std::string(cuda::CublasGemm<T>::kernel_name()) +
                                 (op_a == Op::N ? " N" : " T") + (op_b == Op::N ? "N" : "T") +
                                 " beta=" + std::to_string(beta);
        expect_device_close(std::span<const T>(got_logical), std::span<const T>(want_logical), mag,
                            std::vector<int64_t>(mag.size(), k), what);
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = m; i < ldc; ++i)
            if (beta == T{0}) EXPECT_TRUE(std::isnan(got[i + j * ldc])) << what << ": wrote C's padding";
      }
}

// Dense column-major copy (ld = rows) of any Dense, for ref::gemm.
template <class T>
std::vector<T> col_major(const Dense<T>& D) {
  std::vector<T> out(static_cast<std::size_t>(D.rows * D.cols));
  for (int64_t j = 0; j < D.cols; ++j)
    for (int64_t i = 0; i < D.rows; ++i) out[i + j * D.rows] = D(i, j);
  return out;
}

TYPED_TEST(GpuGemm, DenseFormHandlesEveryLayout) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const int64_t m = 33, n = 21, k = 50;
  for (Layout la : {Layout::ColMajor, Layout::RowMajor})
    for (Layout lb : {Layout::ColMajor, Layout::RowMajor})
      for (Layout lc : {Layout::ColMajor, Layout::RowMajor}) {
        Dense<T> A(m, k, la), B(k, n, lb), C(m, n, lc);
        A.data = random_vector<T>(A.data.size(), seed);
        B.data = random_vector<T>(B.data.size(), seed + 1);
        C.data = random_vector<T>(C.data.size(), seed + 2);
        const T alpha = T(1.25), beta = T(-0.5);
        auto want = col_major(C);
        const auto a = col_major(A), b = col_major(B), c0 = want;
        ref::gemm(Op::N, Op::N, m, n, k, alpha, a.data(), m, b.data(), k, beta, want.data(), m);
        const auto mag =
            gemm_magnitude(Op::N, Op::N, m, n, k, alpha, a.data(), m, b.data(), k, beta, c0.data(), m);

        auto dA = cuda::upload(ctx, A);
        auto dB = cuda::upload(ctx, B);
        auto dC = cuda::upload(ctx, C);
        cuda::CublasGemm<T> gemm(ctx, dA, dB, dC, alpha, beta);
        gemm.run();
        const auto got = col_major(cuda::download(ctx, dC));
        const std::string what = std::string("layouts A/B/C = ") + (la == Layout::ColMajor ? "C" : "R") +
                                 (lb == Layout::ColMajor ? "C" : "R") + (lc == Layout::ColMajor ? "C" : "R");
        expect_device_close(std::span<const T>(got), std::span<const T>(want), mag,
                            std::vector<int64_t>(mag.size(), k), what);
      }
}

TEST(GpuGemmErrors, ShapesMustChain) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  auto A = cuda::make_device_dense<double>(4, 5, Layout::ColMajor);
  auto B = cuda::make_device_dense<double>(6, 3, Layout::ColMajor);
  auto C = cuda::make_device_dense<double>(4, 3, Layout::ColMajor);
  expect_error([&] { cuda::CublasGemm<double>(ctx, A, B, C); }, "do not chain");
  expect_error(
      [&] {
        cuda::CublasGemm<double>(ctx, Op::N, Op::N, 4, 3, 5, 1.0, nullptr, 3, nullptr, 5, 0.0, nullptr, 4);
      },
      "lda = 3 is less than the 4 rows");
}

}  // namespace
}  // namespace spx::test
