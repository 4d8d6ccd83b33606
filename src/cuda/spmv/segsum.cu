// Speculative segmented-sum CSR SpMV (Liu & Vinter 2015, §3, Algorithm 1) for a discrete Hopper GPU.
//
// Plan (segsum_boundary_kernel, segsum_dirty_kernel): one thread per tile boundary binary-searches
// row_ptr for the boundary row (segsum_partition.hpp); one thread per tile marks it dirty when an
// empty row lies in its row range (the paper's speculator).
//
// Product, segsum_tile_kernel: one warp per S consecutive tiles of 32 × T nonzeros. Per tile:
//  1. segment descriptor: the warp sets one bit per row start in the tile (a bit-flag array of
//     T words in shared memory, built from row_ptr over the tile's row range); dirty tiles also
//     scale their empty rows by beta here;
//  2. products: values, col_idx and x are loaded coalesced (32 consecutive nonzeros per warp
//     instruction, 4 such loads in flight per lane) and the products stored in natural order in
//     shared memory, padded by one slot per 32 so that the transposed read of step 3 is free of
//     bank conflicts for f32 (2-way for f64). The paper's lane-major layout — lane l owns T
//     consecutive nonzeros — would make each global load a 32-way strided access;
//  3. each lane sums its T consecutive products sequentially, writing the rows that begin and end
//     inside its slice (alpha, beta) and keeping the parts before its first and after its last
//     row start; a warp segmented scan over (value, has-start) pairs (segmented.cuh) joins the
//     parts across lanes, so the lane holding a row's end writes it;
//  4. the tile's last segment is carried to the next tile of the warp; the warp's first segment,
//     when its row started in an earlier warp, goes to the synchronizer (sync_row, sync_value).
// A segment's row is speculated as boundary row + rank of its start (clean tiles) or searched in
// row_ptr within the tile's row range (dirty tiles: the checking stage, done inline).
//
// Wide tiles (long runs of empty rows, segsum_partition.hpp) find their row starts by a search per
// position instead of the walk, and segsum_wide_empty_kernel scales their empty rows grid-wide.
// values and col_idx are loaded evict-first so that the gathered x stays in L2 (10-25% faster).
//
// segsum_sync_kernel then adds the synchronizer partials to y: one thread per run of warps sharing
// an open row, in warp order (deterministic; long runs summed by the whole warp, as coo.cu does).
// Small grids skip it (row completion, CompleteRows): the warp holding a row's first nonzero also
// sums the row past its last tile (the first 32 nonzeros loaded with the tile), later warps drop
// their part; a tail longer than the plan's limit is summed by arrival (segsum_arrive). Those
// kernels stage each tile in shared memory by cp.async (segsum_staged.cu), since on small grids
// each warp's chain of round trips sets the time.
// Each row of y is written by exactly one tile (its first nonzero's, or the owner of its empty
// offset), so beta is applied once and y needs no pre-pass.
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/run_sum.cuh"
#include "cuda/spmv/segsum_launch.hpp"
#include "cuda/spmv/segsum_partition.hpp"
#include "cuda/spmv/segsum_tile.cuh"

