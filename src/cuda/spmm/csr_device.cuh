// Device pieces shared by the two CSR SpMM kernels (csr.cu: a row per group of lanes; csr_tiled.cu:
// balanced tiles of rows and nonzeros): the matrix argument, the lane layout of a group, and the
// walk of one row's nonzeros that adds a row segment of B per nonzero.
#pragma once

#include <cstdint>

#include "cuda/common/row_dot.cuh"
#include "cuda/spmm/spmm_device.cuh"

namespace spx::cuda::detail {

// O: the row offsets' type (int64_t for WideDeviceCsr; both the row-split and the balanced kernels
// take it).
template <class T, class I, class O = I>
struct CsrArg {
  I rows;
  const O* __restrict__ row_ptr;
  const I* __restrict__ col_idx;
  const T* __restrict__ values;
};

// A group of G = 1 << g_log2 lanes: lane g = w·S + s owns the V columns j0 + w·V .. of the pass
// (column lane w) and takes the nonzeros s, s + S, ... of its row (S = 1 << s_log2).
struct Lanes {
  int g_log2;
  int s_log2;
};

// The B row segment (columns j0 .. j0 + V) of one nonzero's column: vector loads on an aligned,
// complete pass (Vec), else guarded scalar loads of the `valid` columns that exist.
template <int V, bool Vec, class T>
__device__ __forceinline__ void load_b_segment(const T* b_row, int64_t col_stride, int valid, T (&out)[V]) {
  if constexpr (Vec) {
    load_row_segment<V>(b_row, out);
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) out[j] = j < valid ? __ldg(b_row + j * col_stride) : T{0};
  }
}

// Nonzeros whose column, value and B segment are loaded before the first multiply-add, so that a
// batch's loads are in flight together. The plain loop this replaces (#pragma unroll 4) kept its
// exit test between iterations, and ptxas made every nonzero a dependent chain col_idx -> B row ->
// FMA: on bcsstk13 at L = 32, 7% achieved occupancy (a small grid) and 22 cycles per issued
// instruction, 24 µs against cuSPARSE's 11 ("batched row walk" in bench/results/h100/spmm/NOTES.md).
// Fewer for wide segments (registers).
template <int V>
inline constexpr int kAccumulateBatch = V >= 8 ? 2 : 4;

// Adds the nonzeros k = begin, begin + step, ... < end of one row to acc (columns j0 .. j0 + V of
// B; `valid` of them exist when the pass is a guarded one). Within a batch the products are added
// last nonzero first: with the first one first, ptxas scheduled each multiply-add right after its
// own B load and before the next one (SASS, sm_90), which serialised the batch again; in this
// order it issues (most of) the batch's loads before the first multiply-add. A fixed order either
// way: equal inputs give equal bits.
template <int V, bool Vec, class T, class I, class O>
__device__ __forceinline__ void accumulate(const CsrArg<T, I, O>& A, const DenseArg<const T>& B, int64_t j0,
                                           int valid, O begin, O end, int step, T (&acc)[V]) {
  constexpr int U = kAccumulateBatch<V>;
  const T* b = B.data + j0 * B.col_stride;
  O k = begin;
  for (; k + (U - 1) * step < end; k += U * step) {
    I c[U];
    T a[U];
    load_nonzero_batch<U>(A.col_idx, A.values, k, step, c, a);
    T bv[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
      load_b_segment<V, Vec>(b + int64_t{c[u]} * B.row_stride, B.col_stride, valid, bv[u]);
#pragma unroll
    for (int u = U - 1; u >= 0; --u)
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] += a[u] * bv[u][j];
  }
  for (; k < end; k += step) {
    T bv[V];
    load_b_segment<V, Vec>(b + int64_t{__ldg(A.col_idx + k)} * B.row_stride, B.col_stride, valid, bv);
    const T a = __ldg(A.values + k);
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] += a * bv[j];
  }
}

template <int V, class T>
__device__ __forceinline__ void zero(T (&acc)[V]) {
#pragma unroll
  for (int j = 0; j < V; ++j) acc[j] = T{0};
}

}  // namespace spx::cuda::detail
