// Warp arrival counting: the combining step of kernels in which several warps each leave a partial
// result of one output and the last of them to finish adds the partials (the long-row chunks of the
// parametrised CSR SpMV, the long-row pieces of the SpMM tiles, the long tails of the segmented
// sum). No warp ever waits for another, and the sum's order does not depend on which warp is last.
#pragma once

#include "cuda/common/warp.cuh"

namespace spx::cuda {

// Called by every lane of a warp after the warp's partials are stored (by any of its lanes): each
// lane fences, publishing what it stored; lane 0 counts the warp on *counter; every lane learns
// whether this warp brought the count to `arrivals`. The last warp resets the counter to zero for
// the next launch (every arrival is in, nobody else touches it) and may then read all the
// partials — through L2 (__ldcg): other SMs wrote them, and this SM's L1 may hold stale lines.
__device__ __forceinline__ bool warp_arrives_last(unsigned* counter, unsigned arrivals) {
  __threadfence();
  __syncwarp();
  bool last = false;
  if (lane_id() == 0) last = atomicAdd(counter, 1u) == arrivals - 1u;
  last = __shfl_sync(kFullWarpMask, last, 0);
  if (last) {
    __threadfence();
    if (lane_id() == 0) *counter = 0u;
  }
  return last;
}

}  // namespace spx::cuda
