// Block sparse row (BSR): the matrix cut into square b x b blocks (b in 2..8), the blocks holding at
// least one nonzero stored whole (zeros filled in), block rows compressed like CSR's rows. For FEM
// matrices with b unknowns per node the blocks are dense and one column index serves b*b values: f64
// 3x3 blocks move 8 + 4/9 bytes per nonzero instead of CSR's 12. docs/formats.md has the format,
// its bytes and when the planner picks it.
//
// Rows and columns that are not a multiple of b: the last block row (column) is padded logically;
// its entries past `rows` (`cols`) are stored as zeros, and no product reads x past cols or writes y
// past rows. Filled entries are explicit zeros: for finite x the product equals CSR's up to
// summation order, but a NaN or Inf in x at a filled column reaches the block's other rows (as in
// cuSPARSE's BSR).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "spx/matrix.hpp"

namespace spx {

inline constexpr int kBsrMinBlock = 2;
inline constexpr int kBsrMaxBlock = 8;

template <class T, class I = int32_t>
struct Bsr {
  using value_type = T;
  using index_type = I;
  I rows = 0;  ///< scalar rows and columns (not block counts)
  I cols = 0;
  int block = 2;                                     ///< b
  I block_rows = 0;                                  ///< ceil(rows / b)
  I block_cols = 0;                                  ///< ceil(cols / b)
  std::vector<I> row_ptr = std::vector<I>(1, I{0});  ///< block_rows + 1
  std::vector<I> col_idx;  ///< blocks: block columns, strictly increasing per block row
  std::vector<T> values;   ///< blocks * b * b; block k's (r, c) at k*b*b + r*b + c

  I blocks() const { return row_ptr.empty() ? I{0} : row_ptr.back(); }
  /// Sizes consistent, block_rows/cols = ceil(rows/cols / b), row_ptr monotone from 0, block columns
  /// in range and strictly increasing per block row, padding entries (past rows or cols) zero.
  /// Throws spx::Error naming the first offending index.
  void validate() const;
};

/// Values a conversion may allocate by default (as to_ell's slots): 2^31.
inline constexpr std::size_t kBsrDefaultMaxValues = std::size_t{1} << 31;

/// CSR -> BSR with b x b blocks: two passes over the nonzeros (count blocks, then fill), a marker
/// array of one I per block column. The block count and its b*b values are checked before
/// allocating: more than `max_values` values (or a block count that does not fit I) is an
/// spx::Error naming the fill (stored values per nonzero). A must be canonical.
template <class T, class I>
Bsr<T, I> to_bsr(const Csr<T, I>& A, int block, std::size_t max_values = kBsrDefaultMaxValues);
/// BSR -> CSR: the stored entries that are nonzero (filled zeros dropped, explicit zeros of A too)
/// inside rows x cols; canonical.
template <class T, class I>
Csr<T, I> to_csr(const Bsr<T, I>& A);

namespace ref {
/// y = alpha*A*x + beta*y (beta == 0: y is not read); entries past cols / rows are skipped.
template <class T, class I>
void spmv(const Bsr<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
}  // namespace ref

/// The block counts of a CSR pattern for each block size the planner considers, exact or estimated
/// on an evenly spaced sample of block rows. Value-type free: the planner turns them into bytes.
struct BsrBlockCounts {
  static constexpr std::array<int, 6> kSizes = {2, 3, 4, 5, 6, 8};
  int64_t rows = 0, cols = 0, nnz = 0;
  std::array<int64_t, kSizes.size()> blocks{};  ///< per kSizes entry (estimated when sampled)
  bool sampled = false;
  bool operator==(const BsrBlockCounts&) const = default;
};

/// Rows sampled per block size above which the counts are estimated: block rows at an even stride
/// covering about this many rows; the blocks scale by total nnz / sampled nnz.
inline constexpr int64_t kBsrSampleRows = 8192;

/// The planner's sample (plan::fill_host_extras): rows holding about kBsrPlannerSampleNnz nonzeros
/// per block size, within [kBsrMinPlannerSampleRows, kBsrMaxPlannerSampleRows] (8192 rows of a
/// 78-a-row FEM matrix cost ~4 ms on the H200 host, 2048 rows of a shuffled mesh ~10 ms: each
/// sampled block row is a cache miss or two and a sort).
inline constexpr int64_t kBsrPlannerSampleNnz = int64_t{1} << 13;
inline constexpr int64_t kBsrMinPlannerSampleRows = 128;
inline constexpr int64_t kBsrMaxPlannerSampleRows = 1024;

/// Exact when the matrix has at most sample_rows rows, else sampled; cost O(sampled nnz) per size.
template <class T, class I>
BsrBlockCounts bsr_block_counts(const Csr<T, I>& A, int64_t sample_rows = kBsrSampleRows);

}  // namespace spx
