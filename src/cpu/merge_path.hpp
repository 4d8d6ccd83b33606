// Merge-path partitioning of a CSR matrix over threads (Merrill & Garland, "Merge-based parallel
// sparse matrix-vector multiplication", SC16). Internal to src/cpu.
//
// A row-by-row CSR product walks a path of rows + nnz steps: one per nonzero (multiply-add) and
// one per row end (write the result). Cutting that path into equal pieces gives every thread the
// same number of nonzeros plus rows, found with one binary search in row_ptr per cut. Unlike
// splitting at row boundaries, a cut may fall inside a row, so a single row of millions of
// nonzeros is shared by all threads; the pieces of such a row are added up after the parallel
// part (see SegmentRows).
#pragma once

#include <algorithm>
#include <cstdint>

namespace spx::cpu_detail {

// A point on the merge path: `row` rows finished and `nz` nonzeros consumed.
// Invariant: row_ptr[row] <= nz <= row_ptr[row + 1] (for row < rows).
struct PathPoint {
  int64_t row = 0;
  int64_t nz = 0;
};

// The point where the path crosses diagonal `d` (0 <= d <= rows + nnz), i.e. after d steps.
// Row ends are taken before the nonzero with the same index, so an empty row never splits.
template <class I>
PathPoint merge_path_point(const I* row_ptr, int64_t rows, int64_t nnz, int64_t d) {
  int64_t lo = std::max<int64_t>(0, d - nnz);
  int64_t hi = std::min<int64_t>(d, rows);
  // With i rows finished, d - i nonzeros are consumed, the last being d - i - 1. If row i ends
  // at or before that nonzero (row_ptr[i + 1] <= d - i - 1), row i is finished too: i is too small.
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(row_ptr[mid + 1]) <= d - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  return {lo, d - lo};
}

// Threads worth starting for `steps` path steps: starting a parallel region costs a few
// microseconds, about what one core needs for ~10^4 multiply-adds of SpMV, so each thread gets at
// least kMinStepsPerThread steps (small products run on one thread, without a parallel region).
inline constexpr int64_t kMinStepsPerThread = 16384;
inline int segment_count(int64_t steps, int max_threads) {
  return static_cast<int>(std::clamp<int64_t>(steps / kMinStepsPerThread, 1, std::max(1, max_threads)));
}

// Piece `part` of `parts` equal pieces of the path: [begin, end).
struct PathSegment {
  PathPoint begin;
  PathPoint end;
};

template <class I>
PathSegment merge_path_segment(const I* row_ptr, int64_t rows, int64_t nnz, int part, int parts) {
  const int64_t total = rows + nnz;
  const auto diagonal = [&](int p) { return total / parts * p + std::min<int64_t>(total % parts, p); };
  return {merge_path_point(row_ptr, rows, nnz, diagonal(part)),
          merge_path_point(row_ptr, rows, nnz, diagonal(part + 1))};
}

// The rows a segment touches, in three parts (Merrill & Garland's "row pieces"):
//  * head: the end of a row that began in an earlier segment (nonzeros of it were consumed before
//    ours), empty when the segment starts at a row start;
//  * whole rows [first_whole, end_whole): the segment holds each one's first nonzero and its end,
//    so the caller computes and writes their results directly;
//  * tail: the start of the row the segment ends in, which continues in a later segment.
// Head and tail are partial sums; the caller adds them in segment order after the parallel part.
struct RowPiece {
  int64_t row = -1;  // -1: no piece
  int64_t nz_begin = 0;
  int64_t nz_end = 0;
};
struct SegmentRows {
  RowPiece head;
  int64_t first_whole = 0;
  int64_t end_whole = 0;
  RowPiece tail;
};

template <class I>
SegmentRows segment_rows(const PathSegment& s, const I* row_ptr) {
  SegmentRows parts;
  parts.first_whole = s.begin.row;
  parts.end_whole = s.end.row;
  int64_t nz = s.begin.nz;  // where the segment's nonzeros of row end_whole start
  if (s.begin.row < s.end.row) {
    const auto first_end = static_cast<int64_t>(row_ptr[s.begin.row + 1]);
    if (nz > static_cast<int64_t>(row_ptr[s.begin.row])) {
      parts.head = {s.begin.row, nz, first_end};
      ++parts.first_whole;
    }
    nz = static_cast<int64_t>(row_ptr[s.end.row]);
  }
  if (nz < s.end.nz) parts.tail = {s.end.row, nz, s.end.nz};
  return parts;
}

// Visits the rows of a segment in order as piece(row, nz_begin, nz_end, whole), whole == false for
// the head and the tail (see SegmentRows). At most two pieces per segment are partial.
template <class I, class Piece>
void for_each_row_piece(const PathSegment& s, const I* row_ptr, Piece&& piece) {
  const SegmentRows parts = segment_rows(s, row_ptr);
  if (parts.head.row >= 0) piece(parts.head.row, parts.head.nz_begin, parts.head.nz_end, false);
  for (int64_t row = parts.first_whole; row < parts.end_whole; ++row)
    piece(row, static_cast<int64_t>(row_ptr[row]), static_cast<int64_t>(row_ptr[row + 1]), true);
  if (parts.tail.row >= 0) piece(parts.tail.row, parts.tail.nz_begin, parts.tail.nz_end, false);
}

}  // namespace spx::cpu_detail
