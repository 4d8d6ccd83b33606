// SpmvIsEquivalentToRef for the speculative segmented-sum SpMV (spx::cuda::spmv_segsum): f32 and
// f64, a few tile shapes (T, S, block), against spx::ref on NaN-poisoned outputs, on the random
// shapes of every SpMV test, long rows (spx::gen::long_rows), power-law and R-MAT matrices, the
// empty-row edge cases (all rows empty, leading/trailing empty rows, nnz below one tile, a last
// tile partly filled) and every shared matrix; plus bitwise determinism and argument errors.
// Tolerance: device_tolerance (gpu_test_support.hpp), which holds for any summation order, so the
// lane/scan/carry/synchronizer order of this kernel is covered. Wide tiles (10^5..10^6 empty rows
// in one tile's range) exercise the per-position search and the grid-wide empty-row pass.
#include "spx/cuda/spmv_segsum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/plan/rules.hpp"

namespace spx::test {
namespace {

using cuda::SegsumSpmvParams;

// Rows completed past any tile, however long (the 10^6-nonzero rows included).
constexpr int kCompleteAll = 1 << 30;

SegsumSpmvParams shape(int nnz_per_lane, int tiles_per_warp, int block_size, int complete_rows_up_to) {
  return {.nnz_per_lane = nnz_per_lane,
          .tiles_per_warp = tiles_per_warp,
          .block_size = block_size,
          .complete_rows_up_to = complete_rows_up_to};
}

// Defaults (small matrices: row completion, staged tiles); the smallest tiles with one tile per
// warp, always through the synchronizer (most carries and synchronizer entries); the largest tiles
// with long warps and small blocks, and T = 12 (not a power of two) with odd blocks, both with the
// default mode; the largest blocks through the synchronizer; row completion forced on every matrix
// with one tile per warp and with several (the staged buffer reused tile after tile), also at
// T = 32 and T = 12; last, the synchronizer's clean kernel loading full tiles 16 bytes per lane
// (plan.vector_loads) with seven tiles per warp, and with T = 12 (no vector loads).
const std::vector<SegsumSpmvParams>& tile_shapes() {
  static const std::vector<SegsumSpmvParams> shapes{{},
                                                    shape(4, 1, 64, 0),
                                                    shape(32, 7, 128, -1),
                                                    shape(12, 3, 96, -1),
                                                    shape(16, 2, 512, 0),
                                                    shape(4, 1, 128, kCompleteAll),
                                                    shape(8, 3, 64, kCompleteAll),
                                                    shape(32, 7, 128, kCompleteAll),
                                                    shape(12, 3, 96, kCompleteAll),
                                                    shape(32, 7, 128, 0),
                                                    shape(12, 3, 96, 0)};
  return shapes;
}

template <class T>
void check_segsum(const std::string& name, const Csr<T, int32_t>& A, uint64_t seed) {
  auto& ctx = gpu();
  const auto dA = cuda::upload(ctx, A);
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  auto dx = cuda::to_device(ctx, x);
  const std::vector<SpmvCase<T>> cases = spmv_cases(A, x, seed);
  for (const SegsumSpmvParams& p : tile_shapes()) {
    cuda::SegsumSpmvPlan plan = cuda::plan_segsum_spmv(ctx, dA, p);
    for (const SpmvCase<T>& c : cases) {
      auto dy = cuda::to_device(ctx, c.y0);
      cuda::spmv_segsum(ctx, plan, dA, std::span<const T>(dx.span()), dy.span(), c.alpha, c.beta);
      c.expect_close(cuda::to_host(ctx, dy),
                     name + " / " + cuda::to_string(p) + " dirty_tiles=" + std::to_string(plan.dirty_tiles) +
                         " completes_rows=" + std::to_string(plan.completes_rows) + c.label());
      if (::testing::Test::HasFailure()) return;  // one report is enough to act on
    }
  }
}

// Row pointer shapes the tile bookkeeping must survive (values and columns random).
template <class T>
Csr<T, int32_t> from_row_lengths(const std::vector<int32_t>& lengths, int32_t cols, uint64_t seed) {
  Csr<T, int32_t> A(static_cast<int32_t>(lengths.size()), cols);
  const auto v = random_vector<T>(4096, seed);
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    for (int32_t k = 0; k < lengths[r]; ++k) {
      // Strictly increasing columns (canonical CSR): a shifted run k + offset, lengths <= cols.
      A.col_idx.push_back(k + static_cast<int32_t>(r % static_cast<std::size_t>(cols - lengths[r] + 1)));
      A.values.push_back(v[A.values.size() % v.size()]);
    }
    A.row_ptr[r + 1] = A.row_ptr[r] + lengths[r];
  }
  return A;
}

template <class T>
std::vector<NamedMatrix<T, int32_t>> edge_matrices() {
  std::vector<NamedMatrix<T, int32_t>> out;
  out.push_back({"all 1000 rows empty", from_row_lengths<T>(std::vector<int32_t>(1000, 0), 50, 1)});
  out.push_back({"a single row of 7", from_row_lengths<T>({7}, 50, 2)});
  out.push_back({"nnz below one tile, empty rows around", from_row_lengths<T>({0, 0, 3, 0, 5, 0, 0}, 50, 3)});
  std::vector<int32_t> exact(64, 32);  // 2048 nonzeros: a multiple of every tile (128, 512, 1024)
  out.push_back({"64 rows of 32 (nnz a multiple of every tile)", from_row_lengths<T>(exact, 300, 4)});
  std::vector<int32_t> trailing{700, 1, 2};
  trailing.resize(5000, 0);  // trailing empty rows after a last tile partly filled
  out.push_back({"703 nonzeros then 4997 empty rows", from_row_lengths<T>(trailing, 1000, 5)});
  std::vector<int32_t> wide_tail(3000, 5);  // 10^6 trailing empty rows: a wide last tile
  wide_tail.resize(1'003'000, 0);
  out.push_back({"3000 rows of 5 then 10^6 empty rows", from_row_lengths<T>(wide_tail, 100, 7)});
  std::vector<int32_t> gaps;  // runs of 10^5 empty rows between short rows: wide tiles inside
  for (int run = 0; run < 4; ++run) {
    for (int r = 0; r < 300; ++r) gaps.push_back(1 + r % 9);
    gaps.resize(gaps.size() + 100'000, 0);
  }
  out.push_back({"runs of 10^5 empty rows between short rows", from_row_lengths<T>(gaps, 100, 8)});
  std::vector<int32_t> alternate;
  for (int r = 0; r < 20000; ++r) alternate.push_back(r % 3 == 0 ? 0 : (r % 7) + 1);
  out.push_back({"every third row empty", from_row_lengths<T>(alternate, 20000, 6)});
  return out;
}

template <class T>
std::vector<NamedMatrix<T, int32_t>> irregular_matrices() {
  std::vector<NamedMatrix<T, int32_t>> out;
  out.push_back({"long rows: two of 10^6 among 4998 of 5, 30% empty",
                 gen::long_rows<T, int32_t>(5000, 1'100'000, 2, 1'000'000, 0.3, 5, 11)});
  out.push_back({"a single row of 10^6", gen::long_rows<T, int32_t>(1, 1'000'000, 1, 1'000'000, 0.0, 1, 13)});
  out.push_back({"power law 50000, avg 8, exponent 2", gen::power_law<T, int32_t>(50000, 8.0, 2.0, 21)});
  out.push_back({"rmat scale 14 ef 8", gen::rmat<T, int32_t>(14, 8)});
  return out;
}

template <class T>
class GpuSpmvSegsum : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSpmvSegsum, Precisions);

TYPED_TEST(GpuSpmvSegsum, SpmvIsEquivalentToRefOnRandomMatrices) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& m : random_matrices<TypeParam, int32_t>(seed)) {
    check_segsum(m.name, m.A, seed + 17);
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(GpuSpmvSegsum, SpmvIsEquivalentToRefOnEmptyRowCases) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& m : edge_matrices<TypeParam>()) {
    check_segsum(m.name, m.A, seed);
    if (::testing::Test::HasFailure()) return;
  }
  check_segsum("0x7", Csr<TypeParam, int32_t>(0, 7), seed);
  check_segsum("5x0", Csr<TypeParam, int32_t>(5, 0), seed);
}