namespace spx::cuda::detail {
namespace {

constexpr int kPlanBlock = 256;
constexpr int kSyncBlock = 256;
constexpr int kShortRun = 8;   // synchronizer runs up to this long are summed by one thread
constexpr int kRunBatch = 16;  // loads per lane in flight when a warp sums a long run

__global__ void __launch_bounds__(kPlanBlock)
    segsum_boundary_kernel(const int32_t* __restrict__ row_ptr, int64_t rows, int64_t nnz, int64_t tile_size,
                           int64_t tiles, int32_t* __restrict__ tile_row) {
  const int64_t t = int64_t{blockIdx.x} * kPlanBlock + threadIdx.x;
  if (t <= tiles) tile_row[t] = static_cast<int32_t>(segsum_boundary_row(row_ptr, rows, nnz, tile_size, t));
}

// counts[0] += dirty tiles; counts[1] = max over the tiles of the open tail (segsum_open_tail).
__global__ void __launch_bounds__(kPlanBlock)
    segsum_dirty_kernel(const int32_t* __restrict__ row_ptr, int64_t nnz, int64_t tile_size, int64_t tiles,
                        const int32_t* __restrict__ tile_row, uint8_t* __restrict__ tile_dirty,
                        unsigned long long* __restrict__ counts) {
  const int64_t t = int64_t{blockIdx.x} * kPlanBlock + threadIdx.x;
  if (t >= tiles) return;
  const bool dirty = segsum_tile_dirty(row_ptr, tile_row, t, tile_size);
  tile_dirty[t] = dirty ? 1 : 0;
  if (dirty) atomicAdd(counts, 1ull);
  const int64_t tail = segsum_open_tail(row_ptr, tile_row, t, nnz, tile_size);
  if (tail > 0) atomicMax(counts + 1, static_cast<unsigned long long>(tail));
}

__global__ void __launch_bounds__(kPlanBlock)
    segsum_long_head_kernel(const int32_t* __restrict__ row_ptr, const int32_t* __restrict__ tile_row,
                            int64_t nnz, int64_t tile_size, int64_t tiles_per_warp, int64_t warps,
                            int64_t limit, uint8_t* __restrict__ long_head) {
  const int64_t w = int64_t{blockIdx.x} * kPlanBlock + threadIdx.x;
  if (w < warps)
    long_head[w] =
        segsum_head_in_long_tail(row_ptr, tile_row, w, tiles_per_warp, tile_size, nnz, limit) ? 1 : 0;
}

// The empty rows of wide tiles (segsum_partition.hpp), scaled by beta grid-wide: thread g takes
// row g of the concatenated row ranges of the wide tiles (wide_prefix: exclusive prefix of the
// range lengths), and scales it when it is empty and owned by that tile. Rows shared by two ranges
// are scaled once: a row has one owner.
template <class T>
__global__ void __launch_bounds__(kPlanBlock) segsum_wide_empty_kernel(SegsumArgs<T> a) {
  const int64_t tile_size = int64_t{kSegsumWarp} * a.nnz_per_lane;
  for (int64_t g = int64_t{blockIdx.x} * kPlanBlock + threadIdx.x; g < a.wide_total;
       g += int64_t{gridDim.x} * kPlanBlock) {
    const int64_t s = rightmost_row_at_or_before(a.wide_prefix, int64_t{0}, a.wide_count, g);
    const int64_t t = a.wide_tiles[s];
    const int64_t r = segsum_row_range(a.tile_row, t).first + (g - a.wide_prefix[s]);
    const int64_t offset = a.row_ptr[r];
    const int64_t begin = t * tile_size;
    const int64_t end = begin + tile_size < a.nnz ? begin + tile_size : a.nnz;
    if (a.row_ptr[r + 1] == offset && segsum_owns_empty_row(offset, t, begin, end))
      a.y[r] = a.beta == T{0} ? T{0} : a.beta * a.y[r];
  }
}

// One thread per warp w: if w opens a run of warps whose first segment is the same row (w - 1
// does not share it), adds their synchronizer partials in warp order to y: the first kShortRun by
// the thread, the rest of a long run by the whole warp (run_sum.cuh; batched loads, since a row of
// 10^6 nonzeros leaves thousands of partials). Nothing depends on timing, so the sums are the same
// bits on every run.
template <class T>
__global__ void __launch_bounds__(kSyncBlock) segsum_sync_kernel(SegsumArgs<T> a) {
  const int64_t w = int64_t{blockIdx.x} * kSyncBlock + threadIdx.x;
  int32_t row = -1;
  T sum = 0;
  if (w >= 1 && w < a.warps) {
    row = a.sync_row[w];
    if (row >= 0 && a.sync_row[w - 1] == row) row = -1;  // not the start of its run
    if (row >= 0) sum = a.sync_value[w];
  }
  sum = sum_run_after<kShortRun, kRunBatch>(a.sync_row, a.sync_value, a.warps, row >= 0, row, w + 1, sum);
  if (row >= 0) a.y[row] += a.alpha * sum;  // the owner wrote alpha*own + beta*y already
}

}  // namespace

void launch_segsum_plan(Context& ctx, const int32_t* row_ptr, int64_t rows, int64_t nnz, int64_t tile_size,
                        int64_t tiles, int32_t* tile_row, uint8_t* tile_dirty, unsigned long long* counts) {
  segsum_boundary_kernel<<<grid_for(tiles + 1, kPlanBlock), kPlanBlock, 0, ctx.stream()>>>(
      row_ptr, rows, nnz, tile_size, tiles, tile_row);
  SPX_CHECK_LAUNCH("segsum_boundary_kernel", ctx.stream());
  segsum_dirty_kernel<<<grid_for(tiles, kPlanBlock), kPlanBlock, 0, ctx.stream()>>>(
      row_ptr, nnz, tile_size, tiles, tile_row, tile_dirty, counts);
  SPX_CHECK_LAUNCH("segsum_dirty_kernel", ctx.stream());
}

void launch_segsum_long_heads(Context& ctx, const int32_t* row_ptr, const int32_t* tile_row, int64_t nnz,
                              int64_t tile_size, int64_t tiles_per_warp, int64_t warps, int64_t limit,
                              uint8_t* long_head) {
  segsum_long_head_kernel<<<grid_for(warps, kPlanBlock), kPlanBlock, 0, ctx.stream()>>>(
      row_ptr, tile_row, nnz, tile_size, tiles_per_warp, warps, limit, long_head);
  SPX_CHECK_LAUNCH("segsum_long_head_kernel", ctx.stream());
}

template <class T>
void launch_segsum_spmv(Context& ctx, const SegsumArgs<T>& a) {
  if (a.wide_total > 0) {
    segsum_wide_empty_kernel<T>
        <<<grid_for_resident(ctx, a.wide_total, kPlanBlock, 8), kPlanBlock, 0, ctx.stream()>>>(a);
    SPX_CHECK_LAUNCH("segsum_wide_empty_kernel", ctx.stream());
  }
  // Row completion runs the staged kernels (segsum_staged.cu), the synchronizer the batched ones.
  if (a.complete_rows)
    launch_segsum_staged_tiles(ctx, a);
  else
    launch_segsum_tiles<T, false>(ctx, a);
  if (a.warps > 1 && !a.complete_rows) {
    segsum_sync_kernel<T><<<grid_for(a.warps, kSyncBlock), kSyncBlock, 0, ctx.stream()>>>(a);
    SPX_CHECK_LAUNCH("segsum_sync_kernel", ctx.stream());
  }
}

template void launch_segsum_spmv(Context&, const SegsumArgs<float>&);
template void launch_segsum_spmv(Context&, const SegsumArgs<double>&);

}  // namespace spx::cuda::detail
