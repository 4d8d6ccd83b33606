// The launches of the segmented-sum SpMV (segsum.cu) as seen from the host code (segsum_plan.cpp):
// plain argument structs and launchers; no CUDA headers, no fmt.
#pragma once

#include <cstdint>

#include "spx/cuda/context.hpp"

namespace spx::cuda::detail {

// Fills tile_row[0..tiles] and tile_dirty[0..tiles) and counts the dirty tiles into *dirty_count
// (zeroed by the caller). rows >= 1, nnz >= 1.
void launch_segsum_plan(Context& ctx, const int32_t* row_ptr, int64_t rows, int64_t nnz, int64_t tile_size,
                        int64_t tiles, int32_t* tile_row, uint8_t* tile_dirty,
                        unsigned long long* dirty_count);

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
};

// The tile kernel and, for more than one warp, the synchronizer fix-up; both checked.
template <class T>
void launch_segsum_spmv(Context& ctx, const SegsumArgs<T>& args);

}  // namespace spx::cuda::detail
