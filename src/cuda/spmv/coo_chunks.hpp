// The bookkeeping of the COO segmented-reduction SpMV (coo.cu), as __host__ __device__ functions so
// that tests/cpu/coo_chunks_test.cpp can check on the CPU that every row is produced exactly once:
// which chunk owns which nonzeros, which row segments a chunk writes itself and which it leaves as
// partial sums for the fix-up, which chunk scales which empty rows, and how the fix-up finds the
// partials of one row. No CUDA runtime here; compiles as plain C++.
#pragma once

#include <cstdint>

#include "cuda/common/host_device.hpp"

namespace spx::cuda::detail {

// Nonzeros [begin, end) of chunk c (one warp's work); empty when c is past the last chunk.
struct ChunkRange {
  int64_t begin = 0;
  int64_t end = 0;
};

SPX_HOST_DEVICE inline ChunkRange coo_chunk(int64_t chunk, int64_t nnz, int64_t nnz_per_chunk) {
  const int64_t begin = chunk * nnz_per_chunk < nnz ? chunk * nnz_per_chunk : nnz;
  return {begin, begin + nnz_per_chunk < nnz ? begin + nnz_per_chunk : nnz};
}

SPX_HOST_DEVICE inline int64_t coo_chunk_count(int64_t nnz, int64_t nnz_per_chunk) {
  return (nnz + nnz_per_chunk - 1) / nnz_per_chunk;
}

// The rows at the two ends of a non-empty chunk and whether they continue past its boundaries
// (the matrix is sorted by row, so only these two rows can be shared with other chunks).
template <class I>
struct ChunkEnds {
  I first_row;
  I last_row;
  bool head_crosses;  // first_row also has nonzeros before the chunk
  bool tail_crosses;  // last_row also has nonzeros after the chunk
};

template <class I>
SPX_HOST_DEVICE inline ChunkEnds<I> chunk_ends(const I* row_idx, int64_t nnz, ChunkRange c) {
  const I first = row_idx[c.begin];
  const I last = row_idx[c.end - 1];
  return {first, last, c.begin > 0 && row_idx[c.begin - 1] == first, c.end < nnz && row_idx[c.end] == last};
}

enum class SegmentKind {
  Complete,     // the whole row lies in this chunk: the chunk writes y[row] itself
  HeadPartial,  // the chunk's first row, begun in an earlier chunk: partial sum in the head slot
  TailPartial,  // the chunk's last row, continued in a later chunk: partial sum in the tail slot
};

// A row that fills the whole chunk and crosses both boundaries is a HeadPartial (the tail slot then
// stays empty), so every chunk gives each row at most one partial.
template <class I>
SPX_HOST_DEVICE inline SegmentKind classify_segment(I row, const ChunkEnds<I>& e) {
  if (e.head_crosses && row == e.first_row) return SegmentKind::HeadPartial;
  if (e.tail_crosses && row == e.last_row) return SegmentKind::TailPartial;
  return SegmentKind::Complete;
}

// Rows the chunk's head and tail slots hold (-1: no partial in that slot).
template <class I>
SPX_HOST_DEVICE inline I head_slot_row(const ChunkEnds<I>& e) {
  return e.head_crosses ? e.first_row : I{-1};
}
template <class I>
SPX_HOST_DEVICE inline I tail_slot_row(const ChunkEnds<I>& e) {
  return e.tail_crosses && !(e.head_crosses && e.first_row == e.last_row) ? e.last_row : I{-1};
}

// The partials of one row r in slot order: the tail slot of the chunk where r starts (or, when r
// starts exactly at a chunk boundary, the tail slot of that chunk), then the head slots of the
// following chunks for as long as they hold r. Every boundary row begins with exactly one tail
// slot, so the fix-up starts one run per non-empty tail slot and never double counts.
// The head slots of chunk c+1, c+2, ... that continue the run started at tail slot c: [c+1, end).
template <class I>
SPX_HOST_DEVICE inline int64_t run_end(const I* head_rows, int64_t chunks, int64_t tail_chunk, I row) {
  int64_t d = tail_chunk + 1;
  while (d < chunks && head_rows[d] == row) ++d;
  return d;
}

// The empty rows that the nonzero after `previous_row` (the row of the nonzero before it, -1 for
// the first nonzero) scales: [previous_row + 1, row). Each run of empty rows is owned by the first
// nonzero after it; the rows after the last nonzero belong to the chunk that holds it.
template <class I>
SPX_HOST_DEVICE inline bool has_gap_before(I previous_row, I row) {
  return row > previous_row + 1;
}

// Largest r in [0, rows) with ptr[r] <= t, for a non-decreasing ptr[0..rows] with ptr[0] <= t <
// ptr[rows]: the row that holds entry t of a CSR-like layout (empty rows skipped).
template <class P>
SPX_HOST_DEVICE inline int64_t row_of_entry(const P* ptr, int64_t rows, int64_t t) {
  int64_t lo = 0, hi = rows;  // ptr[lo] <= t < ptr[hi]
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(ptr[mid]) <= t)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace spx::cuda::detail
