// Warp-level reduce and scan over groups of Width consecutive lanes (Width a power of two, 2..32),
// with register shuffles only: log2(Width) steps, no shared memory, no barriers. Every lane of the
// warp must call them (full mask), with a 1-D block whose size is a multiple of 32.
// Reused by CSR-vector (row sums over sub-warps), segmented sum and SpMM.
#pragma once

#include <cuda/std/limits>

namespace spx::cuda {

inline constexpr unsigned kFullWarpMask = 0xffffffffu;

struct Sum {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
  template <class T>
  __device__ __forceinline__ static T identity() {
    return T{0};
  }
};

struct Max {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a < b ? b : a;
  }
  template <class T>
  __device__ __forceinline__ static T identity() {
    return ::cuda::std::numeric_limits<T>::lowest();
  }
};

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31u); }

// Every lane of each Width-group gets op over the group (butterfly: all lanes end with the total).
template <int Width = 32, class T, class Op = Sum>
__device__ __forceinline__ T warp_reduce(T v, Op op = {}) {
  static_assert(Width >= 2 && Width <= 32 && (Width & (Width - 1)) == 0, "Width: a power of two, 2..32");
#pragma unroll
  for (int offset = Width / 2; offset > 0; offset /= 2)
    v = op(v, __shfl_xor_sync(kFullWarpMask, v, offset, Width));
  return v;
}

template <int Width = 32, class T>
__device__ __forceinline__ T warp_reduce_sum(T v) {
  return warp_reduce<Width>(v, Sum{});
}

// Lane i of each group gets op(v_0, ..., v_i) of its group (Hillis–Steele over shfl_up).
template <int Width = 32, class T, class Op = Sum>
__device__ __forceinline__ T warp_inclusive_scan(T v, Op op = {}) {
  static_assert(Width >= 2 && Width <= 32 && (Width & (Width - 1)) == 0, "Width: a power of two, 2..32");
  const int lane = lane_id() & (Width - 1);
#pragma unroll
  for (int offset = 1; offset < Width; offset *= 2) {
    const T up = __shfl_up_sync(kFullWarpMask, v, offset, Width);
    if (lane >= offset) v = op(up, v);
  }
  return v;
}

// Lane i gets op(v_0, ..., v_{i-1}); lane 0 of each group gets Op's identity. Shifts the inclusive
// result rather than subtracting v, so it is exact for floating point too.
template <int Width = 32, class T, class Op = Sum>
__device__ __forceinline__ T warp_exclusive_scan(T v, Op op = {}) {
  const T inclusive = warp_inclusive_scan<Width>(v, op);
  const T shifted = __shfl_up_sync(kFullWarpMask, inclusive, 1, Width);
  return (lane_id() & (Width - 1)) == 0 ? Op::template identity<T>() : shifted;
}

}  // namespace spx::cuda
