// Sums over a run of equal keys in a (keys, values) array: the combining step of the two-pass
// sparse kernels (COO boundary slots, the segmented-sum synchronizer), where a row shared by many
// chunks or warps leaves one partial per chunk, stored at consecutive indices with the row as key.
//
// A run is contiguous: once the key at j differs from the run's key, no later index holds it. Both
// helpers add in index order (the thread alone, or lane-strided and then warp_reduce_sum's fixed
// tree), so equal inputs give the same bits on every call; and both issue their loads in batches,
// because the step "load key j, compare, go on" is a dependent chain of L2/DRAM latencies (~0.4 µs
// each on an H100): a row of 1.4M nonzeros left 2800 partials and took 55 µs one step of 32 at a
// time.
#pragma once

#include <cstdint>

#include "cuda/common/warp.cuh"

namespace spx::cuda {

// One thread: adds values[j] to `sum` for j = next, next + 1, ... while keys[j] == key, at most
// MaxLen of them, all loaded before the first compare; advances `next` past the ones added.
template <int MaxLen, class K, class T>
__device__ __forceinline__ void thread_sum_run_prefix(const K* __restrict__ keys,
                                                      const T* __restrict__ values, int64_t n, K key,
                                                      int64_t& next, T& sum) {
  K k[MaxLen];
  T v[MaxLen];
#pragma unroll
  for (int u = 0; u < MaxLen; ++u) {
    const int64_t j = next + u;
    k[u] = j < n ? keys[j] : ~key;  // past the end: never part of the run
    v[u] = j < n ? values[j] : T{0};
  }
  bool open = true;
#pragma unroll
  for (int u = 0; u < MaxLen; ++u) {
    open = open && k[u] == key;
    if (open) {
      sum += v[u];
      ++next;
    }
  }
}

// The whole warp (every lane, same first and key): the sum of values[j] over the run of `key`
// starting at `first` (possibly empty), on every lane. Batch loads of keys and values per lane
// are in flight per step, so a run of R entries costs about R / (32 * Batch) dependent steps.
template <int Batch, class K, class T>
__device__ __forceinline__ T warp_sum_run(const K* __restrict__ keys, const T* __restrict__ values, int64_t n,
                                          int64_t first, K key) {
  const int lane = lane_id();
  T part = T{0};
  for (int64_t base = first;; base += int64_t{32} * Batch) {
    K k[Batch];
    T v[Batch];
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
      const int64_t j = base + int64_t{u} * 32 + lane;
      const bool in = j < n;
      k[u] = in ? keys[j] : ~key;
      v[u] = in ? values[j] : T{0};
    }
    bool all_in = true;
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
      const bool in = k[u] == key;  // contiguity: a lane's entries after a miss are misses too
      if (in) part += v[u];
      all_in = all_in && in;
    }
    if (!__all_sync(kFullWarpMask, all_in)) break;
  }
  return warp_reduce_sum(part);
}

// The whole combining step, called by every lane of the warp: a lane with has_run owns the run of
// `key` that continues at index `next` and gets its entries added to `sum`, the first ThreadRun by
// itself, the rest (a long run) by the whole warp with warp_sum_run, one long run after another.
// Returns the lane's sum (unchanged without a run). Equal inputs give equal bits.
template <int ThreadRun, int Batch, class K, class T>
__device__ __forceinline__ T sum_run_after(const K* __restrict__ keys, const T* __restrict__ values,
                                           int64_t n, bool has_run, K key, int64_t next, T sum) {
  const int64_t start = next;
  if (has_run) thread_sum_run_prefix<ThreadRun>(keys, values, n, key, next, sum);
  const bool long_run = has_run && next == start + ThreadRun && next < n && keys[next] == key;
  unsigned pending = __ballot_sync(kFullWarpMask, long_run);
  while (pending != 0) {
    const int owner = __ffs(static_cast<int>(pending)) - 1;
    const K run_key = __shfl_sync(kFullWarpMask, key, owner);
    const int64_t first = __shfl_sync(kFullWarpMask, next, owner);
    const T part = warp_sum_run<Batch>(keys, values, n, first, run_key);
    if (lane_id() == owner) sum += part;
    pending &= pending - 1;
  }
  return sum;
}

}  // namespace spx::cuda
