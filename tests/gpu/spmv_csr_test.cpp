// SpmvIsEquivalentToRef for the parametrised CSR SpMV (every coop, a few block sizes and repeats),
// CSR-vector, the long-row path (rows of 10^6 nonzeros among short ones, all rows long, a single
// row; forced onto every nonempty row of every matrix) and the fixed-rule plan end to end, f32 and
// f64, against spx::ref on NaN-poisoned outputs. Tolerance: device_tolerance (gpu_test_support.hpp),
// which holds for any summation order, so the long rows' two-stage sums are covered too.
#include "spx/cuda/spmv_csr.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "cuda/spmv/csr_long_rows.hpp"
#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/generate.hpp"

namespace spx::test {
namespace {

using cuda::CsrSpmvParams;
using cuda::CsrSpmvPlan;

constexpr int64_t kNoLongRows = std::numeric_limits<int64_t>::max();

// One way of computing y = alpha*A*x + beta*y on the device.
template <class T>
struct Variant {
  std::string name;
  std::function<void(std::span<const T>, std::span<T>, T, T)> run;
};

// Which plain-params configurations a matrix is checked with: every coop with three
// (block_size, repeat) pairs (small matrices), three representative ones, or only wide groups
// (rows of 10^6: one thread per row would walk a million nonzeros, ~0.1 s a call).
enum class Sweep { All, Few, WideOnly };

// The kernels and configurations checked on a matrix: CSR-vector, plain params as `sweep` says,
// and four plans (their long-row state lives in `plans`, which must outlive the variants).
template <class T>
std::vector<Variant<T>> variants(const cuda::DeviceCsr<T, int32_t>& dA, const Csr<T, int32_t>& A,
                                 std::vector<CsrSpmvPlan>& plans, Sweep sweep) {
  auto& ctx = gpu();
  std::vector<Variant<T>> out;
  out.push_back({"csr_vector", [&](std::span<const T> x, std::span<T> y, T a, T b) {
                   cuda::spmv_csr_vector(ctx, dA, x, y, a, b);
                 }});
  std::vector<CsrSpmvParams> params;
  if (sweep == Sweep::All) {
    for (int coop : {1, 2, 4, 8, 16, 32})
      for (auto [block, repeat] : {std::pair{64, 1}, std::pair{256, 3}, std::pair{1024, 16}})
        params.push_back({block, coop, repeat});
  } else if (sweep == Sweep::Few) {
    params = {{128, 1, 2}, {256, 4, 1}, {512, 32, 4}};
  } else {
    params = {{256, 16, 1}, {1024, 32, 2}};
  }
  for (const CsrSpmvParams& p : params) {
    out.push_back(
        {"params " + cuda::to_string(p), [&ctx, &dA, p](std::span<const T> x, std::span<T> y, T a, T b) {
           cuda::spmv_csr_params(ctx, p, dA, x, y, a, b);
         }});
  }
  // Plans: the fixed rule with its own long-row threshold; every nonempty row long (threshold
  // 0) under the rule's params and under coop 1 with small blocks; a mixed threshold.
  plans.clear();
  plans.reserve(4);
  plans.push_back(cuda::plan_csr_spmv(ctx, dA));
  plans.push_back(cuda::plan_csr_spmv(ctx, dA, A, std::nullopt, int64_t{0}));
  plans.push_back(cuda::plan_csr_spmv(ctx, dA, A, CsrSpmvParams{64, 1, 2}, int64_t{0}));
  plans.push_back(cuda::plan_csr_spmv(ctx, dA, A, CsrSpmvParams{256, 8, 2}, int64_t{7}));
  for (CsrSpmvPlan& plan : plans) {
    const std::string name = "plan " + cuda::to_string(plan.params) +
                             " threshold=" + std::to_string(plan.long_row_threshold) +
                             " long_rows=" + std::to_string(plan.long_rows.size());
    out.push_back({name, [&ctx, &dA, &plan](std::span<const T> x, std::span<T> y, T a, T b) {
                     cuda::spmv_csr(ctx, plan, dA, x, y, a, b);
                   }});
  }
  return out;
}

// Checks every variant on A for (alpha, beta) = (1, 0) with y poisoned (run twice: the long-row
// counters must reset themselves) and (-1.5, 0.5).
template <class T>
void check_csr_kernels(const std::string& name, const Csr<T, int32_t>& A, uint64_t seed, Sweep sweep) {
  auto& ctx = gpu();
  const auto dA = cuda::upload(ctx, A);
  std::vector<CsrSpmvPlan> plans;
  const auto runs = variants(dA, A, plans, sweep);
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  auto dx = cuda::to_device(ctx, x);
  for (const SpmvCase<T>& c : spmv_cases(A, x, seed)) {
    for (const auto& v : runs) {
      auto dy = cuda::to_device(ctx, c.y0);
      const int repeats = c.beta == T{0} ? 2 : 1;
      for (int r = 0; r < repeats; ++r) v.run(std::span<const T>(dx.span()), dy.span(), c.alpha, c.beta);
      ctx.synchronize();
      c.expect_close(cuda::to_host(ctx, dy), name + " / " + v.name + c.label());
      if (::testing::Test::HasFailure()) return;  // one report is enough to act on
    }
  }
}

// The long-row shapes of the issue, from spx::gen::long_rows (rows, cols, long rows, their
// length, empty fraction, short length).
template <class T>
std::vector<NamedMatrix<T, int32_t>> long_row_matrices() {
  std::vector<NamedMatrix<T, int32_t>> out;
  out.push_back({"two rows of 10^6 among 4998 of 5, 30% empty",
                 gen::long_rows<T, int32_t>(5000, 1'100'000, 2, 1'000'000, 0.3, 5, 11)});
  out.push_back({"all 8 rows long (2*10^5)", gen::long_rows<T, int32_t>(8, 300'000, 8, 200'000, 0.0, 1, 12)});
  out.push_back({"a single row of 10^6", gen::long_rows<T, int32_t>(1, 1'000'000, 1, 1'000'000, 0.0, 1, 13)});
  return out;
}

template <class T>
class GpuSpmvCsr : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSpmvCsr, Precisions);

TYPED_TEST(GpuSpmvCsr, SpmvIsEquivalentToRefOnRandomMatrices) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& m : random_matrices<T, int32_t>(seed)) {
    check_csr_kernels(m.name, m.A, seed + 17, m.A.rows < 10000 ? Sweep::All : Sweep::Few);
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(GpuSpmvCsr, SpmvIsEquivalentToRefOnLongRows) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& m : long_row_matrices<T>()) {
    check_csr_kernels(m.name, m.A, seed, Sweep::WideOnly);
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(GpuSpmvCsr, EmptyShapesLeaveOrScaleY) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  check_csr_kernels("0x7", Csr<T, int32_t>(0, 7), 3, Sweep::All);
  check_csr_kernels("5x0", Csr<T, int32_t>(5, 0), 4, Sweep::All);
}

