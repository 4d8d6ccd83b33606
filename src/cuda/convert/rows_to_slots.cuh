// The GPU conversions' transpose (ELL's slab, a SELL slice): a warp owns 32 consecutive rows and
// moves their entries k < min(length, width) to slots where the 32 rows' entry k lie side by side.
//
// Why a tile: a thread per row reads its row's entry k while its 31 neighbours read theirs, 32
// sectors per load for 128 useful bytes; on rows of 80-150 entries that fill ran 6-8x slower than
// the bytes it moves (SELL-C16 of a 3-unknown FEM matrix, 26M nonzeros: 0.86 ms, H200). Here the
// warp reads 32 entries at a time in storage order: a chunk k0..k0+31 of every row, the rows'
// chunk lengths prefix-summed across the lanes so that short rows share one load (rows of 7 read as
// densely as rows of 100), staged in a 32 x 33 tile in shared memory (33: lane-varying row and
// entry indices fall in distinct banks), then written entry by entry, 32 rows a store.
#pragma once

#include <cstdint>

#include "cuda/common/warp.cuh"

namespace spx::cuda::detail {

// One warp's staging tile: entry kk (of the current chunk) of row i at [kk][i].
template <class T, class I>
struct RowTile {
  I col[32][33];
  T val[32][33];
};

// Warps per block such that the tiles stay within the 48 KB of static shared memory; the threads
// of such a block, and the blocks that give each of `groups` groups of 32 rows a warp.
template <class T, class I>
inline constexpr int kRowTileWarps = static_cast<int>(48 * 1024 / sizeof(RowTile<T, I>));
template <class T, class I>
inline constexpr int kRowTileThreads = 32 * kRowTileWarps<T, I>;
template <class T, class I>
unsigned row_tile_blocks(int64_t groups) {
  return static_cast<unsigned>((groups + kRowTileWarps<T, I> - 1) / kRowTileWarps<T, I>);
}

// Lane l holds `begin` and `len` of row r0 + l (len 0 for a row past the matrix); every lane of the
// warp calls this with the same width. store(k, col, value, in_row) is then called by every lane
// for k = 0, 1, ..., width - 1 in order, lane l's call being row r0 + l's slot k: in_row says
// whether the slot holds entry k of the row (k < len) or is padding (col and value are then 0).
template <class T, class I, class O, class Store>
__device__ void move_rows_to_slots(RowTile<T, I>& tile, O begin, int64_t len, int64_t width,
                                   const I* __restrict__ col_idx, const T* __restrict__ values,
                                   const Store& store) {
  const int lane = lane_id();
  const int64_t used = len < width ? len : width;
  for (int64_t k0 = 0; k0 < width; k0 += 32) {
    // This chunk's entries of the lane's row (m), their place in the warp's flattened chunk.
    const int64_t left = used - k0;
    const int m = left <= 0 ? 0 : (left >= 32 ? 32 : static_cast<int>(left));
    const int end = warp_inclusive_scan(m);
    const int first = end - m;
    const int total = __shfl_sync(kFullWarpMask, end, 31);
    for (int q0 = 0; q0 < total; q0 += 32) {
      const int q = q0 + lane;
      // The row holding flattened entry q: the first lane whose `end` passes q (32-way search).
      int i = 0;
#pragma unroll
      for (int step = 16; step > 0; step >>= 1)
        if (__shfl_sync(kFullWarpMask, end, i + step - 1) <= q) i += step;
      const int kk = q - __shfl_sync(kFullWarpMask, first, i);
      const O b = __shfl_sync(kFullWarpMask, begin, i);
      if (q < total) {
        tile.col[kk][i] = col_idx[b + k0 + kk];
        tile.val[kk][i] = values[b + k0 + kk];
      }
    }
    __syncwarp();
    const int64_t steps = width - k0 < 32 ? width - k0 : 32;
    for (int kk = 0; kk < steps; ++kk) {
      const bool in = kk < m;
      store(k0 + kk, in ? tile.col[kk][lane] : I{0}, in ? tile.val[kk][lane] : T{0}, in);
    }
    __syncwarp();
  }
}

}  // namespace spx::cuda::detail
