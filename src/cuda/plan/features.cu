// Matrix features on the device, equal to spx::features on the host (docs/features.md).
//
// Window pass: a warp per 32-row window (grid-stride). Lane l reads row l's two row_ptr entries
// (row-length moments, log2 buckets and the HYB histogram, aggregated per warp with match_any into
// block-local shared counters; the window's longest row, a SELL-32 slice's width), then the warp
// reads the window's contiguous nonzeros 32 at a time, coalesced: each nonzero's column bit goes
// into a global column bitset, and per granularity (f32 sector, f64 sector, column) the nonzeros
// that open a new sector of their row are counted (the window's row sectors s) and set their
// sector's bit in the warp's 4096-bit window bitmap in shared memory; popcounts give z per window,
// and min(s, table[z]) with the host's table is added up as an integer, so the sums equal the
// host's exactly. Windows of more than kLongWindowNnz nonzeros (long rows) are only listed by the
// window pass; the host cuts them into tiles of kTileNnz nonzeros that the tile pass spreads over
// all warps, OR-ing each tile's bitmap into its window's bitmap and adding its row sectors to its
// window's in global memory, so a row of 10^6 nonzeros costs what 250 ordinary windows do instead of
// serialising on one warp. A last pass counts the column bitset (bits = columns, bytes = f32
// sectors, nibbles = f64 sectors).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/warp.cuh"
#include "cuda/common/workspace.hpp"
#include "plan/features_detail.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/features.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

namespace rules = ::spx::detail::feature_rules;

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;
constexpr int kGranularities = MatrixFeatures::kGranularities;
// The window bitmap as 32-bit words (shared-memory atomicOr), per granularity, and per lane.
constexpr int kBitmapWords = static_cast<int>(MatrixFeatures::kWindowBitmapBits / 32);
constexpr int kWordsPerLane = kBitmapWords / 32;
constexpr int kBuckets = MatrixFeatures::kBuckets;
// A window with more nonzeros goes to the tile pass in tiles of kTileNnz: a warp spends about as
// long on one tile as on an ordinary window of 128 rows of 32. Windows up to twice a tile stay in
// the window pass, so that FEM matrices of 6 unknowns a node (~150 a row, ~4800 a window) need no
// tiles and no read-back of the list.
constexpr int64_t kLongWindowNnz = 8192;
constexpr int64_t kTileNnz = 4096;
// HYB histogram bins kept in shared memory (32 KB; with the block's 12 KB of window bitmaps and its
// 0.5 KB of bucket counters, under the default 48 KB). A larger histogram (average row above ~2700)
// is counted in global memory.
constexpr int64_t kSharedHistogramBins = 8192;
// Blocks per SM the grid-stride kernels are sized for.
constexpr int kBlocksPerSm = 8;

// The counters every pass adds to, copied back once at the end.
struct Totals {
  long long min_row;
  long long max_row;
  unsigned long long empty_rows;
  unsigned long long sum_sq_row;
  unsigned long long sell_slots;
  unsigned long long row_sectors[kGranularities];
  unsigned long long window_sectors[kGranularities];
  unsigned long long nonempty_cols;
  unsigned long long x_sectors[kGranularities];
  unsigned long long long_windows;  // entries written to the long-window list
  unsigned long long bucket_rows[kBuckets];
  unsigned long long bucket_nnz[kBuckets];
};

struct LongWindow {  // a window past kLongWindowNnz: its index and its nonzeros [begin, end)
  int window;
  int begin;
  int end;
};
struct Tile {  // nonzeros [begin, end) of long-window list entry `entry`
  int entry;
  int begin;
  int end;
};

struct MinOp {
  template <class V>
  __device__ __forceinline__ V operator()(V a, V b) const {
    return b < a ? b : a;
  }
};

