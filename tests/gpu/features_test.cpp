// The device features (spx/cuda/features.hpp) equal the host features (spx/features.hpp) field by
// field, every count exactly (the per-window estimate sums too, at all three granularities, and
// SELL-32's slots, which also equal upload_sell's), f32 and f64 matrices, on the random shapes,
// edge shapes (no rows, no nonzeros, one row of 10^6, long windows cut into tiles at and inside row
// boundaries, a HYB histogram too large for shared memory), generated and shared matrices; the call
// reports its cost.
#include "spx/cuda/features.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "features_expect.hpp"
#include "gpu_test_support.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"

namespace spx::test {
namespace {

using I = int32_t;

// SELL-32 slots of at most this many (4 M: 48 MB of f64 SELL) are checked against upload_sell.
constexpr int64_t kMaxSellSlotsChecked = int64_t{1} << 22;

template <class T>
void check_features(const std::string& name, const Csr<T, I>& A) {
  SCOPED_TRACE(name);
  const auto dA = cuda::upload(gpu(), A);
  double ms = -1;
  const MatrixFeatures got = cuda::features(gpu(), dA, &ms);
  const MatrixFeatures want = features(A);
  expect_same_features(got, want, name);
  EXPECT_GT(ms, 0.0) << "the cost is reported";
  // Without gpu_ms: the same numbers (integer sums do not depend on the order of the atomics).
  EXPECT_TRUE(cuda::features(gpu(), dA) == got);
  // sell_slots is what the SELL-32 upload stores (what bench/cuda_spmv.cpp's sell_slots counts).
  if (A.nnz() > 0 && want.sell_slots <= kMaxSellSlotsChecked)
    EXPECT_EQ(static_cast<int64_t>(cuda::upload_sell(gpu(), A, I{32}).values_size), want.sell_slots);
}

// One row of `len` nonzeros in 2*len + 3 columns (column 2k or 2k + 1), built directly.
template <class T>
Csr<T, I> one_huge_row(I len, uint64_t seed) {
  Csr<T, I> A(1, 2 * len + 3);
  uint64_t bits = seed;
  for (I k = 0; k < len; ++k) {
    bits = bits * 6364136223846793005ULL + 1442695040888963407ULL;
    A.col_idx.push_back(2 * k + static_cast<I>(bits >> 63));
    A.values.push_back(T{1});
  }
  A.row_ptr[1] = len;
  return A;
}

// A with one more nonzero in row `row` (its smallest missing column).
template <class T>
Csr<T, I> with_one_more_entry(const Csr<T, I>& A, I row) {
  Csr<T, I> B(A.rows, A.cols);
  for (I r = 0; r < A.rows; ++r) {
    std::vector<I> cols(A.col_idx.begin() + A.row_ptr[r], A.col_idx.begin() + A.row_ptr[r + 1]);
    if (r == row) {
      I c = 0;
      while (std::binary_search(cols.begin(), cols.end(), c)) ++c;
      cols.insert(std::lower_bound(cols.begin(), cols.end(), c), c);
    }
    for (I c : cols) {
      B.col_idx.push_back(c);
      B.values.push_back(T{1});
    }
    B.row_ptr[r + 1] = static_cast<I>(B.col_idx.size());
  }
  return B;
}

template <class T>
class GpuFeatures : public ::testing::Test {};
TYPED_TEST_SUITE(GpuFeatures, Precisions);

TYPED_TEST(GpuFeatures, EqualsTheHostOnRandomMatrices) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& [name, A] : random_matrices<T, I>(seed)) check_features(name, A);
}

TYPED_TEST(GpuFeatures, EqualsTheHostOnEdgeShapes) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  check_features("0x0", Csr<T, I>(0, 0));
  check_features("0x7", Csr<T, I>(0, 7));
  check_features("7x0", Csr<T, I>(7, 0));
  check_features("4100x9 no nonzeros (HYB histogram of one bin)", Csr<T, I>(4100, 9));
  check_features("1 row of 10^6 (245 tiles)", one_huge_row<T>(1000000, seed));
  check_features("33x37 rows 0..37", random_csr<T, I>(33, 37, 0, 37, seed + 1, 0.2));
  // Windows of 32 rows of 256: 8192 nonzeros, two tiles, the second starting at a row start.
  check_features("rows of 256 (tiles at row starts)",
                 gen::generate<T, I>("random:rows=1000,cols=5003,len=256"));
  // Windows of ~8000 nonzeros: tiles start inside rows (the carried column).
  check_features("rows of 200..300 (tiles inside rows)", random_csr<T, I>(2001, 3003, 200, 300, seed + 2));
  // Windows of exactly 4096 and 4097 nonzeros: the last ordinary one and the first long one.
  check_features("windows of 4096 nonzeros", gen::generate<T, I>("random:rows=320,cols=1001,len=128"));
  check_features("windows of 4096 and 4097 nonzeros",
                 with_one_more_entry(gen::generate<T, I>("random:rows=64,cols=1001,len=128"), 0));
  // Average row 2900: the HYB histogram (8701 bins) is counted in global memory.
  check_features("4100 rows of 2900 (HYB histogram in global memory)",
                 gen::generate<T, I>("random:rows=4100,cols=20000,len=2900"));
}

TYPED_TEST(GpuFeatures, EqualsTheHostOnGeneratedMatrices) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  for (const char* spec :
       {"stencil2d:n=300", "stencil27:n=40", "fem:rows=100000,len=27", "banded:n=50000,bw=40,density=0.3",
        "powerlaw:n=200000,avg=8,exp=1.8", "rmat:scale=16,ef=16", "blockdense:n=4000,block=16,per_row=3",
        "longrows:rows=100000,long=3,len=100000,empty=0.5,short=4", "dense:rows=300,cols=301"})
    check_features(spec, gen::generate<T, I>(spec));
}

TYPED_TEST(GpuFeatures, EqualsTheHostOnSharedMatrices) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  for_each_shared_matrix<T>(
      [](const std::string& name, const Csr<T, I>& A, uint64_t) { check_features(name, A); });
}

TEST(GpuFeaturesErrors, ShortArraysAreRefused) {
  SPX_REQUIRE_GPU();
  cuda::DeviceCsr<double, I> dA;
  dA.rows = 5;
  dA.cols = 5;
  EXPECT_THROW((void)cuda::features(gpu(), dA), Error);
}

}  // namespace
}  // namespace spx::test
