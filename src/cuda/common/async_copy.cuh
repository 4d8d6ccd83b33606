// Asynchronous global -> shared copies (cp.async, sm_80+): a warp stages a contiguous range of
// global memory in its shared memory without holding registers while the data is in flight, so
// the copy overlaps whatever the warp issues next (index searches, other loads). The segmented-sum
// SpMV stages each tile's values and column indices this way (segsum.cu).
#pragma once

#include <cstdint>

namespace spx::cuda {

// An L2 eviction policy for the cache_hint forms: evict-first for data read exactly once (so that
// it does not push reused data, such as a gathered x, out of L2), else evict-normal.
__device__ __forceinline__ uint64_t l2_policy(bool evict_first) {
  uint64_t policy;
  if (evict_first)
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  else
    asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// Copies src_bytes (0..16) from src to the 16 bytes at dst and zero-fills the rest; both addresses
// 16-byte aligned. Bypasses L1 (.cg). With src_bytes == 0 nothing is read.
__device__ __forceinline__ void copy_async_16(void* dst, const void* src, int src_bytes, uint64_t policy) {
  const auto shared = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;" ::"r"(shared), "l"(src),
               "r"(src_bytes), "l"(policy)
               : "memory");
}

// Closes the group of this thread's copies issued so far.
__device__ __forceinline__ void copy_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// Waits for all of this thread's copies. Other lanes' copies are visible after a __syncwarp that
// follows every lane's wait.
__device__ __forceinline__ void copy_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// Warp-cooperative: stages src[0, count) into dst[0, count) for elements of type E, zero-filling
// dst[valid, count). count * sizeof(E) must be a multiple of 16, src and dst 16-byte aligned.
// Lane l copies the 16-byte chunks l, l + 32, ...: each instruction reads 512 contiguous bytes.
// Addresses past `valid` are never read (the source of an empty chunk is src itself).
template <class E>
__device__ __forceinline__ void warp_stage_async(E* dst, const E* src, int valid, int count, int lane,
                                                 uint64_t policy) {
  static_assert(16 % sizeof(E) == 0, "elements must divide a 16-byte chunk");
  constexpr int kPerChunk = 16 / static_cast<int>(sizeof(E));
  const int chunks = count / kPerChunk;
  for (int ch = lane; ch < chunks; ch += 32) {
    const int first = ch * kPerChunk;
    const int left = valid - first;
    const int bytes = left <= 0 ? 0 : (left >= kPerChunk ? 16 : left * static_cast<int>(sizeof(E)));
    copy_async_16(dst + first, bytes > 0 ? src + first : src, bytes, policy);
  }
}

}  // namespace spx::cuda