// The nonzeros [begin, end) of one window, 32 per step, coalesced. Lane l holds the start and
// length of the window's row l; `carry` is the column of nonzero begin - 1 when begin is not a row
// start (a tile that starts inside a row). Per nonzero: its column's bit in the global bitset (an
// atomic only where a read of the word finds the bit unset), and per
// granularity whether it opens a new sector of its row (a row start, or another sector than the
// nonzero before it: columns are sorted) — counted in the lane's `opened` (32-bit: a scan covers at
// most 8192 nonzeros), and its sector's bit set in the warp's window bitmap. A sector that recurs
// within a row set its bit when it opened, in this window's bitmap.
__device__ void scan_nonzeros(const int* __restrict__ col_idx, int cols, long long begin, long long end,
                              int carry, int row_start, int row_len, unsigned* __restrict__ col_bits,
                              unsigned* bitmap, unsigned (&opened)[kGranularities]) {
  const int lane = lane_id();
  for (long long base = begin; base < end; base += 32) {
    const long long p = base + lane;
    const bool in = p < end;
    const int col = in ? col_idx[p] : 0;
    // Which lanes of this step hold the first nonzero of a row: each lane marks its row's start.
    const long long offset = static_cast<long long>(row_start) - base;
    const unsigned start_bit = row_len > 0 && offset >= 0 && offset < 32 ? 1u << offset : 0u;
    const unsigned starts = __reduce_or_sync(kFullWarpMask, start_bit);
    const bool opens_row = (starts >> lane) & 1u;
    int previous = __shfl_up_sync(kFullWarpMask, col, 1);
    if (lane == 0) previous = carry;
    carry = __shfl_sync(kFullWarpMask, col, 31);  // a next step exists only when this one was full

    // Column bitset: a canonical CSR has only columns in [0, cols); the guard keeps a bad one out of
    // memory it does not own.
    // Every column recurs (about nnz / cols times): each lane reads its word from L2 (lanes of one
    // word share the load) and sets its bit only when it is not there yet, so the atomics number
    // about the distinct columns, not the nonzeros (a stale read only costs a redundant atomic).
    // Lanes of one word are not grouped first (__match_any_sync): the test needs no warp-wide step.
    if (in && col >= 0 && col < cols) {
      unsigned* target = col_bits + (col >> 5);
      const unsigned bit = 1u << (col & 31);
      if ((__ldcg(target) & bit) == 0) atomicOr(target, bit);
    }

#pragma unroll
    for (int k = 0; k < kGranularities; ++k) {
      const int shift = rules::sector_shift(k);
      const bool opens_sector = in && (opens_row || (col >> shift) != (previous >> shift));
      if (opens_sector) {
        ++opened[k];
        const unsigned bit = rules::window_bitmap_bit(static_cast<uint64_t>(col >> shift));
        atomicOr(bitmap + k * kBitmapWords + (bit >> 5), 1u << (bit & 31));
      }
    }
  }
}

// Bits set in the warp's window bitmaps (one per granularity), which it clears for its next window.
__device__ void count_and_clear(unsigned* bitmap, unsigned (&z)[kGranularities]) {
  __syncwarp();  // every lane's atomicOr is visible
  const int lane = lane_id();
#pragma unroll
  for (int k = 0; k < kGranularities; ++k) {
    unsigned set = 0;
#pragma unroll
    for (int i = 0; i < kWordsPerLane; ++i) {
      unsigned& word = bitmap[k * kBitmapWords + lane + 32 * i];
      set += static_cast<unsigned>(__popc(word));
      word = 0;
    }
    z[k] = warp_reduce_sum(set);
  }
  __syncwarp();  // cleared before the next window's atomics
}

// The window's estimate from its row sectors s and bits set z: min(s, table[z]), as on the host.
__device__ __forceinline__ unsigned long long window_estimate(unsigned long long row_sectors, unsigned z,
                                                              const int64_t* __restrict__ estimate) {
  return static_cast<unsigned long long>(
      rules::window_estimate(static_cast<int64_t>(row_sectors), estimate[z]));
}

__device__ void zero_warp_bitmap(unsigned* bitmap) {
  for (int i = lane_id(); i < kGranularities * kBitmapWords; i += 32) bitmap[i] = 0;
  __syncwarp();
}