TYPED_TEST(GpuSpmvSegsum, SpmvIsEquivalentToRefOnIrregularMatrices) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& m : irregular_matrices<TypeParam>()) {
    check_segsum(m.name, m.A, seed);
    if (::testing::Test::HasFailure()) return;
  }
}

// Fixed association (lanes, scan tree, carries, synchronizer in warp order, or long tails by
// arrival, whose last warp to arrive changes between runs): bitwise equal runs.
TYPED_TEST(GpuSpmvSegsum, ProductIsDeterministic) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::long_rows<T, int32_t>(20000, 1'000'000, 3, 300'000, 0.2, 6, 14);
  const auto dA = cuda::upload(ctx, A);
  auto dx = cuda::to_device(ctx, random_vector<T>(static_cast<std::size_t>(A.cols), fresh_seed()));
  cuda::DeviceBuffer<T> dy(static_cast<std::size_t>(A.rows));
  for (const SegsumSpmvParams& params : {shape(0, 0, 128, 0), shape(4, 1, 128, 1)}) {
    cuda::SegsumSpmvPlan plan = cuda::plan_segsum_spmv(ctx, dA, params);
    std::vector<T> first;
    for (int run = 0; run < 2; ++run) {
      cuda::spmv_segsum(ctx, plan, dA, std::span<const T>(dx.span()), dy.span());
      const auto got = cuda::to_host(ctx, dy);
      if (run == 0) first = got;
      ASSERT_TRUE(same_bits(got, first)) << cuda::to_string(params) << " run " << run;
    }
  }
}

