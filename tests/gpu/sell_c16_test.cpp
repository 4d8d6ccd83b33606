// The SELL-C16 SpMV (spx/cuda/spmv_sell_c16.hpp), f32 and f64, against spx::ref on the SellC16
// cases (odd row counts with a partial last slice, empty rows, span exactly 65535, one huge row,
// stencils, FEM-like, banded), the random shapes every SpMV is checked on (those with a row
// spanning more than 65535 columns must be refused by the conversion instead) and the shared
// matrices the planner would admit; the device conversion against the host's, array for array. y is
// NaN-poisoned when beta == 0; tolerances as
// gpu_test_support.hpp explains. Every result must be the same bits on a second run.
#include "spx/sell_c16.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuda/spmv/sell_c16_launch.hpp"
#include "gpu_test_support.hpp"
#include "sell_c16_cases.hpp"
#include "spx/column_spans.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/spmv_sell_c16.hpp"
#include "spx/generate.hpp"
#include "spx/plan/rules.hpp"

namespace spx::test {
namespace {

template <class T>
class SellC16Gpu : public ::testing::Test {};
TYPED_TEST_SUITE(SellC16Gpu, Precisions);

template <class T>
std::vector<T> run(const cuda::DeviceSellC16<T>& A, const std::vector<T>& x, const std::vector<T>& y0,
                   T alpha, T beta) {
  auto& ctx = gpu();
  auto dx = cuda::to_device(ctx, x, "x");
  auto dy = cuda::to_device(ctx, y0, "y");
  cuda::spmv_sell_c16(ctx, A, std::span<const T>(dx.span()), dy.span(), alpha, beta);
  ctx.synchronize();
  return cuda::to_host(ctx, std::span<const T>(dy.span()));
}

// A through SELL-C16 against spx::ref on A; also the host SellC16 reference on the same x.
template <class T>
void check(const std::string& name, const Csr<T, int32_t>& A, uint64_t seed) {
  auto& ctx = gpu();
  const SellC16<T> host = to_sell_c16(A);
  const auto dA = cuda::upload_sell_c16(ctx, host);
  EXPECT_EQ(dA.bytes(), host.bytes()) << name;
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  for (const SpmvCase<T>& c : spmv_cases(A, x, seed)) {
    const std::string what = name + " (" + std::to_string(host.slots()) + " slots)" + c.label();
    const auto got = run(dA, x, c.y0, c.alpha, c.beta);
    c.expect_close(got, what);
    EXPECT_TRUE(same_bits(run(dA, x, c.y0, c.alpha, c.beta), got)) << what << ": run 2 differs";
  }
}

TYPED_TEST(SellC16Gpu, SpmvMatchesRefOnSellC16Cases) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " " << precision_name<T>());
  for (const auto& c : sell_c16_cases<T>(seed)) check(c.name, c.A, seed);
}

TYPED_TEST(SellC16Gpu, SpmvMatchesRefOnRandomShapes) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " " << precision_name<T>());
  for (const auto& m : random_matrices<T, int32_t>(seed)) {
    if (column_span_stats(m.A).wide_rows > 0) {
      EXPECT_THROW((void)to_sell_c16(m.A), Error) << m.name;
      continue;
    }
    check(m.name, m.A, seed);
  }
}