// 6 blocks of 256 a SM (36 registers; 56, 4 blocks, before the warp-uniform sums moved to one lane
// each). ncu (H200) timed the pass the same at either occupancy: its scattered bitset reads and
// shared atomics bound it, not the warps hiding its loads; the bound keeps the budget from creeping.
__global__ void __launch_bounds__(kBlock, 6)
    window_kernel(int rows, int cols, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                  const int64_t* __restrict__ estimate, long long top_bin, unsigned* __restrict__ hist,
                  bool hist_in_shared, unsigned* __restrict__ col_bits, Totals* __restrict__ totals,
                  LongWindow* __restrict__ long_windows) {
  extern __shared__ unsigned shared_hist[];
  __shared__ unsigned bitmaps[kWarps][kGranularities * kBitmapWords];
  __shared__ unsigned long long bucket_rows[kBuckets], bucket_nnz[kBuckets];
  const int warp = static_cast<int>(threadIdx.x / 32), lane = lane_id();
  unsigned* bitmap = bitmaps[warp];
  unsigned* counts = hist_in_shared ? shared_hist : hist;
  zero_warp_bitmap(bitmap);
  for (int b = static_cast<int>(threadIdx.x); b < kBuckets; b += kBlock) bucket_rows[b] = bucket_nnz[b] = 0;
  if (hist_in_shared)
    for (long long b = threadIdx.x; b <= top_bin; b += kBlock) shared_hist[b] = 0;
  __syncthreads();

  // Per lane: row lengths fit an int (nnz < 2^31), a lane's empty rows an unsigned.
  int min_row = INT_MAX, max_row = 0;
  unsigned empty_rows = 0;
  unsigned long long sum_sq = 0;
  // The per-window sums are warp-uniform: lane 0 keeps the SELL-32 slots, lanes 1..3 the row
  // sectors and lanes 4..6 the window estimates per granularity, one register each instead of
  // seven in every lane (registers bound the pass's occupancy).
  unsigned long long lane_sum = 0;
  const long long windows = (static_cast<long long>(rows) + 31) / 32;
  for (long long w = static_cast<long long>(blockIdx.x) * kWarps + warp; w < windows;
       w += static_cast<long long>(gridDim.x) * kWarps) {
    const long long r = w * 32 + lane;
    const bool valid = r < rows;
    int start = 0, len = 0;
    if (valid) {
      start = row_ptr[r];
      len = row_ptr[r + 1] - start;
      min_row = min(min_row, len);
      max_row = max(max_row, len);
      empty_rows += len == 0 ? 1 : 0;
      sum_sq += static_cast<unsigned long long>(len) * static_cast<unsigned long long>(len);
    }
    // Rows of a matrix share a few lengths: the lanes of one bucket (one bin) add once, together.
    // A bucket's lengths sum to at most nnz < 2^31, so the 32-bit reduction cannot overflow.
    const int bucket = valid ? rules::length_bucket(static_cast<uint64_t>(len)) : -1;
    const unsigned same_bucket = __match_any_sync(kFullWarpMask, bucket);
    const unsigned bucket_len = __reduce_add_sync(same_bucket, static_cast<unsigned>(len));
    if (bucket >= 0 && lane == __ffs(static_cast<int>(same_bucket)) - 1) {
      atomicAdd(&bucket_rows[bucket], static_cast<unsigned long long>(__popc(same_bucket)));
      atomicAdd(&bucket_nnz[bucket], static_cast<unsigned long long>(bucket_len));
    }
    if (top_bin >= 0) {
      const long long bin = valid ? min(static_cast<long long>(len), top_bin) : -1;
      const unsigned same_bin = __match_any_sync(kFullWarpMask, bin);
      if (bin >= 0 && lane == __ffs(static_cast<int>(same_bin)) - 1)
        atomicAdd(counts + bin, static_cast<unsigned>(__popc(same_bin)));
    }

    // The window is also a SELL-32 slice: 32 slots per entry of its longest row, padding included.
    const unsigned widest = __reduce_max_sync(kFullWarpMask, static_cast<unsigned>(len));
    if (lane == 0) lane_sum += 32ULL * widest;

    const int window_begin = __shfl_sync(kFullWarpMask, start, 0);  // lane 0's row always exists
    const int window_end = row_ptr[min(w * 32 + 32, static_cast<long long>(rows))];
    const long long window_nnz = static_cast<long long>(window_end) - window_begin;
    if (window_nnz == 0) continue;
    if (window_nnz > kLongWindowNnz) {
      if (lane == 0) {
        const unsigned long long slot = atomicAdd(&totals->long_windows, 1ULL);
        long_windows[slot] = LongWindow{static_cast<int>(w), window_begin, window_end};
      }
      continue;
    }
    // The window's first nonzero opens its first non-empty row, so no carry is needed.
    unsigned opened[kGranularities] = {};
    scan_nonzeros(col_idx, cols, window_begin, window_end, -1, start, len, col_bits, bitmap, opened);
    unsigned z[kGranularities];
    count_and_clear(bitmap, z);
#pragma unroll
    for (int k = 0; k < kGranularities; ++k) {
      const unsigned window_row_sectors = __reduce_add_sync(kFullWarpMask, opened[k]);
      if (lane == 1 + k) lane_sum += window_row_sectors;
      if (lane == 1 + kGranularities + k) lane_sum += window_estimate(window_row_sectors, z[k], estimate);
    }
  }

  min_row = warp_reduce<32>(min_row, MinOp{});
  max_row = warp_reduce<32>(max_row, Max{});
  empty_rows = warp_reduce_sum(empty_rows);
  sum_sq = warp_reduce_sum(sum_sq);
  if (lane == 0) {
    atomicMin(&totals->min_row, static_cast<long long>(min_row));
    atomicMax(&totals->max_row, static_cast<long long>(max_row));
    atomicAdd(&totals->empty_rows, static_cast<unsigned long long>(empty_rows));
    atomicAdd(&totals->sum_sq_row, sum_sq);
    atomicAdd(&totals->sell_slots, lane_sum);
  } else if (lane <= kGranularities) {
    atomicAdd(&totals->row_sectors[lane - 1], lane_sum);
  } else if (lane <= 2 * kGranularities) {
    atomicAdd(&totals->window_sectors[lane - 1 - kGranularities], lane_sum);
  }
  __syncthreads();
  for (int b = static_cast<int>(threadIdx.x); b < kBuckets; b += kBlock) {
    if (bucket_rows[b] != 0) {
      atomicAdd(&totals->bucket_rows[b], bucket_rows[b]);
      atomicAdd(&totals->bucket_nnz[b], bucket_nnz[b]);
    }
  }
  if (hist_in_shared)
    for (long long b = threadIdx.x; b <= top_bin; b += kBlock)
      if (shared_hist[b] != 0) atomicAdd(hist + b, shared_hist[b]);
}

