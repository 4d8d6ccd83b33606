// Upload/download round trips for every device format (bit-exact), footprints, validation before
// upload, and the layout of the host-built SELL that the cuSPARSE SELL baseline reads.
#include "spx/cuda/formats.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_support.hpp"

namespace spx::test {
namespace {

template <class P>
class GpuFormats : public ::testing::Test {};
using FormatTypes = ::testing::Types<ValueIndex<float, int32_t>, ValueIndex<double, int32_t>,
                                     ValueIndex<float, int64_t>, ValueIndex<double, int64_t>>;
TYPED_TEST_SUITE(GpuFormats, FormatTypes);

template <class T, class I>
std::vector<NamedMatrix<T, I>> round_trip_matrices(uint64_t seed) {
  auto out = random_matrices<T, I>(seed);
  out.push_back({"0x0", Csr<T, I>(0, 0)});
  return out;
}

template <class V>
std::size_t bytes_of(const std::vector<V>& v) {
  return v.size() * sizeof(V);
}

TYPED_TEST(GpuFormats, EveryFormatRoundTripsExactly) {
  SPX_REQUIRE_GPU();
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& [name, A] : round_trip_matrices<T, I>(seed)) {
    SCOPED_TRACE(name);
    {
      const auto d = cuda::upload(ctx, A);
      EXPECT_EQ(d.bytes(), bytes_of(A.row_ptr) + bytes_of(A.col_idx) + bytes_of(A.values));
      const auto B = cuda::download(ctx, d);
      EXPECT_EQ(B.rows, A.rows);
      EXPECT_EQ(B.cols, A.cols);
      EXPECT_EQ(B.row_ptr, A.row_ptr);
      EXPECT_EQ(B.col_idx, A.col_idx);
      EXPECT_EQ(B.values, A.values);
    }
    {
      const auto H = to_coo(A);
      const auto d = cuda::upload(ctx, H);
      EXPECT_EQ(d.bytes(), bytes_of(H.row_idx) + bytes_of(H.col_idx) + bytes_of(H.values));
      const auto B = cuda::download(ctx, d);
      EXPECT_EQ(B.rows, H.rows);
      EXPECT_EQ(B.cols, H.cols);
      EXPECT_EQ(B.row_idx, H.row_idx);
      EXPECT_EQ(B.col_idx, H.col_idx);
      EXPECT_EQ(B.values, H.values);
    }
    if (A.rows < 20000) {  // the padded formats of the large matrix add nothing but time
      const auto H = to_ell(A);
      const auto d = cuda::upload(ctx, H);
      EXPECT_EQ(d.bytes(), bytes_of(H.col_idx) + bytes_of(H.values));
      const auto B = cuda::download(ctx, d);
      EXPECT_EQ(std::make_tuple(B.rows, B.cols, B.width, B.ld),
                std::make_tuple(H.rows, H.cols, H.width, H.ld));
      EXPECT_EQ(B.col_idx, H.col_idx);
      EXPECT_EQ(B.values, H.values);

      const auto R = to_ellr(A);
      const auto dr = cuda::upload(ctx, R);
      EXPECT_EQ(dr.bytes(), bytes_of(R.col_idx) + bytes_of(R.values) + bytes_of(R.row_len));
      const auto BR = cuda::download(ctx, dr);
      EXPECT_EQ(std::make_tuple(BR.rows, BR.cols, BR.width, BR.rows_padded),
                std::make_tuple(R.rows, R.cols, R.width, R.rows_padded));
      EXPECT_EQ(BR.col_idx, R.col_idx);
      EXPECT_EQ(BR.values, R.values);
      EXPECT_EQ(BR.row_len, R.row_len);

      for (Layout layout : {Layout::ColMajor, Layout::RowMajor}) {
        const auto D = to_dense(A, layout);
        const auto dd = cuda::upload(ctx, D);
        EXPECT_EQ(dd.bytes(), bytes_of(D.data));
        const auto BD = cuda::download(ctx, dd);
        EXPECT_EQ(std::make_tuple(BD.rows, BD.cols, BD.ld, BD.layout),
                  std::make_tuple(D.rows, D.cols, D.ld, D.layout));
        EXPECT_EQ(BD.data, D.data);
      }
    }
    {
      const auto H = to_hyb(A, I{3});  // a narrow Ell part, so the long rows spill into the Coo part
      const auto d = cuda::upload(ctx, H);
      EXPECT_EQ(d.bytes(), bytes_of(H.ell.col_idx) + bytes_of(H.ell.values) + bytes_of(H.coo.row_idx) +
                               bytes_of(H.coo.col_idx) + bytes_of(H.coo.values));
      const auto B = cuda::download(ctx, d);
      EXPECT_EQ(std::make_tuple(B.ell.rows, B.ell.cols, B.ell.width, B.ell.ld),
                std::make_tuple(H.ell.rows, H.ell.cols, H.ell.width, H.ell.ld));
      EXPECT_EQ(B.ell.col_idx, H.ell.col_idx);
      EXPECT_EQ(B.ell.values, H.ell.values);
      EXPECT_EQ(B.coo.row_idx, H.coo.row_idx);
      EXPECT_EQ(B.coo.col_idx, H.coo.col_idx);
      EXPECT_EQ(B.coo.values, H.coo.values);
    }
  }
}

TYPED_TEST(GpuFormats, SellPutsEveryEntryInItsSlot) {
  SPX_REQUIRE_GPU();
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  // 77 rows: two full slices of 32 and a last one of 13, padded to 32.
  const auto A = with_long_row(random_csr<T, I>(77, 50, 0, 6, seed, 0.2), I{40}, I{45}, seed + 1);
  const I S = 32;
  const auto d = cuda::upload_sell(ctx, A, S);
  const auto offsets = cuda::to_host(ctx, d.slice_offsets);
  const auto cols = cuda::to_host(ctx, d.col_idx);
  const auto vals = cuda::to_host(ctx, d.values);
  ASSERT_EQ(offsets.size(), 4u);
  EXPECT_EQ(d.nnz, A.nnz());
  EXPECT_EQ(static_cast<std::size_t>(d.values_size), cols.size());
  EXPECT_EQ(offsets.back(), d.values_size);
  std::size_t real = 0;
  for (I r = 0; r < A.rows; ++r) {
    const I slice = r / S, lane = r % S;
    const I width = (offsets[slice + 1] - offsets[slice]) / S;
    ASSERT_GE(width, A.row_length(r));
    for (I k = 0; k < width; ++k) {
      const auto slot = static_cast<std::size_t>(offsets[slice] + k * S + lane);
      if (k < A.row_length(r)) {
        EXPECT_EQ(cols[slot], A.col_idx[A.row_ptr[r] + k]) << "row " << r << " slot " << k;
        EXPECT_EQ(vals[slot], A.values[A.row_ptr[r] + k]) << "row " << r << " slot " << k;
        ++real;
      } else {
        EXPECT_EQ(cols[slot], I{kPadding}) << "row " << r << " slot " << k;
        EXPECT_EQ(vals[slot], T{0});
      }
    }
  }
  EXPECT_EQ(real, static_cast<std::size_t>(A.nnz()));
  // Rows 77..95 of the last slice are all padding.
  for (I lane = 77 % S; lane < S; ++lane)
    for (I k = 0; k < (offsets[3] - offsets[2]) / S; ++k)
      EXPECT_EQ(cols[offsets[2] + k * S + lane], I{kPadding});
}

TEST(GpuFormatsValidation, InvalidMatrixIsRejectedBeforeUpload) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  auto A = random_csr<double, int32_t>(10, 10, 1, 3, 1);
  A.col_idx[2] = 10;  // out of range
  EXPECT_THROW(cuda::upload(ctx, A), Error);
  EXPECT_THROW(cuda::upload_sell(ctx, A), Error);
  auto ok = random_csr<double, int32_t>(10, 10, 1, 3, 1);
  expect_error([&] { cuda::upload_sell(ctx, ok, 0); }, "slice size must be at least 1");
}

TEST(GpuFormatsValidation, MakeDeviceDenseHasTightLeadingDimension) {
  SPX_REQUIRE_GPU();
  const auto C = cuda::make_device_dense<float>(7, 3, Layout::ColMajor);
  EXPECT_EQ(C.ld, 7);
  EXPECT_EQ(C.data.size(), 21u);
  const auto R = cuda::make_device_dense<float>(7, 3, Layout::RowMajor);
  EXPECT_EQ(R.ld, 3);
}

}  // namespace
}  // namespace spx::test
