// Batched loads of CSR nonzeros, and the dot product of a run of them with x: for the kernels that
// sum a row (or a piece of one) with several threads side by side — the parametrised CSR SpMV (its
// rows and long-row chunks), the segmented sum (the tails of rows a warp completes past its tile)
// and the CSR SpMM row walk (csr_device.cuh).
#pragma once

#include <cstdint>

namespace spx::cuda {

// Sum of vals[k] * x[cols[k]] over k = lane, lane + Stride, ... < len: one thread's share of a run
// of nonzeros starting at cols/vals, whose Stride threads work side by side so that a group's
// loads are contiguous. Unroll nonzeros per thread are loaded before the first multiply: Hopper
// needs many bytes in flight per SM, and a thread walking a row one dependent load pair at a time
// is latency-bound. 32-bit offsets from 64-bit bases keep the register count down (unsigned:
// k + (Unroll - 1) * Stride cannot overflow for any len < 2^31).
// The columns and values of the nonzeros k, k + stride, ..., k + (U - 1) · stride, all loaded
// before any is used, so that they are in flight together (a batch of the row walks below and of
// the SpMM CSR kernels' accumulate).
template <int U, class I, class T, class K>
__device__ __forceinline__ void load_nonzero_batch(const I* __restrict__ cols, const T* __restrict__ vals,
                                                   K k, int stride, I (&c)[U], T (&v)[U]) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    c[u] = __ldg(cols + k + u * stride);
    v[u] = __ldg(vals + k + u * stride);
  }
}

// A matrix entry read once per product: Streaming loads it evict-first (ld.global.cs), so that it
// does not push the gathered x out of L1 and L2; otherwise through the read-only path.
template <bool Streaming, class E>
__device__ __forceinline__ E load_entry(const E* __restrict__ p) {
  if constexpr (Streaming)
    return __ldcs(p);
  else
    return __ldg(p);
}

//
// The column type I is int32_t for CSR, or uint16_t for CSR-C16's offsets (x then points at the
// row's base column).
// The value type V is T, or float under T = double for the opt-in mixed precision (csr_param_mixed:
// values rounded to float, x, y and the sums in double; each value is widened before its multiply).
// Streaming: the row's columns and values are loaded evict-first (load_entry).
template <int Stride, int Unroll = 4, bool Streaming = false, class T, class I, class V>
__device__ __forceinline__ T row_dot(const I* __restrict__ cols, const V* __restrict__ vals,
                                     const T* __restrict__ x, uint32_t len, uint32_t lane) {
  T sum = T{0};
  // The last, partial batch is predicated rather than walked one dependent load pair at a time: a
  // lane with 3 nonzeros left keeps 6 loads in flight, not 2 (the ELL row loop's finding, ell.cu).
  // The order of the sums is that of k, as before.
  for (uint32_t k = lane; k < len; k += Unroll * Stride) {
    I c[Unroll];
    V v[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
      const bool in_row = k + u * Stride < len;
      c[u] = in_row ? load_entry<Streaming>(cols + k + u * Stride) : I{0};
      v[u] = in_row ? load_entry<Streaming>(vals + k + u * Stride) : V{0};
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
      if (k + u * Stride < len) sum += static_cast<T>(v[u]) * __ldg(x + c[u]);
  }
  return sum;
}

}  // namespace spx::cuda