TYPED_TEST(GpuSpmvCsr, FixedRulePlanFindsTheLongRows) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::long_rows<T, int32_t>(5000, 1'100'000, 2, 1'000'000, 0.3, 5, 11);
  const auto dA = cuda::upload(ctx, A);
  const CsrSpmvPlan from_device = cuda::plan_csr_spmv(ctx, dA);
  const CsrSpmvPlan from_host = cuda::plan_csr_spmv(ctx, dA, A);
  EXPECT_EQ(from_device.params, from_host.params);
  EXPECT_EQ(from_device.long_row_threshold, from_host.long_row_threshold);
  EXPECT_EQ(from_device.long_rows, from_host.long_rows);
  EXPECT_EQ(from_device.long_rows.size(), 2u);
  EXPECT_EQ(from_device.long_row_nnz, 2'000'000);
  EXPECT_EQ(from_device.long_row_chunks, 2 * ((1'000'000 + 511) / 512));
  EXPECT_EQ(from_device.params, plan::csr_fixed_rule(stats(A), ctx.props()));
}

// The device's long-row split equals the host's walk of the row pointer (rows, chunk offsets,
// chunk owners, nonzeros) at every threshold, on power-law rows (many long rows), on 64-bit offsets,
// and with no long row at all.
TEST(GpuSpmvCsrPlan, DeviceLongRowSplitEqualsTheHostWalk) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = gen::power_law<float, int32_t>(20011, 12.0, 1.8, fresh_seed());
  const auto dA = cuda::upload(ctx, A);
  std::vector<int64_t> wide_ptr(A.row_ptr.begin(), A.row_ptr.end());
  const auto d_wide = cuda::to_device(ctx, wide_ptr);
  for (const int64_t threshold :
       {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{64}, int64_t{512}, int64_t{1} << 40}) {
    const auto walk = cuda::split_long_rows(A.row_ptr, threshold);
    for (const bool wide : {false, true}) {
      const auto got =
          wide ? cuda::detail::split_long_rows_on_device(ctx, d_wide.data(), A.rows, threshold)
               : cuda::detail::split_long_rows_on_device(ctx, dA.row_ptr.data(), A.rows, threshold);
      SCOPED_TRACE(::testing::Message() << "threshold " << threshold << (wide ? " 64-bit" : " 32-bit"));
      EXPECT_EQ(got.rows, walk.rows);
      EXPECT_EQ(cuda::to_host(ctx, got.d_rows), walk.rows);
      EXPECT_EQ(cuda::to_host(ctx, got.d_chunk_begin), walk.chunk_begin);
      EXPECT_EQ(cuda::to_host(ctx, got.d_chunk_owner), walk.chunk_owner);
      EXPECT_EQ(got.nnz, walk.nnz);
      EXPECT_EQ(got.chunks, walk.chunks());
    }
  }
  const auto none = cuda::detail::split_long_rows_on_device(ctx, dA.row_ptr.data(), 0, 5);
  EXPECT_TRUE(none.rows.empty());
  EXPECT_EQ(cuda::to_host(ctx, none.d_chunk_begin), std::vector<int32_t>{0});
  expect_error([&] { cuda::detail::split_long_rows_on_device(ctx, dA.row_ptr.data(), A.rows, -1); },
               "negative");
}