// Row completion (one launch): by default for grids of a few waves, where the second launch is a
// large share of the time, with long tails summed by arrival; never with complete_rows_up_to = 0;
// always with a positive limit.
TEST(GpuSpmvSegsumPlan, RowCompletionFollowsTheGridAndTheTails) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const plan::SegsumRuleTable& rule = plan::default_rule_tables().segsum;
  const int64_t auto_warps = rule.completion_waves * std::max(1, ctx.props().sm_count) * 32;
  const auto short_rows = cuda::upload(ctx, random_csr<double, int32_t>(5000, 5000, 1, 40, 3));
  const cuda::SegsumSpmvPlan by_default = cuda::plan_segsum_spmv(ctx, short_rows);
  EXPECT_TRUE(by_default.completes_rows);
  EXPECT_GT(by_default.max_open_tail, 0);
  EXPECT_LE(by_default.max_open_tail, 40);
  EXPECT_TRUE(by_default.long_head.empty());  // every tail is completed by its owner
  EXPECT_FALSE(cuda::plan_segsum_spmv(ctx, short_rows, shape(0, 0, 128, 0)).completes_rows);
  const auto long_row =
      cuda::upload(ctx, gen::long_rows<double, int32_t>(5000, 200'000, 1, 100'000, 0.0, 5, 4));
  const cuda::SegsumSpmvPlan with_long_row = cuda::plan_segsum_spmv(ctx, long_row);
  ASSERT_LE(with_long_row.warps, auto_warps);
  EXPECT_TRUE(with_long_row.completes_rows);
  EXPECT_GT(with_long_row.max_open_tail, rule.completion_limit);
  EXPECT_EQ(with_long_row.long_head.size(), static_cast<std::size_t>(with_long_row.warps));
  // A grid of more waves keeps the synchronizer unless asked.
  const auto large =
      cuda::upload(ctx, random_csr<float, int32_t>(static_cast<int32_t>(auto_warps * 40), 1000, 12, 16, 5));
  EXPECT_FALSE(cuda::plan_segsum_spmv(ctx, large, shape(4, 1, 128, -1)).completes_rows);
  EXPECT_TRUE(cuda::plan_segsum_spmv(ctx, large, shape(4, 1, 128, 512)).completes_rows);
  EXPECT_THROW(cuda::plan_segsum_spmv(ctx, short_rows, shape(0, 0, 128, -2)), Error);
}

