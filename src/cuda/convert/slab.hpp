// Pieces shared by the GPU conversions (defined in to_ell.cu): the longest row of a DeviceCsr and
// the fill of a column-major padded slab from it.
#pragma once

#include <cstdint>

#include "spx/cuda/formats.hpp"

namespace spx::cuda::detail {

// The longest row and its index (the first such row, as the host's to_ell reports it); {0, 0}
// when the matrix has no rows. Synchronises the stream (the answer sizes an allocation).
struct LongestRow {
  int64_t length = 0;
  int64_t row = 0;
};
template <class T, class I, class O>
LongestRow longest_row(Context& ctx, const DeviceCsr<T, I, O>& A);

// Slot k of row r at [k * ld + r] gets the k-th entry of row r for k < min(row length, width) and
// (kPadding, 0) otherwise, for every r < ld and k < width; row_len (if not null, ld entries) gets
// each row's full length (0 for rows >= A.rows). Coalesced writes, one pass; enqueued only.
template <class T, class I, class O>
void fill_slab(Context& ctx, const DeviceCsr<T, I, O>& A, I ld, I width, I* col_idx, T* values, I* row_len);

}  // namespace spx::cuda::detail