// The long-row path's two-stage sum is in a fixed order: repeated products are bitwise equal.
TYPED_TEST(GpuSpmvCsr, LongRowsAreDeterministic) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::long_rows<T, int32_t>(1000, 1'000'000, 3, 1'000'000, 0.0, 4, 14);
  const auto dA = cuda::upload(ctx, A);
  CsrSpmvPlan plan = cuda::plan_csr_spmv(ctx, dA, A);
  ASSERT_EQ(plan.long_rows.size(), 3u);
  auto dx = cuda::to_device(ctx, random_vector<T>(static_cast<std::size_t>(A.cols), fresh_seed()));
  cuda::DeviceBuffer<T> dy(static_cast<std::size_t>(A.rows));
  std::vector<T> first;
  for (int run = 0; run < 5; ++run) {
    cuda::spmv_csr(ctx, plan, dA, std::span<const T>(dx.span()), dy.span());
    const auto got = cuda::to_host(ctx, dy);
    if (run == 0) first = got;
    ASSERT_TRUE(same_bits(got, first)) << "run " << run;
  }
}

// One product is one kernel launch: no memset, no second kernel, no host synchronisation (a
// synchronising call would invalidate the capture). Checked by capturing it into a CUDA graph.
TEST(GpuSpmvCsrPlan, ProductIsOneLaunchWithoutSynchronisation) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  for (int64_t threshold : {kNoLongRows, int64_t{0}}) {
    const auto A = random_csr<double, int32_t>(2000, 3000, 0, 700, 21, 0.1);
    const auto dA = cuda::upload(ctx, A);
    CsrSpmvPlan plan = cuda::plan_csr_spmv(ctx, dA, A, std::nullopt, threshold);
    EXPECT_EQ(plan.has_long_rows(), threshold == 0);
    auto x = cuda::to_device(ctx, random_vector<double>(3000, 22));
    cuda::DeviceBuffer<double> y(2000);
    // Once outside the capture, so that loading the kernel's module (lazy loading) is not part of it.
    cuda::spmv_csr(ctx, plan, dA, std::span<const double>(x.span()), y.span(), 2.0, 0.0);
    ctx.synchronize();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(ctx.stream(), cudaStreamCaptureModeGlobal), cudaSuccess);
    cuda::spmv_csr(ctx, plan, dA, std::span<const double>(x.span()), y.span(), 2.0, 0.5);
    ASSERT_EQ(cudaStreamEndCapture(ctx.stream(), &graph), cudaSuccess);
    std::size_t nodes = 0;
    ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
    EXPECT_EQ(nodes, 1u) << "threshold " << threshold;
    std::vector<cudaGraphNode_t> all(nodes);
    ASSERT_EQ(cudaGraphGetNodes(graph, all.data(), &nodes), cudaSuccess);
    cudaGraphNodeType type{};
    ASSERT_EQ(cudaGraphNodeGetType(all.front(), &type), cudaSuccess);
    EXPECT_EQ(type, cudaGraphNodeTypeKernel);
    cudaGraphDestroy(graph);
  }
}

