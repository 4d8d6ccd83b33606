// The launches of the segmented-sum SpMV (segsum.cu) as seen from the host code (segsum_plan.cpp):
// plain argument structs and launchers; no CUDA headers, no fmt.
#pragma once

#include <cstdint>

#include "spx/cuda/context.hpp"

namespace spx::cuda::detail {

// Fills tile_row[0..tiles] and tile_dirty[0..tiles), counts the dirty tiles into counts[0] and
// takes the largest open tail of a tile (segsum_open_tail) into counts[1] (both zeroed by the
// caller). rows >= 1, nnz >= 1.
void launch_segsum_plan(Context& ctx, const int32_t* row_ptr, int64_t rows, int64_t nnz, int64_t tile_size,
                        int64_t tiles, int32_t* tile_row, uint8_t* tile_dirty, unsigned long long* counts);

// long_head[w] = segsum_head_in_long_tail(..., w, ...) for w in [0, warps).
void launch_segsum_long_heads(Context& ctx, const int32_t* row_ptr, const int32_t* tile_row, int64_t nnz,
                              int64_t tile_size, int64_t tiles_per_warp, int64_t warps, int64_t limit,
                              uint8_t* long_head);

template <class T>
struct SegsumArgs {
  const int32_t* row_ptr = nullptr;
  const int32_t* col_idx = nullptr;
  const T* values = nullptr;
  const T* x = nullptr;
  T* y = nullptr;
  T alpha = T{1};
  T beta = T{0};
  int64_t rows = 0;
  int64_t nnz = 0;
  int64_t tiles = 0;
  int64_t warps = 0;
  int nnz_per_lane = 16;
  int tiles_per_warp = 4;
  int block_size = 256;
  const int32_t* tile_row = nullptr;
  const uint8_t* tile_dirty = nullptr;
  int32_t* sync_row = nullptr;
  T* sync_value = nullptr;
  bool clean = false;  // no dirty tile (and so no wide one): the kernel without those paths
  // Full tiles loaded 16 bytes per lane by the clean synchronizer kernels (kVectorTiles): values and
  // col_idx 16-byte aligned and nnz_per_lane a multiple of 16 / sizeof(T).
  bool vector_loads = false;
  // Row completion instead of the synchronizer (one launch; tiles staged in shared memory by
  // cp.async, values and col_idx 16-byte aligned): the warp holding a row's first nonzero also sums the row's
  // nonzeros past its last tile (segsum_open_tail) when they are at most complete_limit; a longer tail is
  // summed by arrival (segsum_head_in_long_tail): the owner stores its partial at sync_value[warps + w], each
  // later warp of the row at sync_value[w] (long_head[w] set), and the last to count itself in
  // arrivals[owner] adds them in warp order.
  bool complete_rows = false;
  int complete_limit = 0;
  const uint8_t* long_head = nullptr;  // warps; null when no tail is longer than complete_limit
  unsigned* arrivals = nullptr;        // warps; zero before and after every product
  // Wide tiles (segsum_partition.hpp): their ids, the exclusive prefix of their row-range lengths
  // and its total (the rows segsum_wide_empty_kernel visits).
  const int32_t* wide_tiles = nullptr;
  const int64_t* wide_prefix = nullptr;
  int64_t wide_count = 0;
  int64_t wide_total = 0;
};

// The empty rows of wide tiles (if any), the tile kernel and, for more than one warp without row
// completion, the synchronizer fix-up; all checked.
template <class T>
void launch_segsum_spmv(Context& ctx, const SegsumArgs<T>& args);

}  // namespace spx::cuda::detail
