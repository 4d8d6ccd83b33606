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

#if defined(__CUDACC__)
#define SPX_HOST_DEVICE __host__ __device__
#else
#define SPX_HOST_DEVICE
#endif

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
template <class P>
SPX_HOST_DEVICE inline int64_t rightmost_row_at_or_before(const P* ptr, int64_t lo, int64_t hi,
                                                          int64_t entry) {
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(ptr[mid]) <= entry)
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
  return rightmost_row_at_or_before(row_ptr, 0, rows, segsum_tile_begin(t, nnz, tile_size));
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

// True when an empty row lies in tile t's row range (the tile must search row_ptr for its rows).
template <class P, class R>
SPX_HOST_DEVICE inline bool segsum_tile_dirty(const P* row_ptr, const R* tile_row, int64_t t) {
  const RowRange range = segsum_row_range(tile_row, t);
  for (int64_t r = range.first; r <= range.last; ++r)
    if (row_ptr[r] == row_ptr[r + 1]) return true;
  return false;
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