// Every lane count (1, 2, 4, 8 threads a row; the rule picks one per matrix) on the SELL-C16 cases
// and random shapes, against the reference, the same bits on a second run; and through a row map
// (rcm_sell_c16's store): y[map[i]] gets row i.
TYPED_TEST(SellC16Gpu, EveryLaneCountMatchesRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " " << precision_name<T>());
  std::vector<std::pair<std::string, Csr<T, int32_t>>> matrices;
  for (auto& c : sell_c16_cases<T>(seed)) matrices.emplace_back(c.name, c.A);
  matrices.emplace_back("long rows, few", gen::generate<T, int32_t>("blockfem:n=5,b=6,seed=4"));
  matrices.emplace_back("odd rows, empty rows", test::random_csr<T, int32_t>(1001, 777, 0, 90, seed, 0.3));
  for (const auto& [name, A] : matrices) {
    const SellC16<T> host = to_sell_c16(A);
    const auto dA = cuda::upload_sell_c16(ctx, host);
    const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed + 1);
    const auto dx = cuda::to_device(ctx, x, "x");
    // A row map: reversed rows.
    std::vector<int32_t> map(static_cast<std::size_t>(A.rows));
    for (int32_t i = 0; i < A.rows; ++i) map[static_cast<std::size_t>(i)] = A.rows - 1 - i;
    const auto dmap = cuda::to_device(ctx, map, "row map");
    for (int lanes : {1, 2, 4, 8}) {
      for (const SpmvCase<T>& c : spmv_cases(A, x, seed + 2)) {
        const std::string what = name + ", " + std::to_string(lanes) + " lanes" + c.label();
        auto dy = cuda::to_device(ctx, c.y0, "y");
        cuda::detail::spmv_sell_c16_rows(ctx, dA, std::span<const T>(dx.span()), dy.span(), {}, c.alpha,
                                         c.beta, lanes);
        const auto got = cuda::to_host(ctx, std::span<const T>(dy.span()));
        c.expect_close(got, what);
        auto dy2 = cuda::to_device(ctx, c.y0, "y");
        cuda::detail::spmv_sell_c16_rows(ctx, dA, std::span<const T>(dx.span()), dy2.span(), {}, c.alpha,
                                         c.beta, lanes);
        EXPECT_TRUE(same_bits(cuda::to_host(ctx, std::span<const T>(dy2.span())), got)) << what << ": run 2";
        // Through the row map: y0 and the result permuted alike.
        std::vector<T> y0m(c.y0.size());
        for (std::size_t i = 0; i < map.size(); ++i) y0m[static_cast<std::size_t>(map[i])] = c.y0[i];
        auto dym = cuda::to_device(ctx, y0m, "y mapped");
        cuda::detail::spmv_sell_c16_rows(ctx, dA, std::span<const T>(dx.span()), dym.span(),
                                         std::span<const int32_t>(dmap.span()), c.alpha, c.beta, lanes);
        const auto gotm = cuda::to_host(ctx, std::span<const T>(dym.span()));
        for (std::size_t i = 0; i < map.size(); ++i)
          ASSERT_TRUE(
              same_bits(std::vector<T>{gotm[static_cast<std::size_t>(map[i])]}, std::vector<T>{got[i]}))
              << what << ": mapped row " << i;
      }
    }
    if (A.rows > 0) {  // a lane count without a kernel is refused
      auto dy = cuda::to_device(ctx, std::vector<T>(static_cast<std::size_t>(A.rows)), "y");
      EXPECT_THROW(cuda::detail::spmv_sell_c16_rows(ctx, dA, std::span<const T>(dx.span()), dy.span(), {},
                                                    T{1}, T{0}, 3),
                   Error);
    }
  }
}

// The shared matrices the planner admits (no row spans more than 65535 columns, SELL padding
// within sell_max_slots_per_nnz): past those limits the format is never built.
TYPED_TEST(SellC16Gpu, SpmvMatchesRefOnSharedMatrices) {
  SPX_REQUIRE_GPU();
  const double max_slots = plan::default_rule_tables().planner.sell_max_slots_per_nnz;
  for_each_shared_matrix<TypeParam>([&](const std::string& name, const Csr<TypeParam, int32_t>& A,
                                        uint64_t seed) {
    const double slots = static_cast<double>(sell_c16_slots(A)) / static_cast<double>(std::max(1, A.nnz()));
    if (column_span_stats(A).wide_rows > 0 || slots > max_slots) return;
    check(name, A, seed);
  });
}

// The device conversion (cuda::to_sell_c16, from 32- and from 64-bit row offsets) gives the host
// conversion's arrays exactly, on the SELL-C16 cases, the random shapes and the shared matrices the
// planner admits; a row spanning more than 65535 columns is refused naming the row the host names.
// Its product equals the reference.
template <class T>
void expect_device_conversion_equals_host(const std::string& name, const Csr<T, int32_t>& A) {
  SCOPED_TRACE(name);
  auto& ctx = gpu();
  const auto dA = cuda::upload(ctx, A);
  const auto wide = cuda::upload_wide(ctx, A);
  if (column_span_stats(A).wide_rows > 0) {
    std::string host_error;
    try {
      (void)to_sell_c16(A);
    } catch (const Error& e) {
      host_error = e.what();
    }
    ASSERT_FALSE(host_error.empty());
    const std::string row =
        host_error.substr(host_error.find("row "), host_error.find(" spans") - host_error.find("row "));
    expect_error([&] { (void)cuda::to_sell_c16(ctx, dA); }, row + " spans");
    expect_error([&] { (void)cuda::to_sell_c16(ctx, wide); }, row + " spans");
    return;
  }
  const SellC16<T> want = to_sell_c16(A);
  for (const auto& got : {cuda::to_sell_c16(ctx, dA), cuda::to_sell_c16(ctx, wide)}) {
    EXPECT_EQ(got.rows, want.rows);
    EXPECT_EQ(got.cols, want.cols);
    EXPECT_EQ(got.nnz, want.nnz());
    EXPECT_EQ(got.slots, want.slots());
    EXPECT_EQ(got.bytes(), want.bytes());
    EXPECT_TRUE(cuda::to_host(ctx, std::span<const int64_t>(got.slice_ptr.span())) == want.slice_ptr);
    EXPECT_TRUE(cuda::to_host(ctx, std::span<const int32_t>(got.base.span())) == want.base);
    EXPECT_TRUE(cuda::to_host(ctx, std::span<const uint16_t>(got.offsets.span())) == want.offsets);
    EXPECT_TRUE(same_bits(cuda::to_host(ctx, std::span<const T>(got.values.span())), want.values));
  }
}

