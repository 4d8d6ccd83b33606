// The tile kernel of the segmented-sum SpMV (segsum.cu describes the algorithm and holds the plan
// kernels, the synchronizer and the launch sequence).
//
// A header, included by two translation units: segsum.cu instantiates the synchronizer's kernels,
// which load each tile in batches, segsum_staged.cu the row-completing ones, which stage it in
// shared memory by cp.async. They are
// kept apart because nvcc's inlining and register allocation of a kernel depend on what else the
// translation unit instantiates: with the staged variants in segsum.cu, the batched ones compiled
// to other code (f64 synchronizer 60 -> 62 registers, the clean f32 one spilled), and that code
// has been measured slower before (bench/results/h100/segsum/NOTES.md, round 5). The unnamed namespace
// gives each translation unit its own copy, as when everything was in segsum.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/common/arrival.cuh"
#include "cuda/common/async_copy.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/dispatch.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/row_dot.cuh"
#include "cuda/common/segmented.cuh"
#include "cuda/common/warp.cuh"
#include "cuda/spmv/segsum_launch.hpp"
#include "cuda/spmv/segsum_partition.hpp"

namespace spx::cuda::detail {

// The staged, row-completing variants' launch (segsum_staged.cu): launch_segsum_tiles<T, true>.
template <class T>
void launch_segsum_staged_tiles(Context& ctx, const SegsumArgs<T>& a);

namespace {

constexpr int kMaxSegsumBlock = 512;
// Coalesced loads of values and of col_idx in flight per lane before the first gather of x, and
// the register cap of the tile kernel (minimum resident blocks of kMaxSegsumBlock threads), chosen
// by the H100 study in docs/spmv-segsum.md. The batch is per precision: 4-byte loads need twice as
// many in flight for the same bytes, and f32 has the registers for 8 (62, no spill), f64 not (8
// would spill at the cap of 64).
//
// The clean f32 synchronizer variant (no dirty tile, large grids: the regular matrices) runs 3
// blocks (48 warps per SM, 40 registers) with half the batch: without the dirty and wide-tile paths
// it fits there without spilling, and more warps overlap the phases of a tile better than more
// loads per warp (H100, same run: stencil27_128 f32 0.235 -> 0.210 ms, stencil7_256 0.636 ->
// 0.538). Not f64: at 40 registers it spills, and two loads in flight per lane starve the x
// gather (powerlaw_4m f64 0.484 -> 0.774 ms, stencil27_128 0.324 -> 0.347).
constexpr int kMinSegsumBlocks = 2;
constexpr int kCleanSegsumBlocks = 3;
template <class T, bool CompleteRows, bool Clean>
constexpr bool kHighOccupancy = Clean && !CompleteRows && sizeof(T) == 4;
// Full tiles of the clean synchronizer variants (the large clean grids: regular matrices) load
// values and col_idx 16 bytes per lane (SegsumArgs::vector_loads): the scalar batched loads cost
// about 29 instructions per nonzero and lane (a bounds check, the evict-first choice and the address
// each), and the f32 kernel measured 77% of its issue slots used at 67% of DRAM bandwidth
// (stencil27_128, ncu, bench/results/h100/segsum/NOTES.md, round 7). Only these variants, so that the
// others keep the code they were measured with.
template <bool CompleteRows, bool Clean>
constexpr bool kVectorTiles = Clean && !CompleteRows;
template <class T>
struct Vector16;  // 16 bytes of values and the column indices that go with them
template <>
struct Vector16<float> {
  using values = float4;
  using cols = int4;
};
template <>
struct Vector16<double> {
  using values = double2;
  using cols = int2;
};
template <class T, bool HighOccupancy>
constexpr int load_batch() {
  const int batch = sizeof(T) == 4 ? 8 : 4;
  return HighOccupancy ? batch / 2 : batch;
}

// y[row] = alpha*sum + beta*y[row], never reading y when beta == 0.
template <class T>
__device__ __forceinline__ void write_row(const SegsumArgs<T>& a, int row, T sum) {
  a.y[row] = a.beta == T{0} ? a.alpha * sum : a.alpha * sum + a.beta * a.y[row];
}

// Shared-memory slot of the product of tile position p, written by rows of 32 consecutive
// positions (step 2) and read by lanes of npl consecutive ones (step 3), both free of bank
// conflicts for f32 (2-way, the minimum, for f64): one pad slot per 32 positions; or, when the
// tile was staged (the products overwrite the staged values in place), the position within its
// row of 32 XOR-ed with the row number, which keeps the buffer the size of the tile.
template <bool Staged>
__device__ __forceinline__ int product_slot(int p) {
  return Staged ? p ^ ((p >> 5) & 31) : p + (p >> 5);
}

// Per warp: the tile's products (padded, or the staged values' buffer), then the 32 look-ahead
// products of row completion (kept in shared memory rather than registers, which are at the
// kernel's cap of 64). A staged tile's column indices follow all warps' products (tile_elems
// int32 per warp), then the flags (npl + 1 words per warp).
__host__ __device__ constexpr int segsum_product_slots(int npl, bool staged) {
  return kSegsumWarp * npl + (staged ? 0 : npl) + kSegsumWarp;
}
__host__ __device__ constexpr int segsum_staged_cols(int npl, bool staged) {
  return staged ? kSegsumWarp * npl : 0;
}

// values and col_idx are read exactly once: with the streaming hint (ld.global.cs, evict-first)
// they do not push the randomly gathered x out of the 50 MB L2 (x of a 4M-column f64 matrix is
// 32 MB, so it only just fits next to the stream; 10-25% faster than plain loads in the study).
template <class V>
__device__ __forceinline__ V load_matrix(const V* p) {
  return __ldcs(p);
}

// One warp of a long tail's arrival (complete_rows; segsum_head_in_long_tail): this warp stored its
// partial of `row` (owner warps [owner, last]) — sync_value[warps + owner] for the owner, else
// sync_value[w] — and counts itself; the last to arrive adds the partials in warp order, lane-
// strided then the fixed shuffle tree (the same bits whoever is last), writes y and zeroes the
// counter for the next product (arrival.cuh).
template <class T>
__device__ __forceinline__ void segsum_arrive(const SegsumArgs<T>& a, int owner, int last, int32_t row) {
  if (!warp_arrives_last(a.arrivals + owner, static_cast<unsigned>(last - owner + 1))) return;
  T sum = T{0};
  for (int v = owner + lane_id(); v <= last; v += 32)
    sum += __ldcg(a.sync_value + (v == owner ? static_cast<int>(a.warps) + v : v));
  sum = warp_reduce_sum(sum);
  if (lane_id() == 0) write_row(a, row, sum);
}

// Tile positions, rows and tile/warp numbers are int32 in here (the plan checks nnz + one tile and
// rows against INT32_MAX): half the registers of int64 index arithmetic. CompleteRows (=
// a.complete_rows) is a template parameter so that the synchronizer's kernel, used for large
// grids, carries none of the row completion's registers (56 instead of 64 in f64). Clean (=
// a.clean: no tile is dirty) drops the checking stage and the wide-tile path (2-5% faster on the
// small matrices, which are mostly clean); its f32 synchronizer variant is the high-occupancy one
// (kHighOccupancy, above). The row-completing kernels also stage (Staged) each tile's values and
// column indices in shared memory with cp.async first thing, so that they are in flight with the
// tile's metadata and row_ptr loads and the products wait for one round trip plus the x gathers:
// on the small grids that complete rows each warp's chain of round trips sets the time (5-9%
// faster there), while on large grids the staging buffers would take the shared memory that L1
// uses for the gathered x (stencil27_128 f32 0.210 -> 0.246 ms, powerlaw_4m f64 0.439 -> 0.739).
template <class T, bool CompleteRows, bool Clean>
__global__ void __launch_bounds__(kMaxSegsumBlock,
                                  (kHighOccupancy<T, CompleteRows, Clean> ? kCleanSegsumBlocks
                                                                          : kMinSegsumBlocks))
    segsum_tile_kernel(SegsumArgs<T> a) {
  constexpr bool Staged = CompleteRows;
  constexpr int kLoadBatch = load_batch<T, kHighOccupancy<T, CompleteRows, Clean>>();
  extern __shared__ __align__(16) unsigned char segsum_smem[];
  const int npl = a.nnz_per_lane;
  const int tile_elems = kSegsumWarp * npl;
  const int slots = segsum_product_slots(npl, Staged);
  const int warps_per_block = static_cast<int>(blockDim.x) / 32;
  const int warp_in_block = static_cast<int>(threadIdx.x) / 32;
  const int warp = static_cast<int>(blockIdx.x) * warps_per_block + warp_in_block;
  if (warp >= a.warps) return;  // warp-uniform
  const int lane = lane_id();
  T* prod = reinterpret_cast<T*>(segsum_smem) + warp_in_block * slots;
  // After all warps' products: (staged) all warps' column indices, then the flags.
  int32_t* const staged_cols =
      reinterpret_cast<int32_t*>(reinterpret_cast<T*>(segsum_smem) + warps_per_block * slots);
  int32_t* const cols_here = staged_cols + warp_in_block * segsum_staged_cols(npl, Staged);
  uint32_t* flags =
      reinterpret_cast<uint32_t*>(Staged ? staged_cols + warps_per_block * tile_elems : staged_cols) +
      warp_in_block * (npl + 1);
  const int32_t* __restrict__ row_ptr = a.row_ptr;
  const int nnz = static_cast<int>(a.nnz);
  const uint32_t lane_mask = npl == 32 ? 0xffffffffu : (1u << npl) - 1u;
  const int q0 = lane * npl;  // this lane's first tile position

  const int first_tile = warp * a.tiles_per_warp;
  const int last_tile =
      static_cast<int>(first_tile + a.tiles_per_warp < a.tiles ? first_tile + a.tiles_per_warp : a.tiles);
  T carry = 0;  // the open segment at the end of the previous tile
  int32_t carry_row = -1;
  bool carry_open = false;
  bool carry_sync = true;  // the open segment's row started before this warp (synchronizer)
  // A partial of a row begun in an earlier warp: the synchronizer's; with complete_rows dropped
  // (its owner completes the row) unless the row is a long tail, summed by arrival at the end.
  // (The flag is loaded where it is needed, not held in a register through the tiles: at 64
  // registers, holding it spilled.)
  const auto long_head = [&] {
    return CompleteRows && a.long_head != nullptr && __ldg(a.long_head + warp) != 0;
  };
  const auto to_synchronizer = [&](T partial) {
    if (!CompleteRows || long_head()) a.sync_value[warp] = partial;
  };
  // complete_rows: the row open past the warp's last tile (segsum_open_tail) starts at open_start
  // and ends at open_stop; loaded in the last tile, used after it (`tail`), so that no instruction
  // waits for them before the tile's products are in flight.
  int32_t open_start = INT32_MAX, open_stop = 0;
  T* const ahead = prod + slots - kSegsumWarp;  // ahead[lane]: product of nonzero tail_begin + lane
  for (int t = first_tile; t < last_tile; ++t) {
    const int begin = t * tile_elems;
    const int end = begin + tile_elems < nnz ? begin + tile_elems : nnz;
    const int valid = end - begin;
    if constexpr (Staged) {
      const uint64_t policy = l2_policy(/*evict_first=*/true);
      warp_stage_async(prod, a.values + begin, valid, tile_elems, lane, policy);
      warp_stage_async(cols_here, a.col_idx + begin, valid, tile_elems, lane, policy);
      copy_async_commit();
    }
    // Row completion: the first 32 nonzeros past the warp's last tile are loaded (plain loads:
    // the next warp reads them too) and multiplied together with the tile's own, so that an open
    // tail of up to 32 nonzeros adds no round trip to the end of the warp. Issued before the
    // tile's metadata, on which they do not depend.
    const bool look_ahead = CompleteRows && t == last_tile - 1 && end + lane < nnz;
    const int32_t ahead_col = look_ahead ? __ldg(a.col_idx + end + lane) : -1;
    const T ahead_value = look_ahead ? __ldg(a.values + end + lane) : T{0};
    // A ternary, not `!Clean && ...`: with the latter the general kernel compiled to other code (56
    // registers instead of 60 in f64) and ran powerlaw_4m f64 10% slower (0.484 vs 0.440 ms).
    const bool dirty = Clean ? false : a.tile_dirty[t] != 0;
    const int32_t r0 = a.tile_row[t];
    const int first_row = t == 0 ? 0 : r0;  // segsum_row_range
    const int last_row = a.tile_row[t + 1];
    const bool wide = Clean ? false : segsum_range_wide(RowRange{first_row, last_row}, tile_elems);
    if (CompleteRows && t == last_tile - 1) {
      // segsum_open_tail: last_row is the rightmost row starting at or before `end`; it is open
      // when it starts before it.
      open_start = __ldg(row_ptr + last_row);
      open_stop = __ldg(row_ptr + last_row + 1);
    }

    // 1. Segment descriptor, part one: clear the flags and issue the first row_ptr loads of the
    //    walk, so that they are in flight together with the product loads of step 2.
    for (int w = lane; w <= npl; w += 32) flags[w] = 0u;
    __syncwarp();
    int walk_row = first_row + lane;
    int32_t offset = 0, next_offset = 0;
    if (!wide && walk_row <= last_row) {
      offset = __ldg(row_ptr + walk_row);
      if (dirty) next_offset = __ldg(row_ptr + walk_row + 1);
    }

    // 2. Products, loaded coalesced (kLoadBatch loads of values and of col_idx in flight per
    //    lane, then as many gathers of x), stored in natural order.
    const T* values = a.values + begin;
    const int32_t* cols = a.col_idx + begin;
    if constexpr (Staged) {
      // The staged tile: kLoadBatch gathers of x in flight per lane; each product replaces its
      // value in the buffer at its product_slot, which lies in the same row of 32 — so every lane
      // reads the batch's values before any lane writes.
      copy_async_wait_all();
      __syncwarp();
      for (int k = 0; k < npl; k += kLoadBatch) {
        T xv[kLoadBatch], v[kLoadBatch];
#pragma unroll
        for (int u = 0; u < kLoadBatch; ++u) {
          const int i = (k + u) * 32 + lane;
          xv[u] = k + u < npl && i < valid ? __ldg(a.x + cols_here[i]) : T{0};
        }
#pragma unroll
        for (int u = 0; u < kLoadBatch; ++u) v[u] = k + u < npl ? prod[(k + u) * 32 + lane] : T{0};
        __syncwarp();
#pragma unroll
        for (int u = 0; u < kLoadBatch; ++u)
          if (k + u < npl) prod[product_slot<true>((k + u) * 32 + lane)] = v[u] * xv[u];
      }
    } else if (kVectorTiles<CompleteRows, Clean> && a.vector_loads && valid == tile_elems) {
      // A full tile in chunks of 32 lanes x kVec consecutive entries (npl is a multiple of kVec and
      // the tile starts 16-byte aligned: the host checked both): kLoadBatch nonzeros in flight per
      // lane, as in the scalar loop. A lane's kVec entries lie in one row of 32 product slots, so
      // their slots are consecutive.
      constexpr int kVec = 16 / static_cast<int>(sizeof(T));
      constexpr int kChunks = kLoadBatch / kVec > 0 ? kLoadBatch / kVec : 1;
      using Values = typename Vector16<T>::values;
      using Cols = typename Vector16<T>::cols;
      const int chunks = npl / kVec;
      for (int k = 0; k < chunks; k += kChunks) {
        Values v[kChunks];
        Cols c[kChunks];
#pragma unroll
        for (int u = 0; u < kChunks; ++u) {
          if (k + u < chunks) {
            const int i = (k + u) * 32 * kVec + kVec * lane;
            v[u] = load_matrix(reinterpret_cast<const Values*>(values + i));
            c[u] = load_matrix(reinterpret_cast<const Cols*>(cols + i));
          }
        }
#pragma unroll
        for (int u = 0; u < kChunks; ++u) {
          if (k + u < chunks) {
            const T* vu = reinterpret_cast<const T*>(&v[u]);
            const int32_t* cu = reinterpret_cast<const int32_t*>(&c[u]);
            T* slot = prod + product_slot<false>((k + u) * 32 * kVec + kVec * lane);
#pragma unroll
            for (int e = 0; e < kVec; ++e) slot[e] = vu[e] * __ldg(a.x + cu[e]);
          }
        }
      }
    } else {
      for (int k = 0; k < npl; k += kLoadBatch) {
        T v[kLoadBatch];
        int32_t c[kLoadBatch];
#pragma unroll
        for (int u = 0; u < kLoadBatch; ++u) {
          const int i = (k + u) * 32 + lane;
          const bool in = k + u < npl && i < valid;
          v[u] = in ? load_matrix(values + i) : T{0};
          c[u] = in ? load_matrix(cols + i) : -1;
        }
#pragma unroll
        for (int u = 0; u < kLoadBatch; ++u)
          if (k + u < npl)
            prod[product_slot<false>((k + u) * 32 + lane)] = c[u] >= 0 ? v[u] * __ldg(a.x + c[u]) : T{0};
      }
    }

    if (look_ahead) ahead[lane] = ahead_value * __ldg(a.x + ahead_col);

    // 1, part two: one bit per row start; dirty tiles also scale the empty rows they own.
    if (!wide) {
      while (walk_row <= last_row) {
        if (segsum_head_in_tile(offset, begin, end)) {
          const int p = offset - begin;
          atomicOr(flags + (p >> 5), 1u << (p & 31));
        }
        if (dirty && next_offset == offset && segsum_owns_empty_row(offset, t, begin, end))
          a.y[walk_row] = a.beta == T{0} ? T{0} : a.beta * a.y[walk_row];
        walk_row += 32;
        if (walk_row <= last_row) {
          offset = __ldg(row_ptr + walk_row);
          if (dirty) next_offset = __ldg(row_ptr + walk_row + 1);
        }
      }
    } else {
      // A wide tile (segsum_partition.hpp): position q starts a row when the row holding entry
      // begin + q starts there; a binary search per position keeps the warp's work bounded, and
      // the empty rows are scaled by segsum_wide_empty_kernel.
      for (int i = 0; i < npl; ++i) {
        const int q = i * 32 + lane;
        bool head = false;
        if (q < valid) {
          const int r = rightmost_row_at_or_before(row_ptr, first_row, last_row + 1, begin + q);
          head = __ldg(row_ptr + r) == begin + q;
        }
        const uint32_t word = __ballot_sync(kFullWarpMask, head);
        if (lane == 0) flags[i] = word;
      }
    }
    __syncwarp();

    // 3. This lane's slice, sequentially.
    const bool pos0 = (flags[0] & 1u) != 0;  // the tile begins a row: the carry is complete
    if (pos0 && carry_open && lane == 0) {
      if (carry_sync)
        to_synchronizer(carry);
      else
        write_row(a, carry_row, carry);
    }
    if (pos0) {
      carry = T{0};
      carry_open = false;
      carry_sync = false;
    }
    if (t == first_tile && lane == 0 && a.sync_row != nullptr) a.sync_row[warp] = pos0 ? -1 : r0;

    const int word = q0 >> 5;
    const uint64_t pair = uint64_t{flags[word]} | (uint64_t{flags[word + 1]} << 32);
    const uint32_t bits = static_cast<uint32_t>(pair >> (q0 & 31)) & lane_mask;
    const uint32_t counted = lane == 0 ? bits & ~1u : bits;  // starts at positions >= 1
    int starts = warp_exclusive_scan<32>(__popc(counted), Sum{});
    // Clean tiles: the paper's speculation, boundary row + rank. Dirty tiles (the checking
    // stage): the lane's first start is searched in the tile's row range, each later one is a
    // forward step from the previous (segsum_next_start_row), not a search of its own.
    const auto row_at = [&](int q, int32_t prev) -> int32_t {
      if (!dirty) return r0 + starts;  // segsum_clean_row
      if (prev >= 0) return segsum_next_start_row(row_ptr, prev, last_row + 1, begin + q);
      if (q == 0) return r0;
      return rightmost_row_at_or_before(row_ptr, first_row, last_row + 1, begin + q);
    };

    T acc = lane == 0 ? carry : T{0};  // carry is 0 unless the first segment continues it
    T head = 0;
    bool seen = false;
    int32_t seg_row = -1;
    bool head_closes = false;  // this lane's first start ends a segment begun before it
    for (int j = 0; j < npl; ++j) {
      if ((bits >> j) & 1u) {
        if (!seen) {
          head = acc;
          seen = true;
          head_closes = !(lane == 0 && j == 0);
        } else {
          write_row(a, seg_row, acc);  // a row that begins and ends in this slice
        }
        if (!(lane == 0 && j == 0)) ++starts;
        seg_row = row_at(q0 + j, seg_row);
        acc = T{0};
      }
      acc += prod[product_slot<Staged>(q0 + j)];
    }
    if (!seen) head = acc;

    // Join the slices: exclusive segmented sum over (value, has-start) pairs.
    const ValueFlag<T> mine{seen ? acc : head, seen ? 1 : 0};
    const T inclusive = warp_inclusive_scan<32>(mine, SegmentedSum{}).value;
    T before = __shfl_up_sync(kFullWarpMask, inclusive, 1);
    if (lane == 0) before = T{0};
    const unsigned starters = __ballot_sync(kFullWarpMask, seen);
    const unsigned earlier = starters & ((1u << lane) - 1u);
    const int32_t earlier_row =
        __shfl_sync(kFullWarpMask, seg_row, earlier != 0 ? 31 - __clz(static_cast<int>(earlier)) : lane);
    if (head_closes) {
      const T total = before + head;
      if (earlier != 0)
        write_row(a, earlier_row, total);
      else if (carry_sync)
        to_synchronizer(total);  // the warp's first segment, begun in an earlier warp
      else
        write_row(a, r0, total);
    }

    // 4. Carry the tile's last segment.
    carry = __shfl_sync(kFullWarpMask, inclusive, 31);
    if (starters != 0) {
      carry_row = __shfl_sync(kFullWarpMask, seg_row, 31 - __clz(static_cast<int>(starters)));
      carry_sync = false;
    } else {
      carry_row = r0;
    }
    carry_open = true;
    __syncwarp();  // the next tile reuses flags and prod
  }
  const int warp_elems = tile_elems * a.tiles_per_warp;
  const int tail_begin = last_tile * tile_elems < nnz ? last_tile * tile_elems : nnz;
  const int tail = CompleteRows && open_start < tail_begin ? open_stop - tail_begin : 0;
  if (carry_open && carry_sync) {
    if (lane == 0) to_synchronizer(carry);
  } else if (carry_open && CompleteRows && tail > a.complete_limit) {
    // complete_rows, a long tail: this warp owns the row; its partners are the warps it reaches.
    if (lane == 0) a.sync_value[a.warps + warp] = carry;
    segsum_arrive(a, warp, (tail_begin + tail - 1) / warp_elems, carry_row);
  } else if (carry_open) {
    // The warp's last row: complete it past the tile when rows are completed (a whole-warp sum,
    // then the fixed shuffle tree: deterministic).
    T rest = T{0};
    if (tail > 0) {
      rest = lane < tail ? ahead[lane] : T{0};
      if (tail > 32)
        rest += row_dot<32>(a.col_idx + tail_begin + 32, a.values + tail_begin + 32, a.x,
                            static_cast<uint32_t>(tail - 32), static_cast<uint32_t>(lane));
      rest = warp_reduce_sum(rest);
    }
    if (lane == 0) write_row(a, carry_row, carry + rest);
  }
  if (long_head()) {
    // A partner of a long tail: the row and its owner from row_ptr (rare: only the warps inside
    // rows longer than complete_limit pay these loads).
    const int32_t row = a.tile_row[first_tile];
    const int owner = __ldg(row_ptr + row) / warp_elems;
    segsum_arrive(a, owner, (__ldg(row_ptr + row + 1) - 1) / warp_elems, row);
  }
}

// Launches the tile kernel's variant for a (the plan's clean_kernel: the clean one serves row
// completion, 2-5% faster on the small matrices, the f32 synchronizer, high occupancy, and the f64
// synchronizer where its full tiles are loaded 16 bytes per lane — without those loads the general
// kernel measured 3-7% faster there; with them the clean one is 11-16% faster on the large regular
// matrices: stencil27_128 0.288 vs 0.333 ms, banded_4m 0.391 vs 0.446; round 7 of
// bench/results/h100/segsum/NOTES.md). Dynamic shared memory per warp: its products
// (segsum_product_slots), its staged column indices (segsum_staged_cols) and its flags.
template <class T, bool CompleteRows>
void launch_segsum_tiles(Context& ctx, const SegsumArgs<T>& a) {
  constexpr bool kStaged = CompleteRows;  // as in segsum_tile_kernel
  const int npl = a.nnz_per_lane;
  const std::size_t per_warp = static_cast<std::size_t>(segsum_product_slots(npl, kStaged)) * sizeof(T) +
                               static_cast<std::size_t>(segsum_staged_cols(npl, kStaged)) * 4 +
                               static_cast<std::size_t>(npl + 1) * 4;
  const std::size_t smem = static_cast<std::size_t>(a.block_size / 32) * per_warp;
  dispatch_bool(a.clean, [&](auto clean) {
    auto* const kernel = segsum_tile_kernel<T, CompleteRows, clean.value>;
    if (smem > 48 * 1024)
      SPX_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    kernel<<<grid_for(a.warps * 32, a.block_size), a.block_size, smem, ctx.stream()>>>(a);
  });
  SPX_CHECK_LAUNCH("segsum_tile_kernel", ctx.stream());
}

}  // namespace
}  // namespace spx::cuda::detail
