// Matrix features for the performance model: the counts a model of SpMV and SpMM time needs
// (row-length distribution, HYB and SELL-32 padding, x traffic in 32-byte sectors and in columns),
// computed exactly the same from a host Csr (here) and from a device CSR (spx/cuda/features.hpp).
// All counts are exact integers; the doubles are derived from them by the member functions below,
// so both paths give identical numbers.
// docs/features.md says what each field is for, how the window estimate errs and what it costs.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "spx/matrix.hpp"

namespace spx {

/// Rows whose length falls in one log2 bucket, and the nonzeros they hold.
struct RowLengthBucket {
  int64_t rows = 0;
  int64_t nnz = 0;
  bool operator==(const RowLengthBucket&) const = default;
};

struct MatrixFeatures {
  /// Granularity index g of the sector arrays: how many consecutive columns one "sector" covers.
  /// kF32, kF64: the x values per 32-byte sector, 8 floats or 4 doubles (SpMV's x traffic); kColumn:
  /// one column (SpMM's B traffic: each nonzero reads a whole row of the dense B, so distinct columns
  /// are the distinct rows of B fetched).
  static constexpr int kF32 = 0;
  static constexpr int kF64 = 1;
  static constexpr int kColumn = 2;
  static constexpr int kGranularities = 3;
  /// Row lengths per bucket: bucket 0 = length 0; bucket b >= 1 = lengths in [2^(b-1), 2^b).
  /// Bucket 32 also holds any longer row (only possible with int64 indices).
  static constexpr int kBuckets = 33;
  /// Rows per window of window_sectors (a warp of a row-per-thread kernel) and bits per window bitmap.
  static constexpr int64_t kWindowRows = 32;
  static constexpr int64_t kWindowBitmapBits = 4096;

  int64_t rows = 0, cols = 0, nnz = 0;
  int64_t min_row = 0, max_row = 0, empty_rows = 0;  ///< min_row = 0 when rows == 0
  uint64_t sum_sq_row = 0;                           ///< sum of squared row lengths (exact)
  std::array<RowLengthBucket, kBuckets> length_buckets{};
  int64_t hyb_width = 0;    ///< Bell–Garland's ELL width: exactly spx::hyb_ell_width's rule
  int64_t hyb_ell_nnz = 0;  ///< sum over rows of min(length, hyb_width): the nonzeros HYB keeps in ELL
  /// SELL-32's stored slots (padding included): sum over slices of kWindowRows consecutive rows of
  /// kWindowRows × the slice's longest row; the last slice counts kWindowRows rows too, as
  /// cuda::upload_sell(A, 32) stores it.
  int64_t sell_slots = 0;
  int64_t nonempty_cols = 0;  ///< columns with at least one nonzero
  /// x traffic in sectors (x assumed 32-byte aligned, as cudaMalloc gives), per granularity; for
  /// kColumn the first two are nonempty_cols and nnz, counted the same way as the others:
  std::array<int64_t, kGranularities> x_sectors{};    ///< distinct sectors of x the whole matrix touches
  std::array<int64_t, kGranularities> row_sectors{};  ///< sum over rows of the distinct sectors of the row
  /// Sum over windows of kWindowRows consecutive rows (the last may be shorter) of the distinct
  /// sectors the window touches, estimated by linear counting: per window a kWindowBitmapBits-bit
  /// bitmap gets bit (mix64(sector) & 4095) for each nonzero; with z bits set the estimate is
  /// min(s, round(-4096 ln(1 - z/4096))), or s when z = 4096, where s = the sum over the window's
  /// rows of their distinct sectors (exact, and an upper bound of the window's distinct sectors).
  std::array<int64_t, kGranularities> window_sectors{};

  double avg_row() const;     ///< nnz / rows (0 when rows == 0)
  double stddev_row() const;  ///< population standard deviation of row lengths, from sum_sq_row

  bool operator==(const MatrixFeatures&) const = default;
};

/// Validates A (canonical CSR), then one parallel pass over the rows. Empty or zero-row matrices
/// give zeros. Throws spx::Error for an invalid matrix or when the column bitset cannot be allocated.
template <class T, class I>
MatrixFeatures features(const Csr<T, I>& A);

/// Multi-line "name: value" table, like to_string(MatrixStats): one line per scalar, per-granularity
/// fields as name_f32 / name_f64 / name_col, then one line per non-empty length bucket; no trailing
/// newline.
std::string to_string(const MatrixFeatures& f);
std::ostream& operator<<(std::ostream& os, const MatrixFeatures& f);

}  // namespace spx
