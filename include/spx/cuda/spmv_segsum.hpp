// Speculative segmented-sum CSR SpMV (Liu & Vinter 2015, "Speculative segmented sum for sparse
// matrix-vector multiplication on heterogeneous processors", §3 and Algorithm 1), for a discrete
// Hopper GPU: the nonzeros are split evenly into tiles, so every warp does the same work however
// irregular the rows are (power-law, long rows, empty rows).
//
//   auto plan = spx::cuda::plan_segsum_spmv(ctx, dA);          // once per matrix (GPU kernels)
//   spx::cuda::spmv_segsum(ctx, plan, dA, x, y, alpha, beta);  // every call: 1-3 launches
//
// Semantics as spmv_csr_scalar: y = alpha*A*x + beta*y; beta == 0 never reads y; alpha == 0 reads
// neither A nor x. Deterministic: equal inputs give equal bits. docs/spmv-segsum.md has the design.
#pragma once

#include <cstdint>
#include <string>

#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"

namespace spx::cuda {

// Tuning knobs (data, not code): a tile is 32 lanes × nnz_per_lane nonzeros; a warp takes
// tiles_per_warp consecutive tiles. Defaults from the H100 parameter study in docs/spmv-segsum.md
// (bench/results/h100/segsum/study-v2.txt).
struct SegsumSpmvParams {
  // T: a multiple of 4 in 4..32, or 0 = from the matrix (plan_segsum_spmv: 16, 8 or 4, the largest
  // that still gives every resident warp slot of the GPU one tile; 8 instead of 16 when more than
  // an eighth of the tiles are dirty).
  int nnz_per_lane = 0;
  // S: 1..4096, or 0 = chosen at plan time (1: the H100 study found one tile per warp fastest).
  int tiles_per_warp = 0;
  int block_size = 128;  // a multiple of 32 in 32..512 (128: 1-2% ahead of 256 in the study)
  // Each warp prefetches its next tile into L2 while computing this one (only with S > 1). Off:
  // it measured 10-20% slower, since the x gather already saturates L2 (ncu: 88% L2 throughput).
  bool prefetch = false;
  // values and col_idx loaded evict-first (ld.global.cs), so x stays in L2: 10-25% faster.
  bool stream_loads = true;
  // The paper's host-side synchronizer (§3.4) through pinned mapped memory: the tile kernel writes
  // the warps' open partials to host memory, the host combines them and a small kernel adds them
  // to y. Waits for the device on every product (spmv_segsum is then synchronous); measured 15-130
  // µs slower on the H100 (docs/spmv-segsum.md), so off by default.
  bool sync_on_host = false;
  // Row completion instead of the synchronizer (one launch instead of two): the warp holding a
  // row's first nonzero also sums the row's nonzeros past its last tile when they are at most
  // this many; the warps sharing a longer row add their partials by arrival (the last to arrive
  // sums them). > 0: always complete rows, with this limit; 0: never (the synchronizer); -1 =
  // auto: complete rows with kSegsumAutoCompletion when the grid is at most
  // kSegsumAutoCompletionWaves waves of resident warps (there the second launch is much of the
  // time). Ignored with sync_on_host.
  int complete_rows_up_to = -1;
  // When no tile is dirty (no empty row: most regular matrices), the kernel compiled without the
  // checking stage and the wide-tile path, where it measured faster: with row completion, and in
  // f32 with the synchronizer, where it runs 48 warps per SM instead of 32 (40 registers, half the
  // loads in flight per lane), and with the synchronizer wherever its full tiles can be loaded 16
  // bytes per lane (plan.vector_loads). false: always the general kernel (the benchmark's comparison).
  bool clean_kernel = true;
  // Each tile's values and column indices copied into shared memory with cp.async as the tile
  // begins (in flight with its row_ptr loads), instead of loaded in batches between the gathers
  // of x. 1: always; 0: never; -1 = auto: with row completion (small grids, where each warp's
  // chain of round trips sets the time: 5-9% faster on the shared matrices under 100K nonzeros,
  // H100). Not for large grids: the staging buffers take the shared memory that L1 would use for
  // the gathered x (stencil27_128 f32 0.210 -> 0.246 ms, powerlaw_4m f64 0.439 -> 0.739).
  // Needs 16-byte aligned values and col_idx (device allocations are); otherwise not staged.
  int stage_tiles = -1;
};

// The auto limit of complete_rows_up_to, in nonzeros: a warp completing a tail of this length does
// 512 / 32 / 4 = 4 rounds of loads more than its neighbours, about the cost of the synchronizer's
// launch (docs/spmv-segsum.md, "Row completion").
inline constexpr int kSegsumAutoCompletion = 512;
// Auto row completion for grids of at most this many waves of resident warps.
inline constexpr int kSegsumAutoCompletionWaves = 2;

// Empty when p is valid, else one line saying what is wrong.
std::string invalid_reason(const SegsumSpmvParams& p);
// "nnz_per_lane=16 tiles_per_warp=4 block_size=256 prefetch=1 stream_loads=1 sync_on_host=0"
std::string to_string(const SegsumSpmvParams& p);

// Made once per matrix on the device (no read-back of the matrix): the tile boundary rows found by
// binary search in row_ptr (one thread per boundary) and the dirty-tile flags (tiles with empty
// rows, the paper's speculator), plus the synchronizer buffers of the product. A plan is state of
// one stream: do not run two products with the same plan concurrently.
struct SegsumSpmvPlan {
  SegsumSpmvParams params;
  int64_t rows = 0, cols = 0, nnz = 0;
  const void* row_ptr = nullptr;  // the matrix it was made for
  int64_t tiles = 0;
  int64_t warps = 0;
  int64_t dirty_tiles = 0;           // read back once at plan time (for reports)
  int64_t max_open_tail = 0;         // the longest open tail of a tile (read back once)
  bool completes_rows = false;       // one launch, no synchronizer (complete_rows_up_to)
  bool clean_kernel = false;         // the kernel without the checking stage (params.clean_kernel)
  bool staged_tiles = false;         // tiles staged by cp.async (params.stage_tiles)
  bool vector_loads = false;         // full tiles loaded 16 bytes per lane (clean synchronizer kernel)
  int64_t completion_limit = 0;      // tails longer than this are summed by arrival
  DeviceBuffer<uint8_t> long_head;   // warps: begins inside a long tail (only when there is one);
                                     // the arrival counters are the context's (zeroed_counters)
  DeviceBuffer<int32_t> tile_row;    // tiles + 1
  DeviceBuffer<uint8_t> tile_dirty;  // tiles
  DeviceBuffer<int32_t> sync_row;    // warps: the row open at the warp's start, or -1
  DeviceBuffer<double> sync_value;   // warps: its partial sum (used as T); 2 × warps for long tails
  // Wide tiles (row ranges of more than 2 × 32 × T + 2 rows: long runs of empty rows), whose
  // empty rows a separate grid-wide pass scales: tile ids, exclusive prefix of range lengths.
  int64_t wide_tiles = 0;
  int64_t wide_rows = 0;  // rows in their ranges together
  DeviceBuffer<int32_t> wide_tile;
  DeviceBuffer<int64_t> wide_prefix;
  // sync_on_host: the synchronizer in pinned (mapped) host memory, and the combined fix-ups.
  PinnedBuffer<int32_t> host_sync_row;
  PinnedBuffer<double> host_sync_value;
  PinnedBuffer<int32_t> fixup_row;
  PinnedBuffer<double> fixup_value;
};

// Throws spx::Error for invalid params or a matrix past the int32 limits.
template <class T>
SegsumSpmvPlan plan_segsum_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA,
                                const SegsumSpmvParams& params = {});

// y = alpha*A*x + beta*y: the tile kernel, then the synchronizer fix-up (only when more than one
// warp and the plan does not complete rows). No allocation, no host synchronisation (unless
// params.sync_on_host). float and double, int32 indices.
template <class T>
void spmv_segsum(Context& ctx, SegsumSpmvPlan& plan, const DeviceCsr<T, int32_t>& dA, std::span<const T> x,
                 std::span<T> y, T alpha = T{1}, T beta = T{0});

}  // namespace spx::cuda
