// Matrix statistics: what `spx info` prints, what fixed rules and the performance model read,
// and the structure fingerprint that keys tuning caches.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>

#include "spx/matrix.hpp"

namespace spx {

struct MatrixStats {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t nnz = 0;
  int64_t min_row = 0;    ///< shortest row length
  int64_t max_row = 0;    ///< longest row length
  double avg_row = 0;     ///< nnz / rows
  double stddev_row = 0;  ///< population standard deviation of row lengths
  int64_t empty_rows = 0;
  int64_t lower_bandwidth = 0;   ///< max(i - j) over entries with i > j
  int64_t upper_bandwidth = 0;   ///< max(j - i) over entries with j > i
  int64_t bandwidth = 0;         ///< max(lower, upper)
  double ell_padding_ratio = 0;  ///< rows * max_row / nnz (1 = no padding; 0 for an empty matrix)
  uint64_t fingerprint = 0;      ///< structure_fingerprint()
};

/// Validates A (canonical), then one pass over the rows. Empty or zero-row matrices give zeros.
template <class T, class I>
MatrixStats stats(const Csr<T, I>& A);

/// 64-bit hash of the sparsity pattern (shape, row pointers, column indices; not the values and not
/// the index type): equal patterns give equal fingerprints on every platform. Definition (fpv2,
/// docs/formats.md): each row hashed on its own (its columns' splitmix64 terms summed, folded with
/// its length), then rows, cols and the rows' hashes folded in row order as h = splitmix64(h ^ v)
/// from a fixed version seed. splitmix64 is a bijection, so patterns that differ in exactly one
/// column (or one length) never collide.
template <class T, class I>
uint64_t structure_fingerprint(const Csr<T, I>& A);

/// The same fold over rows, cols and the row lengths only, from a row pointer (rows + 1 offsets),
/// with its own seed so it never equals a structure_fingerprint: for a matrix whose columns live on
/// the device only. Patterns with equal row lengths share it.
uint64_t row_length_fingerprint(int64_t rows, int64_t cols, std::span<const int64_t> row_ptr);

/// Multi-line "name: value" table, as `spx info` prints it: one line per MatrixStats field, named
/// as the field, values aligned in one column, fingerprint as 16 hex digits, no trailing newline.
std::string to_string(const MatrixStats& s);
std::ostream& operator<<(std::ostream& os, const MatrixStats& s);

}  // namespace spx
