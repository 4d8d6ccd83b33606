// Field-by-field comparison of two MatrixFeatures, shared by the host tests (against a brute-force
// count) and the GPU tests (device features against the host's), so that a mismatch names the field.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "spx/features.hpp"

namespace spx::test {

inline void expect_same_features(const MatrixFeatures& got, const MatrixFeatures& want,
                                 const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.nnz, want.nnz);
  EXPECT_EQ(got.min_row, want.min_row);
  EXPECT_EQ(got.max_row, want.max_row);
  EXPECT_EQ(got.empty_rows, want.empty_rows);
  EXPECT_EQ(got.sum_sq_row, want.sum_sq_row);
  for (int b = 0; b < MatrixFeatures::kBuckets; ++b) {
    const auto i = static_cast<std::size_t>(b);
    EXPECT_EQ(got.length_buckets[i].rows, want.length_buckets[i].rows) << "bucket " << b;
    EXPECT_EQ(got.length_buckets[i].nnz, want.length_buckets[i].nnz) << "bucket " << b;
  }
  EXPECT_EQ(got.hyb_width, want.hyb_width);
  EXPECT_EQ(got.hyb_ell_nnz, want.hyb_ell_nnz);
  EXPECT_EQ(got.sell_slots, want.sell_slots);
  EXPECT_EQ(got.nonempty_cols, want.nonempty_cols);
  constexpr const char* kGranularity[MatrixFeatures::kGranularities] = {"f32 sectors", "f64 sectors",
                                                                        "columns"};
  for (std::size_t k = 0; k < MatrixFeatures::kGranularities; ++k) {
    EXPECT_EQ(got.x_sectors[k], want.x_sectors[k]) << kGranularity[k];
    EXPECT_EQ(got.row_sectors[k], want.row_sectors[k]) << kGranularity[k];
    EXPECT_EQ(got.window_sectors[k], want.window_sectors[k]) << kGranularity[k];
  }
  EXPECT_TRUE(got == want);
}

}  // namespace spx::test