// 16-byte loads of full tiles: the synchronizer's clean kernel (f32 and f64) with aligned arrays; not
// with row completion (whose kernel stages its tiles) or dirty tiles (the general kernel).
TEST(GpuSpmvSegsumPlan, VectorLoadsOnlyInTheCleanSynchronizerKernel) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto clean64 = cuda::upload(ctx, random_csr<double, int32_t>(3000, 3000, 1, 30, 9));
  const auto clean32 = cuda::upload(ctx, random_csr<float, int32_t>(3000, 3000, 1, 30, 9));
  const auto dirty = cuda::upload(ctx, random_csr<double, int32_t>(3000, 3000, 0, 30, 9));
  const SegsumSpmvParams sync = shape(0, 0, 128, 0);
  const cuda::SegsumSpmvPlan clean_sync64 = cuda::plan_segsum_spmv(ctx, clean64, sync);
  EXPECT_TRUE(clean_sync64.clean_kernel);
  EXPECT_TRUE(clean_sync64.vector_loads);
  EXPECT_TRUE(cuda::plan_segsum_spmv(ctx, clean32, sync).vector_loads);
  EXPECT_FALSE(cuda::plan_segsum_spmv(ctx, clean64).vector_loads);  // row completion (a small grid)
  const cuda::SegsumSpmvPlan dirty_sync = cuda::plan_segsum_spmv(ctx, dirty, sync);
  ASSERT_GT(dirty_sync.dirty_tiles, 0);
  EXPECT_FALSE(dirty_sync.clean_kernel);
  EXPECT_FALSE(dirty_sync.vector_loads);
}

TEST(GpuSpmvSegsumPlan, AlphaZeroReadsNeitherAnorX) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(300, 200, 0, 9, 5);
  const auto dA = cuda::upload(ctx, A);
  cuda::SegsumSpmvPlan plan = cuda::plan_segsum_spmv(ctx, dA);
  auto dx = cuda::to_device(ctx, std::vector<double>(200, std::numeric_limits<double>::quiet_NaN()));
  const auto y0 = random_vector<double>(300, 6);
  auto dy = cuda::to_device(ctx, y0);
  cuda::spmv_segsum(ctx, plan, dA, std::span<const double>(dx.span()), dy.span(), 0.0, 1.0);
  const auto got = cuda::to_host(ctx, dy);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], y0[i]) << "row " << i;
}

TEST(GpuSpmvSegsumPlan, WrongPlanOrParamsAreErrors) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(10, 12, 1, 3, 9);
  const auto B = random_csr<double, int32_t>(10, 12, 1, 3, 10);
  const auto dA = cuda::upload(ctx, A);
  const auto dB = cuda::upload(ctx, B);
  cuda::SegsumSpmvPlan plan = cuda::plan_segsum_spmv(ctx, dA);
  cuda::DeviceBuffer<double> x(12), y(10);
  EXPECT_THROW(cuda::spmv_segsum(ctx, plan, dB, std::span<const double>(x.span()), y.span()), Error);
  EXPECT_THROW(cuda::plan_segsum_spmv(ctx, dA, shape(6, 4, 256, -1)), Error);
  EXPECT_THROW(cuda::plan_segsum_spmv(ctx, dA, shape(36, 4, 256, -1)), Error);
  EXPECT_THROW(cuda::plan_segsum_spmv(ctx, dA, shape(16, -1, 256, -1)), Error);
  // The default S (0) is chosen at plan time: a one-tile matrix gets 1.
  EXPECT_EQ(plan.params.tiles_per_warp, 1);
  EXPECT_THROW(cuda::plan_segsum_spmv(ctx, dA, shape(16, 4, 48, -1)), Error);
}

// int32 limits: tile positions run to nnz + one tile in 32-bit lane arithmetic, so a matrix within
// one tile of INT32_MAX nonzeros (or with INT32_MAX rows) is refused with a message, before any
// device memory is touched (the sizes alone are checked: no 16 GB matrix is needed).
TEST(GpuSpmvSegsumPlan, Int32LimitsAreAClearError) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  cuda::DeviceCsr<float, int32_t> huge;
  huge.rows = 1000;
  huge.cols = 1000;
  huge.nnz = std::numeric_limits<int32_t>::max() - 100;
  try {
    (void)cuda::plan_segsum_spmv(ctx, huge);
    ADD_FAILURE() << "no error for " << huge.nnz << " nonzeros";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
  }
  huge.nnz = 10;
  huge.rows = std::numeric_limits<int32_t>::max();
  EXPECT_THROW((void)cuda::plan_segsum_spmv(ctx, huge), Error);
}

template <class T>
class GpuSpmvSegsumShared : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSpmvSegsumShared, Precisions);

TYPED_TEST(GpuSpmvSegsumShared, SpmvIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  for_each_shared_matrix<TypeParam>(
      [](const std::string& name, const auto& A, uint64_t seed) { check_segsum(name, A, seed); });
}

}  // namespace
}  // namespace spx::test