// A warp per tile of a long window: the window pass's nonzero scan on the tile, then the tile's
// bitmap OR-ed into its window's bitmap (3 × 128 words per long window) and the tile's row sectors
// added to its window's (3 counters per long window) in global memory.
__global__ void __launch_bounds__(kBlock)
    tile_kernel(int rows, int cols, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                const LongWindow* __restrict__ long_windows, const Tile* __restrict__ tiles,
                long long tile_count, unsigned* __restrict__ window_bitmaps,
                unsigned long long* __restrict__ window_row_sectors, unsigned* __restrict__ col_bits) {
  __shared__ unsigned bitmaps[kWarps][kGranularities * kBitmapWords];
  const int warp = static_cast<int>(threadIdx.x / 32), lane = lane_id();
  unsigned* bitmap = bitmaps[warp];
  zero_warp_bitmap(bitmap);
  for (long long t = static_cast<long long>(blockIdx.x) * kWarps + warp; t < tile_count;
       t += static_cast<long long>(gridDim.x) * kWarps) {
    const Tile tile = tiles[t];
    const LongWindow window = long_windows[tile.entry];
    const long long r = static_cast<long long>(window.window) * 32 + lane;
    int start = 0, len = 0;
    if (r < rows) {
      start = row_ptr[r];
      len = row_ptr[r + 1] - start;
    }
    const int carry = tile.begin > window.begin ? col_idx[tile.begin - 1] : -1;
    unsigned opened[kGranularities] = {};
    scan_nonzeros(col_idx, cols, tile.begin, tile.end, carry, start, len, col_bits, bitmap, opened);
#pragma unroll
    for (int k = 0; k < kGranularities; ++k) {
      const unsigned tile_row_sectors = __reduce_add_sync(kFullWarpMask, opened[k]);
      if (lane == 0)
        atomicAdd(window_row_sectors + static_cast<long long>(tile.entry) * kGranularities + k,
                  static_cast<unsigned long long>(tile_row_sectors));
    }
    __syncwarp();
    unsigned* target = window_bitmaps + static_cast<long long>(tile.entry) * kGranularities * kBitmapWords;
    for (int i = lane; i < kGranularities * kBitmapWords; i += 32) {
      if (bitmap[i] != 0) {
        atomicOr(target + i, bitmap[i]);
        bitmap[i] = 0;
      }
    }
    __syncwarp();
  }
}

