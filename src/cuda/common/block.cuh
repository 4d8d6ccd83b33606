// Block-level reduce and scan built on the warp primitives: each warp reduces/scans with
// shuffles, one value per warp goes through shared memory, warp 0 combines them. Two barriers
// per call (three for the scans, so the scratch is reusable at once); a one-warp block uses
// shuffles only. BlockSize is the 1-D block size, a multiple of 32 (≤ 1024); the caller provides the
// scratch in shared memory (__shared__ BlockScratch<T, 256> s;) and all threads must call.
#pragma once

#include "cuda/common/warp.cuh"

namespace spx::cuda {

template <class T, int BlockSize>
struct BlockScratch {
  static_assert(BlockSize % 32 == 0 && BlockSize >= 32 && BlockSize <= 1024,
                "BlockSize: a multiple of 32, <= 1024");
  static constexpr int kWarps = BlockSize / 32;
  T warp[kWarps];
  T total;
};

// Every thread gets op over the whole block.
template <int BlockSize, class T, class Op = Sum>
__device__ __forceinline__ T block_reduce(T v, BlockScratch<T, BlockSize>& s, Op op = {}) {
  constexpr int kWarps = BlockScratch<T, BlockSize>::kWarps;
  const int warp = static_cast<int>(threadIdx.x / 32), lane = lane_id();
  v = warp_reduce<32>(v, op);
  if constexpr (kWarps == 1) {
    return v;  // one warp: the shuffles did it all, no barrier needed
  } else {
    if (lane == 0) s.warp[warp] = v;
    __syncthreads();
    if (warp == 0) {
      T w = Op::template identity<T>();
      if (lane < kWarps) w = s.warp[lane];  // a branch, not a select: lanes past kWarps read nothing
      w = warp_reduce<32>(w, op);
      if (lane == 0) s.total = w;
    }
    __syncthreads();
    return s.total;
  }
}

template <int BlockSize, class T>
__device__ __forceinline__ T block_reduce_sum(T v, BlockScratch<T, BlockSize>& s) {
  return block_reduce<BlockSize>(v, s, Sum{});
}

namespace detail {
// Scans the per-warp totals in place (s.warp[w] becomes the inclusive total of warps 0..w).
template <int BlockSize, class T, class Op>
__device__ __forceinline__ void scan_warp_totals(BlockScratch<T, BlockSize>& s, Op op) {
  constexpr int kWarps = BlockScratch<T, BlockSize>::kWarps;
  const int lane = lane_id();
  if (threadIdx.x < 32) {
    T w = Op::template identity<T>();
    if (lane < kWarps) w = s.warp[lane];
    w = warp_inclusive_scan<32>(w, op);
    __syncwarp();  // every lane has read its total before any lane overwrites one
    if (lane < kWarps) s.warp[lane] = w;
  }
}
}  // namespace detail

// Thread t gets op(v_0, ..., v_t) over the block; *block_total (if given) gets the total.
template <int BlockSize, class T, class Op = Sum>
__device__ __forceinline__ T block_inclusive_scan(T v, BlockScratch<T, BlockSize>& s,
                                                  T* block_total = nullptr, Op op = {}) {
  constexpr int kWarps = BlockScratch<T, BlockSize>::kWarps;
  const int warp = static_cast<int>(threadIdx.x / 32), lane = lane_id();
  const T inclusive = warp_inclusive_scan<32>(v, op);
  if constexpr (kWarps == 1) {
    if (block_total != nullptr) *block_total = __shfl_sync(kFullWarpMask, inclusive, 31);
    return inclusive;
  } else {
    if (lane == 31) s.warp[warp] = inclusive;
    __syncthreads();
    detail::scan_warp_totals<BlockSize>(s, op);
    __syncthreads();
    const T result = warp > 0 ? op(s.warp[warp - 1], inclusive) : inclusive;
    if (block_total != nullptr) *block_total = s.warp[kWarps - 1];
    __syncthreads();  // the caller may reuse the scratch right away
    return result;
  }
}

// Thread t gets op(v_0, ..., v_{t-1}) (thread 0: Op's identity); *block_total gets the total.
template <int BlockSize, class T, class Op = Sum>
__device__ __forceinline__ T block_exclusive_scan(T v, BlockScratch<T, BlockSize>& s,
                                                  T* block_total = nullptr, Op op = {}) {
  constexpr int kWarps = BlockScratch<T, BlockSize>::kWarps;
  const int warp = static_cast<int>(threadIdx.x / 32), lane = lane_id();
  const T inclusive = warp_inclusive_scan<32>(v, op);
  const T shifted = __shfl_up_sync(kFullWarpMask, inclusive, 1);
  const T exclusive = lane == 0 ? Op::template identity<T>() : shifted;
  if constexpr (kWarps == 1) {
    if (block_total != nullptr) *block_total = __shfl_sync(kFullWarpMask, inclusive, 31);
    return exclusive;
  } else {
    if (lane == 31) s.warp[warp] = inclusive;
    __syncthreads();
    detail::scan_warp_totals<BlockSize>(s, op);
    __syncthreads();
    T result = exclusive;
    if (warp > 0) result = lane == 0 ? s.warp[warp - 1] : op(s.warp[warp - 1], exclusive);
    if (block_total != nullptr) *block_total = s.warp[kWarps - 1];
    __syncthreads();
    return result;
  }
}

}  // namespace spx::cuda
