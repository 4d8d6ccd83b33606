// The dot product of a run of CSR nonzeros with x, shared by the kernels that sum a row (or a
// piece of one) with several threads side by side: the parametrised CSR kernel (its rows and
// long-row chunks) and the segmented sum (the tails of rows a warp completes past its tile).
#pragma once

#include <cstdint>

namespace spx::cuda {

// Sum of vals[k] * x[cols[k]] over k = lane, lane + Stride, ... < len: one thread's share of a run
// of nonzeros starting at cols/vals, whose Stride threads work side by side so that a group's
// loads are contiguous. Unroll nonzeros per thread are loaded before the first multiply: Hopper
// needs many bytes in flight per SM, and a thread walking a row one dependent load pair at a time
// is latency-bound. 32-bit offsets from 64-bit bases keep the register count down (unsigned:
// k + (Unroll - 1) * Stride cannot overflow for any len < 2^31).
template <int Stride, int Unroll = 4, class T>
__device__ __forceinline__ T row_dot(const int32_t* __restrict__ cols, const T* __restrict__ vals,
                                     const T* __restrict__ x, uint32_t len, uint32_t lane) {
  T sum = T{0};
  uint32_t k = lane;
  for (; k + (Unroll - 1) * Stride < len; k += Unroll * Stride) {
    int32_t c[Unroll];
    T v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
      c[u] = __ldg(cols + k + u * Stride);
      v[u] = __ldg(vals + k + u * Stride);
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u) sum += v[u] * __ldg(x + c[u]);
  }
  for (; k < len; k += Stride) sum += __ldg(vals + k) * __ldg(x + __ldg(cols + k));
  return sum;
}

}  // namespace spx::cuda
