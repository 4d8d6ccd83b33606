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

// Copies the 16 bytes at src to dst, both 16-byte aligned, bypassing L1 (.cg).
__device__ __forceinline__ void copy_async_16(void* dst, const void* src, uint64_t policy) {
  const auto shared = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(shared), "l"(src),
               "l"(policy)
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
// Nothing at or past src + valid is read: the chunk holding `valid` and those after it are
// written by plain loads and stores (a cp.async with fewer source bytes still accesses all 16,
// which compute-sanitizer reports past the end of an allocation).
template <class E>
__device__ __forceinline__ void warp_stage_async(E* dst, const E* src, int valid, int count, int lane,
                                                 uint64_t policy) {
  static_assert(16 % sizeof(E) == 0, "elements must divide a 16-byte chunk");
  constexpr int kPerChunk = 16 / static_cast<int>(sizeof(E));
  const int chunks = count / kPerChunk;
  for (int ch = lane; ch < chunks; ch += 32) {
    const int first = ch * kPerChunk;
    if (valid - first >= kPerChunk) {
      copy_async_16(dst + first, src + first, policy);
    } else {
#pragma unroll
      for (int e = 0; e < kPerChunk; ++e) dst[first + e] = first + e < valid ? src[first + e] : E{0};
    }
  }
}

}  // namespace spx::cuda
