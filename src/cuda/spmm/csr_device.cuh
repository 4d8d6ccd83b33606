// Device pieces shared by the two CSR SpMM kernels (csr.cu: a row per group of lanes; csr_tiled.cu:
// balanced tiles of rows and nonzeros): the matrix argument, the lane layout of a group, and the
// walk of one row's nonzeros that adds a row segment of B per nonzero.
#pragma once

#include <cstdint>

#include "cuda/spmm/spmm_device.cuh"

namespace spx::cuda::detail {

template <class T, class I>
struct CsrArg {
  I rows;
  const I* __restrict__ row_ptr;
  const I* __restrict__ col_idx;
  const T* __restrict__ values;
};

// A group of G = 1 << g_log2 lanes: lane g = w·S + s owns the V columns j0 + w·V .. of the pass
// (column lane w) and takes the nonzeros s, s + S, ... of its row (S = 1 << s_log2).
struct Lanes {
  int g_log2;
  int s_log2;
};

// Adds the nonzeros k = begin, begin + step, ... < end of one row to acc (columns j0 .. j0 + V of
// B; `valid` of them exist when the pass is a guarded one).
template <int V, bool Vec, class T, class I>
__device__ __forceinline__ void accumulate(const CsrArg<T, I>& A, const DenseArg<const T>& B, int64_t j0,
                                           int valid, I begin, I end, int step, T (&acc)[V]) {
  const T* b = B.data + j0 * B.col_stride;
#pragma unroll 4
  for (I k = begin; k < end; k += step) {
    const T a = A.values[k];
    const T* b_row = b + int64_t{A.col_idx[k]} * B.row_stride;
    if constexpr (Vec) {
      T bv[V];
      load_row_segment<V>(b_row, bv);
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] += a * bv[j];
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (j < valid) acc[j] += a * __ldg(b_row + j * B.col_stride);
    }
  }
}

template <int V, class T>
__device__ __forceinline__ void zero(T (&acc)[V]) {
#pragma unroll
  for (int j = 0; j < V; ++j) acc[j] = T{0};
}

}  // namespace spx::cuda::detail
