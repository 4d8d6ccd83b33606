// BSR SpMV on the GPU: spx's kernel (the rule's lanes per row and every valid one) and cuSPARSE's
// BSR, f32 and f64, against spx::ref on the CSR: random block-structured matrices for every b in
// 2..8 (rows and cols not a multiple of b, empty block rows, one huge block row) and the plain random
// shapes of every SpMV test. y is NaN-poisoned when beta == 0, and carries a sentinel past rows that
// must survive; spx's kernel must give the same bits on every run. The upload/download round trip
// is checked too.
#include "spx/cuda/spmv_bsr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bsr_test_support.hpp"
#include "gpu_test_support.hpp"
#include "spx/bsr.hpp"
#include "spx/cpu.hpp"
#include "spx/plan/rules.hpp"

namespace spx::test {
namespace {

using I = int32_t;

template <class T>
using BsrSpmvTest = ::testing::Test;
TYPED_TEST_SUITE(BsrSpmvTest, Precisions);

template <class T>
struct Case {
  std::string name;
  Csr<T, I> A;
  int block;
};

template <class T>
std::vector<Case<T>> cases(uint64_t seed) {
  std::vector<Case<T>> out;
  for (int b = kBsrMinBlock; b <= kBsrMaxBlock; ++b) {
    out.push_back({"blocks b=" + std::to_string(b) + " odd sizes",
                   random_block_csr<T, I>({int64_t{b} * 501 + 1, int64_t{b} * 397 + b - 1, b, 1, 12, 0.1, -1},
                                          seed + static_cast<uint64_t>(b)),
                   b});
  }
  out.push_back({"blocks b=3, one huge block row, half the block rows empty",
                 random_block_csr<T, I>({3 * 2000 + 2, 3 * 3000 + 1, 3, 0, 5, 0.5, 777}, seed + 11), 3});
  out.push_back({"blocks b=4, a single block row",
                 random_block_csr<T, I>({3, 4 * 100, 4, 50, 50, 0.0, -1}, seed + 12), 4});
  int k = 0;
  for (auto& m : random_matrices<T, I>(seed + 20)) {
    // 2, 4, 6: plain matrices fill their blocks with zeros (b*b values per nonzero at worst, so
    // the large one keeps b = 2).
    const int b = m.A.nnz() > 100000 ? 2 : 2 + (k % 3) * 2;
    ++k;
    out.push_back({m.name + " b=" + std::to_string(b), std::move(m.A), b});
  }
  return out;
}

// The bound per row: any summation order over the row's stored entries (fill zeros included).
template <class T>
void expect_close(const Csr<T, I>& A, int b, const std::vector<T>& x, const std::vector<T>& y0, T alpha,
                  T beta, const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  int failures = 0;
  for (I r = 0; r < A.rows && failures < 5; ++r) {
    double mag = std::abs(static_cast<double>(beta) * static_cast<double>(y0[r]));
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      mag += std::abs(static_cast<double>(alpha) * A.values[k] * x[A.col_idx[k]]);
    const int64_t terms = int64_t{A.row_length(r)} * b + 2;
    const double err = std::abs(static_cast<double>(got[r]) - static_cast<double>(want[r]));
    if (!(err <= device_tolerance<T>(mag, terms))) {
      ADD_FAILURE() << what << ": row " << r << " got " << got[r] << " want " << want[r];
      ++failures;
    }
  }
  for (std::size_t i = static_cast<std::size_t>(A.rows); i < got.size(); ++i)
    if (got[i] != T{42}) ADD_FAILURE() << what << ": y[" << i << "] past rows was written";
}

TYPED_TEST(BsrSpmvTest, MatchesReference) {
  using T = TypeParam;
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  cuda::Context& ctx = gpu();
  for (const auto& c : cases<T>(seed)) {
    SCOPED_TRACE(c.name);
    const Bsr<T, I> host = to_bsr(c.A, c.block);
    const cuda::DeviceBsr<T, I> A = cuda::upload(ctx, host);
    const Bsr<T, I> back = cuda::download(ctx, A);
    EXPECT_EQ(back.row_ptr, host.row_ptr);
    EXPECT_EQ(back.col_idx, host.col_idx);
    EXPECT_EQ(back.values, host.values);

    const auto x = random_vector<T>(static_cast<std::size_t>(c.A.cols), seed + 1);
    auto y0 = random_vector<T>(static_cast<std::size_t>(c.A.rows), seed + 2);
    y0.push_back(T{42});  // past rows: never written
    const auto dx = cuda::to_device(ctx, x, "x");
    std::vector<int> lanes;
    for (int q = 1; c.block * q <= 32; q *= 2) lanes.push_back(q);
    for (const auto& [alpha, beta] : {std::pair<T, T>{1, 0}, std::pair<T, T>{T(-0.5), T(2)}}) {
      std::vector<T> want = y0;
      ref::spmv(c.A, std::span<const T>(x), std::span<T>(want).first(static_cast<std::size_t>(c.A.rows)),
                alpha, beta);
      std::vector<T> start = y0;
      if (beta == T{0}) std::fill(start.begin(), start.end() - 1, std::numeric_limits<T>::quiet_NaN());
      const auto run = [&](const std::string& what, auto&& launch) {
        auto dy = cuda::to_device(ctx, start, "y");
        launch(std::span<const T>(dx.span()), dy.span().first(static_cast<std::size_t>(c.A.rows)));
        ctx.synchronize();
        const auto got = cuda::to_host(ctx, std::span<const T>(dy.span()));
        expect_close(c.A, c.block, x, y0, alpha, beta, got, want, what);
        return got;
      };
      const cuda::BsrSpmvParams rule = plan::bsr_spmv_rule(A.block, A.blocks, A.block_rows);
      const auto first =
          run("spx rule", [&](auto xs, auto ys) { cuda::spmv_bsr(ctx, A, xs, ys, rule, alpha, beta); });
      const auto again =
          run("spx rule", [&](auto xs, auto ys) { cuda::spmv_bsr(ctx, A, xs, ys, rule, alpha, beta); });
      EXPECT_TRUE(same_bits(first, again)) << "spx BSR is not deterministic";
      for (int q : lanes) {
        const cuda::BsrSpmvParams cfg{q, q == 2 ? 64 : 256};
        run("spx Q=" + std::to_string(q),
            [&](auto xs, auto ys) { cuda::spmv_bsr(ctx, A, xs, ys, cfg, alpha, beta); });
      }
      run("cusparse_bsr", [&](auto xs, auto ys) {
        cuda::CusparseBsrSpmv<T> op(ctx, A, xs, ys, alpha, beta);
        op.run();
      });
    }
  }
}

TYPED_TEST(BsrSpmvTest, BadConfigurationsAreErrors) {
  using T = TypeParam;
  SPX_REQUIRE_GPU();
  cuda::Context& ctx = gpu();
  const auto A = cuda::upload(ctx, to_bsr(random_block_csr<T, I>({30, 30, 3}, 1), 3));
  cuda::DeviceBuffer<T> x(30, "x"), y(30, "y"), short_y(29, "y");
  EXPECT_THROW(cuda::spmv_bsr(ctx, A, std::span<const T>(x.span()), y.span(), {16, 256}),
               Error);  // 3 x 16 > 32
  EXPECT_THROW(cuda::spmv_bsr(ctx, A, std::span<const T>(x.span()), y.span(), {3, 256}), Error);
  EXPECT_THROW(cuda::spmv_bsr(ctx, A, std::span<const T>(x.span()), y.span(), {2, 100}), Error);
  EXPECT_THROW(cuda::spmv_bsr(ctx, A, std::span<const T>(x.span()), short_y.span(), {2, 256}), Error);
}

}  // namespace
}  // namespace spx::test