TYPED_TEST(SellC16Gpu, DeviceConversionEqualsTheHostConversion) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed << " " << precision_name<T>());
  for (const auto& c : sell_c16_cases<T>(seed)) expect_device_conversion_equals_host(c.name, c.A);
  for (const auto& m : random_matrices<T, int32_t>(seed)) expect_device_conversion_equals_host(m.name, m.A);
  // Rows of 0..100 in one slice: several tile chunks a row (rows_to_slots.cuh).
  expect_device_conversion_equals_host("3001 rows of 0..100",
                                       random_csr<T, int32_t>(3001, 4000, 0, 100, seed + 11, 0.1));
  const double max_slots = plan::default_rule_tables().planner.sell_max_slots_per_nnz;
  for_each_shared_matrix<T>([&](const std::string& name, const Csr<T, int32_t>& A, uint64_t) {
    const double slots = static_cast<double>(sell_c16_slots(A)) / static_cast<double>(std::max(1, A.nnz()));
    if (slots <= max_slots) expect_device_conversion_equals_host(name, A);
  });
  // And the product on a converted matrix, against the reference.
  const auto A = gen::generate<T, int32_t>("stencil27:n=19");
  auto& ctx = gpu();
  const auto dS = cuda::to_sell_c16(ctx, cuda::upload(ctx, A));
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  for (const SpmvCase<T>& c : spmv_cases(A, x, seed))
    c.expect_close(run(dS, x, c.y0, c.alpha, c.beta), "converted" + c.label());
}

// alpha == 0 reads neither A nor x (NaN in x must not show); beta == 0 never reads y; padding
// never gathers x (an Inf in x reaches only the rows holding its column).
TYPED_TEST(SellC16Gpu, AlphaZeroBetaZeroAndPadding) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = random_csr<T, int32_t>(301, 257, 0, 9, fresh_seed(), 0.2);
  const auto dA = cuda::upload_sell_c16(ctx, to_sell_c16(A));
  std::vector<T> x(static_cast<std::size_t>(A.cols), std::numeric_limits<T>::quiet_NaN());
  std::vector<T> y0(static_cast<std::size_t>(A.rows), T(2));
  for (T v : run(dA, x, y0, T(0), T(3))) EXPECT_EQ(v, T(6));
  std::vector<T> ones(static_cast<std::size_t>(A.cols), T(1)), nan_y(y0.size());
  poison(std::span<T>(nan_y));
  std::vector<T> want(y0.size());
  ref::spmv(A, std::span<const T>(ones), std::span<T>(want));
  const auto got = run(dA, ones, nan_y, T(1), T(0));
  for (std::size_t r = 0; r < got.size(); ++r) EXPECT_NEAR(got[r], want[r], 1e-3) << "row " << r;
  // x[0] = Inf: rows without column 0 stay finite (padding slots read offset 0 of their own base,
  // but are skipped, and empty rows read nothing).
  std::vector<T> inf_x = ones;
  inf_x[0] = std::numeric_limits<T>::infinity();
  const auto with_inf = run(dA, inf_x, y0, T(1), T(0));
  for (int32_t r = 0; r < A.rows; ++r) {
    const bool has0 = A.row_ptr[r + 1] > A.row_ptr[r] && A.col_idx[A.row_ptr[r]] == 0;
    if (!has0) EXPECT_TRUE(std::isfinite(with_inf[r])) << "row " << r;
  }
}

TEST(SellC16GpuErrors, BadOperandsAreOneLineErrors) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = c16_banded<double>(50, 70001, 10, 3, 11);
  const auto dA = cuda::upload_sell_c16(ctx, to_sell_c16(A));
  cuda::DeviceBuffer<double> x(70000, "x"), y(50, "y");
  try {
    cuda::spmv_sell_c16(ctx, dA, std::span<const double>(x.span()), y.span());
    ADD_FAILURE() << "a short x was accepted";
  } catch (const Error& e) {
    expect_words(e.what(), {"spmv_sell_c16", "x", "70000"});
  }
}

}  // namespace
}  // namespace spx::test
