// The GPU conversions (spx/cuda/convert.hpp) equal the host conversions array for array: CSR → ELL
// (longest row and given widths), ELLPACK-R, the Bell–Garland HYB width and HYB (rule and given
// widths), f32 and f64, on the random shapes, on one row of 10^6 nonzeros (refused with the padding
// ratio by both, HYB built by both) and on every shared matrix. Wrong sizes are spx::Errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/convert.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/formats.hpp"

namespace spx::test {
namespace {

using I = int32_t;

// Padded slabs compared only up to this many slots (keeps the test fast; the code path is the same).
constexpr int64_t kMaxTestSlots = int64_t{1} << 25;

template <class T>
int64_t longest_row(const Csr<T, I>& A) {
  int64_t longest = 0;
  for (I r = 0; r < A.rows; ++r) longest = std::max<int64_t>(longest, A.row_length(r));
  return longest;
}

template <class T>
void expect_same_ell(const Ell<T, I>& got, const Ell<T, I>& want, const std::string& what) {
  EXPECT_EQ(got.rows, want.rows) << what;
  EXPECT_EQ(got.cols, want.cols) << what;
  EXPECT_EQ(got.width, want.width) << what;
  EXPECT_EQ(got.ld, want.ld) << what;
  EXPECT_TRUE(got.col_idx == want.col_idx) << what << ": column indices differ";
  EXPECT_TRUE(got.values == want.values) << what << ": values differ";
}

template <class T>
void check_conversions(const std::string& name, const Csr<T, I>& A) {
  SCOPED_TRACE(name);
  auto& ctx = gpu();
  const auto dA = cuda::upload(ctx, A);
  const int64_t longest = longest_row(A);
  const bool padded = (int64_t{A.rows} + 31) / 32 * 32 * (longest + 3) <= kMaxTestSlots;
  if (padded) {
    expect_same_ell(cuda::download(ctx, cuda::to_ell(ctx, dA)), to_ell(A), "to_ell");
    const I wider = static_cast<I>(longest + 3);
    expect_same_ell(cuda::download(ctx, cuda::to_ell(ctx, dA, wider)), to_ell(A, wider), "to_ell wider");
    if (longest > 0) {
      const I narrower = static_cast<I>(longest - 1);
      expect_error([&] { (void)cuda::to_ell(ctx, dA, narrower); }, "more than the requested width");
    }
    const auto got = cuda::download(ctx, cuda::to_ellr(ctx, dA));
    const auto want = to_ellr(A);
    EXPECT_EQ(got.rows, want.rows);
    EXPECT_EQ(got.cols, want.cols);
    EXPECT_EQ(got.width, want.width);
    EXPECT_EQ(got.rows_padded, want.rows_padded);
    EXPECT_TRUE(got.row_len == want.row_len) << "to_ellr: row lengths differ";
    EXPECT_TRUE(got.col_idx == want.col_idx) << "to_ellr: column indices differ";
    EXPECT_TRUE(got.values == want.values) << "to_ellr: values differ";
  }
  EXPECT_EQ(cuda::hyb_ell_width(ctx, dA), hyb_ell_width(A));
  std::vector<I> widths = {I{-1}, I{0}, I{2}};
  if (padded) widths.push_back(static_cast<I>(longest + 2));
  for (I width : widths) {
    const std::string what = "to_hyb width " + std::to_string(width);
    const auto got = cuda::download(ctx, cuda::to_hyb(ctx, dA, width));
    const auto want = to_hyb(A, width);
    expect_same_ell(got.ell, want.ell, what + " ELL part");
    EXPECT_EQ(got.coo.rows, want.coo.rows) << what;
    EXPECT_EQ(got.coo.cols, want.coo.cols) << what;
    EXPECT_TRUE(got.coo.row_idx == want.coo.row_idx) << what << ": COO rows differ";
    EXPECT_TRUE(got.coo.col_idx == want.coo.col_idx) << what << ": COO columns differ";
    EXPECT_TRUE(got.coo.values == want.coo.values) << what << ": COO values differ";
  }
}

template <class T>
class GpuConvert : public ::testing::Test {};
TYPED_TEST_SUITE(GpuConvert, Precisions);

TYPED_TEST(GpuConvert, ConversionsEqualTheHostOnRandomMatrices) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& m : random_matrices<T, I>(seed)) check_conversions(m.name, m.A);
  check_conversions("0x0", Csr<T, I>(0, 0));
  check_conversions("5x0", Csr<T, I>(5, 0));
  // >= 4096 rows with varied lengths: a non-trivial Bell–Garland width and a long COO tail.
  check_conversions("9000 rows of 0..30", random_csr<T, I>(9000, 5000, 0, 30, seed + 9, 0.05));
  // Rows of 0..100 side by side: the fill's tile takes several 32-entry chunks a row, short rows
  // sharing one load with long ones (rows_to_slots.cuh).
  check_conversions("3001 rows of 0..100", random_csr<T, I>(3001, 4000, 0, 100, seed + 11, 0.1));
}

TYPED_TEST(GpuConvert, HugePaddingIsRefusedWithItsRatio) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto A =
      with_long_row(random_csr<T, I>(5000, 1000000, 1, 8, seed, 0.05), I{1234}, I{1000000}, seed + 1);
  const auto dA = cuda::upload(ctx, A);
  expect_error([&] { (void)to_ell(A); }, "padding ratio");
  expect_error([&] { (void)cuda::to_ell(ctx, dA); }, "padding ratio");
  expect_error([&] { (void)cuda::to_ellr(ctx, dA); }, "padding ratio");
  // A small max_slots refuses an ordinary matrix the same way.
  const auto small = random_csr<T, I>(100, 100, 1, 9, seed + 2);
  const auto dsmall = cuda::upload(ctx, small);
  expect_error([&] { (void)cuda::to_ell(ctx, dsmall, I{-1}, 100); }, "more than max_slots = 100");
  expect_error([&] { (void)cuda::to_ellr(ctx, dsmall, 100); }, "padding ratio");
  // HYB keeps the long row in its COO tail, on both sides identically.
  const auto got = cuda::download(ctx, cuda::to_hyb(ctx, dA));
  const auto want = to_hyb(A);
  expect_same_ell(got.ell, want.ell, "to_hyb ELL part");
  EXPECT_GE(got.coo.nnz(), 1000000 - want.ell.width);
  EXPECT_TRUE(got.coo.row_idx == want.coo.row_idx);
  EXPECT_TRUE(got.coo.col_idx == want.coo.col_idx);
  EXPECT_TRUE(got.coo.values == want.coo.values);
}

TEST(GpuConvertShared, ConversionsEqualTheHost) {
  SPX_REQUIRE_GPU();
  for_each_shared_matrix<double>(
      [](const std::string& name, const Csr<double, int32_t>& A, uint64_t) { check_conversions(name, A); });
}

}  // namespace
}  // namespace spx::test