// A warp per long window: its row sectors and its estimate from the merged bitmap and counters.
__global__ void __launch_bounds__(kBlock)
    long_window_estimate_kernel(long long count, const unsigned* __restrict__ window_bitmaps,
                                const unsigned long long* __restrict__ window_row_sectors,
                                const int64_t* __restrict__ estimate, Totals* __restrict__ totals) {
  const int warp = static_cast<int>(threadIdx.x / 32), lane = lane_id();
  for (long long e = static_cast<long long>(blockIdx.x) * kWarps + warp; e < count;
       e += static_cast<long long>(gridDim.x) * kWarps) {
    const unsigned* bitmap = window_bitmaps + e * kGranularities * kBitmapWords;
    for (int k = 0; k < kGranularities; ++k) {
      unsigned set = 0;
      for (int i = 0; i < kWordsPerLane; ++i)
        set += static_cast<unsigned>(__popc(bitmap[k * kBitmapWords + lane + 32 * i]));
      const unsigned z = warp_reduce_sum(set);
      if (lane == 0) {
        const unsigned long long s = window_row_sectors[e * kGranularities + k];
        atomicAdd(&totals->row_sectors[k], s);
        atomicAdd(&totals->window_sectors[k], window_estimate(s, z, estimate));
      }
    }
  }
}

// Columns with a bit set, and per granularity the sectors with one (as on the host: x_sectors of
// kColumn counts the bits again, through the same rule as the other granularities).
__global__ void __launch_bounds__(kBlock)
    column_count_kernel(long long words, const unsigned* __restrict__ col_bits, Totals* __restrict__ totals) {
  unsigned long long nonempty = 0, sectors[kGranularities] = {};
  for (long long j = static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x; j < words;
       j += static_cast<long long>(gridDim.x) * kBlock) {
    const uint64_t word = col_bits[j];
    nonempty += static_cast<unsigned long long>(rules::popcount64(word));
#pragma unroll
    for (int k = 0; k < kGranularities; ++k)
      sectors[k] += static_cast<unsigned long long>(rules::touched_sectors(word, k));
  }
  nonempty = warp_reduce_sum(nonempty);
#pragma unroll
  for (int k = 0; k < kGranularities; ++k) sectors[k] = warp_reduce_sum(sectors[k]);
  if (lane_id() == 0) {
    atomicAdd(&totals->nonempty_cols, nonempty);
    for (int k = 0; k < kGranularities; ++k) atomicAdd(&totals->x_sectors[k], sectors[k]);
  }
}

[[noreturn]] void throw_short_array(const char* array, std::size_t size, int64_t needed) {
  throw Error(std::string("cuda::features: ") + array + " holds " + std::to_string(size) +
              " entries but the matrix's sizes need " + std::to_string(needed) +
              "; pass a DeviceCsr made by upload()");
}

}  // namespace