TEST(GpuSpmvCsrPlan, AlphaZeroReadsNeitherAnorX) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(300, 200, 0, 9, 5);
  const auto dA = cuda::upload(ctx, A);
  CsrSpmvPlan plan = cuda::plan_csr_spmv(ctx, dA);
  auto dx = cuda::to_device(ctx, std::vector<double>(200, std::numeric_limits<double>::quiet_NaN()));
  const auto y0 = random_vector<double>(300, 6);
  auto dy = cuda::to_device(ctx, y0);
  cuda::spmv_csr(ctx, plan, dA, std::span<const double>(dx.span()), dy.span(), 0.0, 2.0);
  cuda::spmv_csr_vector(ctx, dA, std::span<const double>(dx.span()), dy.span(), 0.0, 0.5);
  const auto got = cuda::to_host(ctx, dy);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], y0[i]) << "row " << i;
}

TEST(GpuSpmvCsrPlan, WrongPlanParamsOrSizesAreErrors) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(10, 12, 1, 3, 9);
  const auto B = random_csr<double, int32_t>(10, 12, 1, 3, 10);
  const auto dA = cuda::upload(ctx, A);
  const auto dB = cuda::upload(ctx, B);
  CsrSpmvPlan plan = cuda::plan_csr_spmv(ctx, dA);
  cuda::DeviceBuffer<double> x(12), y(10), x11(11);
  const std::span<const double> xs(x.span());
  expect_error([&] { cuda::spmv_csr(ctx, plan, dB, xs, y.span()); }, "plan was made for another matrix");
  expect_error([&] { cuda::spmv_csr(ctx, plan, dA, std::span<const double>(x11.span()), y.span()); },
               "x has 11 entries, matrix has 12 columns");
  expect_error([&] { cuda::plan_csr_spmv(ctx, dA, CsrSpmvParams{256, 3, 1}); }, "coop 3");
  const auto narrower = random_csr<double, int32_t>(10, 11, 1, 3, 1);
  expect_error([&] { cuda::plan_csr_spmv(ctx, dA, narrower); }, "is not the device one");
  plan.params.block_size = 48;
  expect_error([&] { cuda::spmv_csr(ctx, plan, dA, xs, y.span()); }, "block_size 48");
  expect_error([&] { cuda::spmv_csr_params(ctx, CsrSpmvParams{256, 4, 0}, dA, xs, y.span()); }, "repeat 0");
}

template <class T>
class GpuSpmvCsrShared : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSpmvCsrShared, Precisions);

TYPED_TEST(GpuSpmvCsrShared, SpmvIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  for_each_shared_matrix<TypeParam>([](const std::string& name, const auto& A, uint64_t seed) {
    check_csr_kernels(name, A, seed, Sweep::Few);
  });
}

}  // namespace
}  // namespace spx::test
