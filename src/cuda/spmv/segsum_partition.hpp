// The tile bookkeeping of the speculative segmented-sum SpMV (Liu & Vinter 2015, §3; segsum.cu), as
// plain __host__ __device__ functions so that tests/cpu/segsum_partition_test.cpp checks on the CPU
// that every row of y is produced exactly once. No CUDA runtime here; compiles as plain C++.
//
// The nonzeros are cut into tiles of kSegsumWarp × T consecutive entries. Tile t covers entries
// [tile_begin(t), tile_end(t)) and its boundary row tile_row[t] is the rightmost row r with
// row_ptr[r] <= tile_begin(t) (the row that holds its first entry; empty rows are skipped because
// they share their offset with the next row). The last boundary, tile_row[tiles], is rows - 1.
//
// Who writes which row of y:
//   * a non-empty row: the tile (and warp) holding its first nonzero — later tiles of the same warp
//     hand their part on as a carry, later warps through the synchronizer (segsum.cu);
//   * an empty row r: the tile with tile_begin < row_ptr[r] <= tile_end (tile 0 also takes the
//     leading empty rows, row_ptr[r] == 0), so the trailing empty rows belong to the last tile.
// A tile is "dirty" (the paper's speculator) when an empty row lies in its row range
// [range_first, range_last]: then the rank of a row start among the tile's starts is no longer
// its row offset from tile_row[t], and the kernel searches row_ptr instead.
#pragma once

#include <cstdint>

#include "cuda/common/host_device.hpp"

