// Matrix features for the performance model: the counts a model of SpMV time needs (row-length
// distribution, HYB split, x traffic in 32-byte sectors), computed exactly the same from a host Csr
// (here) and from a device CSR (spx/cuda/features.hpp). All counts are exact integers; the doubles
// are derived from them by the member functions below, so both paths give identical numbers.
// docs/features.md says what each field is for, how the window estimate errs and what it costs.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "spx/matrix.hpp"

namespace spx {

// Rows whose length falls in one log2 bucket, and the nonzeros they hold.
struct RowLengthBucket {
  int64_t rows = 0;
  int64_t nnz = 0;
  bool operator==(const RowLengthBucket&) const = default;
};

struct MatrixFeatures {
  // Precision index p of the per-precision arrays: x values per 32-byte sector are 8 (f32), 4 (f64).
  static constexpr int kF32 = 0;
  static constexpr int kF64 = 1;
  // Row lengths per bucket: bucket 0 = length 0; bucket b >= 1 = lengths in [2^(b-1), 2^b).
  // Bucket 32 also holds any longer row (only possible with int64 indices).
  static constexpr int kBuckets = 33;
  // Rows per window of window_sectors (a warp of a row-per-thread kernel) and bits per window bitmap.
  static constexpr int64_t kWindowRows = 32;
  static constexpr int64_t kWindowBitmapBits = 4096;

  int64_t rows = 0, cols = 0, nnz = 0;
  int64_t min_row = 0, max_row = 0, empty_rows = 0;  // min_row = 0 when rows == 0
  uint64_t sum_sq_row = 0;                           // sum of squared row lengths (exact)
  std::array<RowLengthBucket, kBuckets> length_buckets{};
  int64_t hyb_width = 0;      // Bell–Garland's ELL width: exactly spx::hyb_ell_width's rule
  int64_t hyb_ell_nnz = 0;    // sum over rows of min(length, hyb_width): the nonzeros HYB keeps in ELL
  int64_t nonempty_cols = 0;  // columns with at least one nonzero
  // x traffic in 32-byte sectors (x assumed 32-byte aligned, as cudaMalloc gives), per precision:
  std::array<int64_t, 2> x_sectors{};    // distinct sectors of x the whole matrix touches
  std::array<int64_t, 2> row_sectors{};  // sum over rows of the distinct sectors the row touches
  // Sum over windows of kWindowRows consecutive rows (the last may be shorter) of the distinct
  // sectors the window touches, estimated by linear counting: per window a kWindowBitmapBits-bit
  // bitmap gets bit (mix64(sector) & 4095) for each nonzero; with z bits set the estimate is
  // min(window nnz, round(-4096 ln(1 - z/4096))), or the window's nnz when z = 4096.
  std::array<int64_t, 2> window_sectors{};

  double avg_row() const;     // nnz / rows (0 when rows == 0)
  double stddev_row() const;  // population standard deviation of row lengths, from sum_sq_row

  bool operator==(const MatrixFeatures&) const = default;
};

// Validates A (canonical CSR), then one parallel pass over the rows. Empty or zero-row matrices
// give zeros. Throws spx::Error for an invalid matrix or when the column bitset cannot be allocated.
template <class T, class I>
MatrixFeatures features(const Csr<T, I>& A);

// Multi-line "name: value" table, like to_string(MatrixStats): one line per scalar, per-precision
// fields as name_f32 / name_f64, then one line per non-empty length bucket; no trailing newline.
std::string to_string(const MatrixFeatures& f);
std::ostream& operator<<(std::ostream& os, const MatrixFeatures& f);

}  // namespace spx
