// The tile bookkeeping of the balanced CSR SpMM (csr_tiled.cu), as plain __host__ __device__
// functions so that tests/cpu/spmm_tiles_test.cpp checks on the CPU that every row of C is written
// exactly once and every nonzero is added exactly once. No CUDA runtime here; compiles as plain C++.
//
// Items. Row r's nonzeros k in [row_ptr[r], row_ptr[r+1]) are the items r + k, and the row *starts*
// at item r + row_ptr[r] (an empty row too: it occupies no item, but its start is a position). So
// the rows and nonzeros together make rows + nnz items in one increasing order (the merge path of
// Merrill & Garland without the end markers' own items), and tile t covers the items
// [t·K, (t+1)·K). Counting rows as items bounds the rows of a tile as well as its nonzeros: a run
// of 10^7 empty rows spreads over 10^7 / K tiles instead of falling to one warp.
//
// Who does what:
//   * a short row (at most K nonzeros) is worked whole, and written, by the tile holding its start;
//   * a long row (more than K nonzeros) is cut at the tile boundaries: each tile it touches works
//     its piece of the row and stores a partial sum, and the last of those tiles to finish adds
//     the partials in tile order and writes the row (deterministic for a given K).
// A tile holds at most one long-row start (a row starting in the tile and ending in it has fewer
// than K nonzeros, so only the last row starting in a tile can be long) and at most one long row
// crossing in from before (the last row starting before the tile): two partial slots per tile.
#pragma once

#include <cstdint>

#include "cuda/common/host_device.hpp"

namespace spx::cuda::detail {

SPX_HOST_DEVICE inline int64_t spmm_tile_count(int64_t rows, int64_t nnz, int64_t tile_items) {
  return (rows + nnz + tile_items - 1) / tile_items;
}

// The item at which row r starts.
template <class P>
SPX_HOST_DEVICE inline int64_t spmm_row_start_item(const P* row_ptr, int64_t r) {
  return r + static_cast<int64_t>(row_ptr[r]);
}

// First r in [0, rows] whose start item is >= item (rows + 1 if none). Row `rows` is the end
// sentinel, whose start item is rows + nnz. The kernel finds the same answer with a half-warp
// 16-ary search (csr_tiled.cu); this is the reference the CPU test compares against.
template <class P>
SPX_HOST_DEVICE inline int64_t spmm_first_row_from(const P* row_ptr, int64_t rows, int64_t item) {
  int64_t lo = 0;
  int64_t hi = rows + 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (spmm_row_start_item(row_ptr, mid) < item)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The rows that start in tile t: [begin, end).
struct TileRows {
  int64_t begin = 0;
  int64_t end = 0;
};

SPX_HOST_DEVICE inline TileRows spmm_tile_rows(int64_t first_of_tile, int64_t first_of_next, int64_t rows) {
  return {first_of_tile, first_of_next < rows ? first_of_next : rows};
}

SPX_HOST_DEVICE inline bool spmm_row_is_long(int64_t row_nnz, int64_t tile_items) {
  return row_nnz > tile_items;
}

// The tiles a long row's nonzeros touch: [first, last] (first is the tile of its start).
struct TileSpan {
  int64_t first = 0;
  int64_t last = 0;
};

SPX_HOST_DEVICE inline TileSpan spmm_long_row_tiles(int64_t r, int64_t row_begin, int64_t row_end,
                                                    int64_t tile_items) {
  return {(r + row_begin) / tile_items, (r + row_end - 1) / tile_items};
}

// The nonzeros [begin, end) of long row r that tile t works (empty when the tile misses the row).
struct NonzeroRange {
  int64_t begin = 0;
  int64_t end = 0;
};

SPX_HOST_DEVICE inline NonzeroRange spmm_long_row_piece(int64_t r, int64_t row_begin, int64_t row_end,
                                                        int64_t t, int64_t tile_items) {
  const int64_t lo = t * tile_items - r;
  const int64_t hi = (t + 1) * tile_items - r;
  return {lo > row_begin ? lo : row_begin, hi < row_end ? hi : row_end};
}

// Partial-sum slots: slot 1 of a tile holds the piece of the long row that starts in it, slot 0
// the piece of the long row crossing in from before. Piece q (0-based, in tile order) of a long
// row spanning tiles [first, last] is slot 1 of `first` for q = 0, slot 0 of first + q after.
SPX_HOST_DEVICE inline int64_t spmm_piece_slot(int64_t first_tile, int64_t q) {
  return q == 0 ? 2 * first_tile + 1 : 2 * (first_tile + q);
}

}  // namespace spx::cuda::detail
