// The slab pipeline both GEMM kernels share (gemm_v1.cu, gemm_v2.cu): a 256-thread block owns a
// 128 × 128 tile of C and streams op(A) and op(B) through shared memory in kBK = 8 deep slabs,
// stored [k][m] and [k][n] whatever op is. Loading a slab is two steps — global → registers
// (load_slab) and registers → shared (store_slab) — so a kernel can issue slab s+1's global loads
// before it multiplies slab s and store them afterwards (Tan et al.'s double buffering).
//
// Global loads are 128-bit (float4, double2) along the operand's contiguous dimension when its
// pointer and leading dimension allow it and the vector lies inside the matrix; otherwise
// per-element loads with zero fill, so any m, n, k and any ld work.
#pragma once

#include <cstdint>

#include "cuda/gemm/gemm_launch.hpp"

namespace spx::cuda::detail::gemm_slab {

constexpr int kBM = kGemmTile, kBN = kGemmTile, kBK = 8;
constexpr int kThreads = 256;
// Row padding of the shared slabs: the transposing store (op(A) = A^T, op(B) = B) writes down a
// column of the [k][outer] slab; 4 extra elements shift consecutive k rows across banks. Rows
// stay 16-byte aligned.
constexpr int kPad = 4;
constexpr int kRow = kBM + kPad;
static_assert(kBM == kBN, "one slab shape serves both operands");

template <class T>
struct Vec;
template <>
struct Vec<float> {
  using type = float4;
};
template <>
struct Vec<double> {
  using type = double2;
};
template <class T>
constexpr int kVec = sizeof(typename Vec<T>::type) / sizeof(T);  // 4 floats or 2 doubles: 128 bits

template <class V>
__device__ __forceinline__ auto& lane(V& v, int e) {
  return (&v.x)[e];
}

// One operand as stored: element (r, c) at ptr[r + c*ld]. The operand contributes a kBK × 128
// slab per step: "outer" is m for A and n for B; k_is_row says whether the stored rows run along k
// (A^T stored as k × m, or B stored as k × n) or along the outer dimension.
template <class T>
struct Operand {
  const T* ptr;
  int64_t ld;
  int64_t outer;  // m or n
  int64_t k;
  bool k_is_row;
  bool vec_ok;  // ptr and ld allow 128-bit loads along the stored rows
};

// Each thread moves kLoads vectors of one slab: 1024 elements / 256 threads / kVec.
template <class T>
constexpr int kLoads = kBK* kBM / kThreads / kVec<T>;

// R is the slab's stored row count (kBK or kBM), a template parameter so the thread → element
// map below is shifts and masks, not a runtime division on every slab.
template <int R, class T>
__device__ __forceinline__ void load_slab(const Operand<T>& op, int64_t r0, int64_t c0, int64_t rows,
                                          int64_t cols, typename Vec<T>::type (&stage)[kLoads<T>]) {
  constexpr int V = kVec<T>;
#pragma unroll
  for (int l = 0; l < kLoads<T>; ++l) {
    const int v = static_cast<int>(threadIdx.x) + l * kThreads;
    const int r = (v % (R / V)) * V, c = v / (R / V);
    const int64_t gr = r0 + r, gc = c0 + c;
    if (gc < cols && op.vec_ok && gr + V <= rows) {
      stage[l] = *reinterpret_cast<const typename Vec<T>::type*>(op.ptr + gr + gc * op.ld);
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e)
        lane(stage[l], e) = (gc < cols && gr + e < rows) ? op.ptr[gr + e + gc * op.ld] : T{0};
    }
  }
}

// Slab rows [k0, k0 + kBK) of op(X) for outer indices [o0, o0 + 128), zero outside the matrix.
template <class T>
__device__ __forceinline__ void load_slab(const Operand<T>& op, int64_t o0, int64_t k0,
                                          typename Vec<T>::type (&stage)[kLoads<T>]) {
  if (op.k_is_row)  // uniform across the grid
    load_slab<kBK>(op, k0, o0, op.k, op.outer, stage);
  else
    load_slab<kBM>(op, o0, k0, op.outer, op.k, stage);
}

// Writes the staged elements into a [k][outer] slab: stored element (r, c) is (k, outer) = (r, c)
// when k_is_row, (c, r) otherwise.
template <int R, bool kIsRow, class T>
__device__ __forceinline__ void store_slab(const typename Vec<T>::type (&stage)[kLoads<T>], T (*slab)[kRow]) {
  constexpr int V = kVec<T>;
#pragma unroll
  for (int l = 0; l < kLoads<T>; ++l) {
    const int v = static_cast<int>(threadIdx.x) + l * kThreads;
    const int r = (v % (R / V)) * V, c = v / (R / V);
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const T x = lane(const_cast<typename Vec<T>::type&>(stage[l]), e);
      if constexpr (kIsRow)
        slab[r + e][c] = x;
      else
        slab[c][r + e] = x;
    }
  }
}

template <class T>
__device__ __forceinline__ void store_slab(bool k_is_row, const typename Vec<T>::type (&stage)[kLoads<T>],
                                           T (*slab)[kRow]) {
  if (k_is_row)
    store_slab<kBK, true, T>(stage, slab);
  else
    store_slab<kBM, false, T>(stage, slab);
}

template <class T>
inline Operand<T> operand(const T* ptr, int64_t ld, int64_t outer, int64_t k, bool k_is_row) {
  const bool aligned = reinterpret_cast<uintptr_t>(ptr) % sizeof(typename Vec<T>::type) == 0;
  return Operand<T>{ptr, ld, outer, k, k_is_row, aligned && ld % kVec<T> == 0};
}

}  // namespace spx::cuda::detail::gemm_slab