namespace spx::cuda::detail {

inline constexpr int kSegsumWarp = 32;

SPX_HOST_DEVICE inline int64_t segsum_tile_size(int nnz_per_lane) {
  return int64_t{kSegsumWarp} * nnz_per_lane;
}

SPX_HOST_DEVICE inline int64_t segsum_tile_count(int64_t nnz, int64_t tile_size) {
  return (nnz + tile_size - 1) / tile_size;
}

SPX_HOST_DEVICE inline int64_t segsum_tile_begin(int64_t t, int64_t nnz, int64_t tile_size) {
  return t * tile_size < nnz ? t * tile_size : nnz;
}

// Rightmost r in [lo, hi) with ptr[r] <= entry, for non-decreasing ptr and ptr[lo] <= entry.
// I: int64_t, or int32_t in the product kernel (fewer registers; the plan checks the int32 range).
template <class P, class I>
SPX_HOST_DEVICE inline I rightmost_row_at_or_before(const P* ptr, I lo, I hi, I entry) {
  while (hi - lo > 1) {
    const I mid = lo + (hi - lo) / 2;
    if (static_cast<I>(ptr[mid]) <= entry)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// tile_row[t] for boundary t in [0, tiles]: the row holding entry tile_begin(t); rows - 1 for the
// end boundary (every trailing empty row then falls into the last tile's range). rows >= 1, nnz >= 1.
template <class P>
SPX_HOST_DEVICE inline int64_t segsum_boundary_row(const P* row_ptr, int64_t rows, int64_t nnz,
                                                   int64_t tile_size, int64_t t) {
  return rightmost_row_at_or_before(row_ptr, int64_t{0}, rows, segsum_tile_begin(t, nnz, tile_size));
}

// The rows tile t looks at: [first, last]. Tile 0 starts at row 0 so that it sees the leading empty
// rows; every other tile starts at its boundary row.
struct RowRange {
  int64_t first = 0;
  int64_t last = 0;
};
template <class R>
SPX_HOST_DEVICE inline RowRange segsum_row_range(const R* tile_row, int64_t t) {
  return {t == 0 ? int64_t{0} : static_cast<int64_t>(tile_row[t]), static_cast<int64_t>(tile_row[t + 1])};
}

// A tile whose row range holds more than this many rows is "wide": it cannot be walked row by row
// by its one warp without a load imbalance (10^7 trailing empty rows would all fall to the last
// tile). A range holds at most tile_size + 1 non-empty rows (the boundary rows plus one per head
// strictly inside the tile), so a wide tile is always dirty. Wide tiles find their row starts by a
// binary search per position instead, and their empty rows are scaled by a separate grid-wide pass
// (segsum.cu), so every warp's work stays bounded by O(tile_size log rows).
SPX_HOST_DEVICE inline int64_t segsum_wide_rows(int64_t tile_size) { return 2 * tile_size + 2; }

SPX_HOST_DEVICE inline bool segsum_range_wide(RowRange range, int64_t tile_size) {
  return range.last - range.first + 1 > segsum_wide_rows(tile_size);
}

// True when an empty row lies in tile t's row range (the tile must search row_ptr for its rows).
// Wide ranges are dirty without a walk, so one thread's work is bounded (see segsum_wide_rows).
template <class P, class R>
SPX_HOST_DEVICE inline bool segsum_tile_dirty(const P* row_ptr, const R* tile_row, int64_t t,
                                              int64_t tile_size) {
  const RowRange range = segsum_row_range(tile_row, t);
  if (segsum_range_wide(range, tile_size)) return true;
  for (int64_t r = range.first; r <= range.last; ++r)
    if (row_ptr[r] == row_ptr[r + 1]) return true;
  return false;
}

// The row of the row start at nonzero `entry` of a dirty tile, given the row `prev` of the
// previous start in the same lane slice (rows strictly between are empty or end before entry):
// a forward step over a few empty rows, then a binary search over the rest of the range (so a
// run of empty rows costs log2 of its length, not its length). hi = range.last + 1.
inline constexpr int kSegsumForwardSteps = 4;
template <class P, class I>
SPX_HOST_DEVICE inline I segsum_next_start_row(const P* row_ptr, I prev, I hi, I entry) {
  I r = prev + 1;  // row_ptr[r] <= entry: row prev ends at or before the next start
  for (int k = 0; k < kSegsumForwardSteps; ++k) {
    if (r + 1 >= hi || static_cast<I>(row_ptr[r + 1]) > entry) return r;
    ++r;
  }
  return rightmost_row_at_or_before(row_ptr, r, hi, entry);
}

// Row completion (the alternative to the synchronizer): the warp that holds a row's first
// nonzero also reads the row's nonzeros past its last tile, so no partial sum crosses warps and
// the product is one launch. This is that "open tail" of tile t: the nonzeros after the tile's end
// of the row holding its last entry, 0 when a row starts exactly at the end. With R = tile_row[t +
// 1] (the rightmost row with row_ptr[R] <= end), the row is open when R starts before the end, and
// then row_ptr[R + 1] > end. The plan takes the maximum over the tiles to decide whether the
// tails are short enough to complete (a warp's own tail is its last tile's).
template <class P, class R>
SPX_HOST_DEVICE inline int64_t segsum_open_tail(const P* row_ptr, const R* tile_row, int64_t t, int64_t nnz,
                                                int64_t tile_size) {
  const int64_t end = segsum_tile_begin(t + 1, nnz, tile_size);
  const int64_t r = static_cast<int64_t>(tile_row[t + 1]);
  return static_cast<int64_t>(row_ptr[r]) < end ? static_cast<int64_t>(row_ptr[r + 1]) - end : 0;
}

// Row completion with a limit L on the tails a warp sums alone: a longer tail is summed by
// arrival instead — the owner warp and every later warp the row reaches store their partials, and
// the last of them to arrive adds all in warp order. This says whether warp w (warp_elems = S ×
// tile_size nonzeros from w × warp_elems, its first tile w × S) begins inside such a row: its
// first row began in an earlier warp, whose open tail is longer than L. Since every warp between
// the row's owner and its last nonzero begins inside the row, those warps are exactly the
// owner's partners, and there are (row end - 1) / warp_elems - owner of them.
template <class P, class R>
SPX_HOST_DEVICE inline bool segsum_head_in_long_tail(const P* row_ptr, const R* tile_row, int64_t w,
                                                     int64_t tiles_per_warp, int64_t tile_size, int64_t nnz,
                                                     int64_t limit) {
  const int64_t warp_elems = tiles_per_warp * tile_size;
  const int64_t r = static_cast<int64_t>(tile_row[w * tiles_per_warp]);
  const int64_t start = static_cast<int64_t>(row_ptr[r]);
  if (start >= w * warp_elems) return false;  // the warp begins with a row start
  const int64_t owner_end = (start / warp_elems + 1) * warp_elems;
  return static_cast<int64_t>(row_ptr[r + 1]) - (owner_end < nnz ? owner_end : nnz) > limit;
}

// Empty row r (row_ptr[r] == row_ptr[r+1]) is scaled by beta by tile t when this holds.
SPX_HOST_DEVICE inline bool segsum_owns_empty_row(int64_t row_offset, int64_t t, int64_t tile_begin,
                                                  int64_t tile_end) {
  return (row_offset > tile_begin || t == 0) && row_offset <= tile_end;
}

// Row start r is a segment head of tile t at position row_ptr[r] - tile_begin when that lies in
// [0, tile_end - tile_begin) (empty rows share the bit of the next non-empty row).
SPX_HOST_DEVICE inline bool segsum_head_in_tile(int64_t row_offset, int64_t tile_begin, int64_t tile_end) {
  return row_offset >= tile_begin && row_offset < tile_end;
}

// The speculative row of the segment holding tile position q in a clean tile: the boundary row
// plus the number of row starts at positions 1..q (Liu & Vinter's segment descriptor rank).
SPX_HOST_DEVICE inline int64_t segsum_clean_row(int64_t boundary_row, int starts_in_1_to_q) {
  return boundary_row + starts_in_1_to_q;
}

}  // namespace spx::cuda::detail