template <class T>
MatrixFeatures features(Context& ctx, const DeviceCsr<T, int32_t>& dA, double* gpu_ms) {
  const int64_t rows = dA.rows, cols = dA.cols, nnz = dA.nnz;
  if (rows < 0 || cols < 0 || nnz < 0)
    throw Error("cuda::features: negative size (rows " + std::to_string(rows) + ", cols " +
                std::to_string(cols) + ", nnz " + std::to_string(nnz) + ")");
  if (rows > 0 && dA.row_ptr.size() < static_cast<std::size_t>(rows) + 1)
    throw_short_array("row_ptr", dA.row_ptr.size(), rows + 1);
  if (dA.col_idx.size() < static_cast<std::size_t>(nnz)) throw_short_array("col_idx", dA.col_idx.size(), nnz);

  std::optional<EventTimer> timer;
  if (gpu_ms != nullptr) {
    timer.emplace(ctx);
    timer->start();
  }
  // Scratch, all small next to the matrix, carved from the context's workspace (no allocation once
  // it is large enough, and no cudaFree — which waits for the whole device — on the way out):
  // the counters with the HYB histogram right behind them (3*nnz/rows + 2 bins, only from 4096
  // rows on; both come back in one copy), the column bitset (cols/8 bytes), the estimate table
  // (32 KB) and the long-window list (one entry per 8193 nonzeros at most).
  const int64_t top_bin = rules::hyb_top_bin(rows, nnz);
  const std::size_t hist_bins = top_bin >= 0 ? static_cast<std::size_t>(top_bin) + 1 : 0;
  const int64_t col_words = nnz > 0 ? (cols + 31) / 32 : 0;
  const std::vector<int64_t>& table = rules::linear_counting_table();
  const std::size_t long_capacity =
      nnz > kLongWindowNnz ? static_cast<std::size_t>(nnz / (kLongWindowNnz + 1) + 1) : 0;
  const std::size_t totals_bytes = sizeof(Totals) + hist_bins * sizeof(unsigned);
  const std::size_t zeroed_bytes =
      detail::workspace_aligned(totals_bytes) + static_cast<std::size_t>(col_words) * sizeof(unsigned);
  const std::size_t table_offset = detail::workspace_aligned(zeroed_bytes);
  const std::size_t long_offset = table_offset + detail::workspace_aligned(table.size() * sizeof(int64_t));
  auto* work = static_cast<std::byte*>(ctx.workspace(long_offset + long_capacity * sizeof(LongWindow)));
  auto* totals = reinterpret_cast<Totals*>(work);
  unsigned* hist = hist_bins > 0 ? reinterpret_cast<unsigned*>(work + sizeof(Totals)) : nullptr;
  auto* col_bits = reinterpret_cast<unsigned*>(work + detail::workspace_aligned(totals_bytes));
  const auto* estimate = reinterpret_cast<const int64_t*>(work + table_offset);
  auto* long_windows = reinterpret_cast<LongWindow*>(work + long_offset);

  SPX_CUDA_CHECK(cudaMemsetAsync(work, 0, zeroed_bytes, ctx.stream()));
  // From pageable memory: staged before the call returns, so `init` may go out of scope.
  Totals init{};
  init.min_row = LLONG_MAX;
  copy_to_device_async(ctx, totals, &init, sizeof init);
  if (nnz > 0) copy_to_device_async(ctx, work + table_offset, table.data(), table.size() * sizeof(int64_t));

  if (rows > 0) {
    const int64_t windows = (rows + 31) / 32;
    const bool hist_in_shared = top_bin >= 0 && top_bin + 1 <= kSharedHistogramBins;
    const std::size_t shared_bytes = hist_in_shared ? hist_bins * sizeof(unsigned) : 0;
    // One wave of the blocks that fit an SM (registers and shared memory decide: 6 here): every
    // block gets the same share of the grid-stride windows, so a second, partial wave would
    // stretch the pass by its length.
    int resident = 0;
    SPX_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, window_kernel, kBlock, shared_bytes));
    window_kernel<<<grid_for_resident(ctx, windows * 32, kBlock, std::max(resident, 1)), kBlock, shared_bytes,
                    ctx.stream()>>>(dA.rows, dA.cols, dA.row_ptr.data(), dA.col_idx.data(), estimate, top_bin,
                                    hist, hist_in_shared, col_bits, totals, long_windows);
    SPX_CHECK_LAUNCH("features window_kernel", ctx.stream());
  }

  // Long windows: the host cuts them into tiles (a few entries: at most nnz / 8193).
  DeviceBuffer<Tile> tiles;
  DeviceBuffer<unsigned> window_bitmaps;
  DeviceBuffer<unsigned long long> window_row_sectors;
  if (long_capacity > 0) {
    unsigned long long count = 0;
    copy_to_host_sync(ctx, &count,
                      reinterpret_cast<const std::byte*>(totals) + offsetof(Totals, long_windows),
                      sizeof count);
    if (count > 0) {
      std::vector<LongWindow> list(static_cast<std::size_t>(count));
      copy_to_host_sync(ctx, list.data(), long_windows, list.size() * sizeof(LongWindow));
      std::vector<Tile> host_tiles;
      for (std::size_t e = 0; e < list.size(); ++e)
        for (int64_t b = list[e].begin; b < list[e].end; b += kTileNnz)
          host_tiles.push_back(Tile{static_cast<int>(e), static_cast<int>(b),
                                    static_cast<int>(std::min<int64_t>(b + kTileNnz, list[e].end))});
      tiles = to_device(ctx, host_tiles, "features long-window tiles");
      window_bitmaps =
          DeviceBuffer<unsigned>(list.size() * kGranularities * kBitmapWords, "features long-window bitmaps");
      SPX_CUDA_CHECK(cudaMemsetAsync(window_bitmaps.data(), 0, window_bitmaps.bytes(), ctx.stream()));
      window_row_sectors =
          DeviceBuffer<unsigned long long>(list.size() * kGranularities, "features long-window row sectors");
      SPX_CUDA_CHECK(cudaMemsetAsync(window_row_sectors.data(), 0, window_row_sectors.bytes(), ctx.stream()));
      const auto tile_count = static_cast<int64_t>(host_tiles.size());
      tile_kernel<<<grid_for_resident(ctx, tile_count * 32, kBlock, kBlocksPerSm), kBlock, 0, ctx.stream()>>>(
          dA.rows, dA.cols, dA.row_ptr.data(), dA.col_idx.data(), long_windows, tiles.data(), tile_count,
          window_bitmaps.data(), window_row_sectors.data(), col_bits);
      SPX_CHECK_LAUNCH("features tile_kernel", ctx.stream());
      const auto entries = static_cast<int64_t>(list.size());
      long_window_estimate_kernel<<<grid_for_resident(ctx, entries * 32, kBlock, kBlocksPerSm), kBlock, 0,
                                    ctx.stream()>>>(entries, window_bitmaps.data(), window_row_sectors.data(),
                                                    estimate, totals);
      SPX_CHECK_LAUNCH("features long_window_estimate_kernel", ctx.stream());
    }
  }

  if (col_words > 0) {
    column_count_kernel<<<grid_for_resident(ctx, col_words, kBlock, kBlocksPerSm), kBlock, 0, ctx.stream()>>>(
        col_words, col_bits, totals);
    SPX_CHECK_LAUNCH("features column_count_kernel", ctx.stream());
  }
  if (timer) timer->stop();

  // The counters and the histogram behind them in one copy.
  std::vector<std::byte> back(totals_bytes);
  copy_to_host_sync(ctx, back.data(), totals, totals_bytes);
  Totals t{};
  std::memcpy(&t, back.data(), sizeof t);
  std::vector<int64_t> histogram(hist_bins);
  for (std::size_t b = 0; b < hist_bins; ++b) {
    unsigned count = 0;
    std::memcpy(&count, back.data() + sizeof(Totals) + b * sizeof(unsigned), sizeof count);
    histogram[b] = count;
  }
  if (timer) *gpu_ms = timer->elapsed_ms();

  MatrixFeatures f;
  f.rows = rows;
  f.cols = cols;
  f.nnz = nnz;
  if (rows > 0) {
    f.min_row = t.min_row;
    f.max_row = t.max_row;
  }
  f.empty_rows = static_cast<int64_t>(t.empty_rows);
  f.sum_sq_row = t.sum_sq_row;
  for (int b = 0; b < kBuckets; ++b) {
    f.length_buckets[static_cast<std::size_t>(b)].rows = static_cast<int64_t>(t.bucket_rows[b]);
    f.length_buckets[static_cast<std::size_t>(b)].nnz = static_cast<int64_t>(t.bucket_nnz[b]);
  }
  const rules::HybSplit hyb = rules::hyb_split(rows, histogram);
  f.hyb_width = hyb.width;
  f.hyb_ell_nnz = hyb.ell_nnz;
  f.sell_slots = static_cast<int64_t>(t.sell_slots);
  f.nonempty_cols = static_cast<int64_t>(t.nonempty_cols);
  for (std::size_t k = 0; k < kGranularities; ++k) {
    f.x_sectors[k] = static_cast<int64_t>(t.x_sectors[k]);
    f.row_sectors[k] = static_cast<int64_t>(t.row_sectors[k]);
    f.window_sectors[k] = static_cast<int64_t>(t.window_sectors[k]);
  }
  return f;
}

template MatrixFeatures features(Context&, const DeviceCsr<float, int32_t>&, double*);
template MatrixFeatures features(Context&, const DeviceCsr<double, int32_t>&, double*);

}  // namespace spx::cuda
