// Device helpers shared by the SpMM kernels: wide loads of a row segment of B through the read-only
// path, and group reductions of a whole array of partial sums over a runtime group width (the
// width is a tuning knob, data; the shuffles themselves are cuda/common/warp.cuh's).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/common/dispatch.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/common/warp.cuh"
#include "spx/cuda/spmm.hpp"

namespace spx::cuda::detail {

// Element (r, j) of a dense matrix at data[r * row_stride + j * col_stride]: (ld, 1) row-major,
// (1, ld) column-major.
template <class T>
struct DenseArg {
  T* data;
  int64_t row_stride;
  int64_t col_stride;
};

// out[0..N) = p[0..N), with 16-byte loads (float4 / double2) where N elements fill them, 8-byte
// float2 loads for N = 2 floats, scalar otherwise. p must be aligned to min(16, N * sizeof(T)):
// the host checks B's pointer and leading dimension before it picks the vector path.
template <int N, class T>
__device__ __forceinline__ void load_row_segment(const T* p, T (&out)[N]) {
  constexpr int bytes = N * static_cast<int>(sizeof(T));
  if constexpr (bytes % 16 == 0) {
    using Vec = std::conditional_t<std::is_same_v<T, float>, float4, double2>;
    constexpr int per = 16 / static_cast<int>(sizeof(T));
    const Vec* v = reinterpret_cast<const Vec*>(p);
#pragma unroll
    for (int i = 0; i < N / per; ++i) {
      const Vec x = __ldg(v + i);
      if constexpr (per == 4) {
        out[4 * i] = x.x;
        out[4 * i + 1] = x.y;
        out[4 * i + 2] = x.z;
        out[4 * i + 3] = x.w;
      } else {
        out[2 * i] = x.x;
        out[2 * i + 1] = x.y;
      }
    }
  } else if constexpr (bytes == 8 && std::is_same_v<T, float>) {
    const float2 x = __ldg(reinterpret_cast<const float2*>(p));
    out[0] = x.x;
    out[1] = x.y;
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = __ldg(p + i);
  }
}

template <int Width, int N, class T>
__device__ __forceinline__ void reduce_all(T (&acc)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = warp_reduce_sum<Width>(acc[i]);
}

// Every lane of each width-group gets the group's sums (width a power of two 1..32, the same for
// the whole warp, so the switch does not diverge). Every lane of the warp must call it.
// (A device-side switch rather than dispatch_value: the kernels were measured with the code this
// compiles to, and the helper's if-chain compiles to other SASS.)
template <int N, class T>
__device__ __forceinline__ void group_reduce_all(T (&acc)[N], int width) {
  switch (width) {
    case 2:
      return reduce_all<2>(acc);
    case 4:
      return reduce_all<4>(acc);
    case 8:
      return reduce_all<8>(acc);
    case 16:
      return reduce_all<16>(acc);
    case 32:
      return reduce_all<32>(acc);
    default:
      return;
  }
}

// c = alpha * sum + beta * c; beta == 0 never reads c (NaN there must not survive).
template <class T>
__device__ __forceinline__ void write_scaled(T* c, T sum, T alpha, T beta) {
  *c = beta == T{0} ? alpha * sum : alpha * sum + beta * *c;
}

// --- Host side of the SpMM launchers ------------------------------------------------------------

template <class T>
DenseArg<T> dense_arg(DenseView<T> D) {
  const bool row = D.layout == Layout::RowMajor;
  return {D.data, row ? D.ld : 1, row ? 1 : D.ld};
}

// log2 of a power of two (the smallest l with 2^l >= v otherwise).
inline int log2_of(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

// C = beta * C over the view's rows and columns (the alpha == 0 case: A and B are not read).
template <class T>
void scale_view(Context& ctx, DenseView<T> C, T beta) {
  const bool row = C.layout == Layout::RowMajor;
  scale_in_place(ctx, C.data, row ? C.cols : C.rows, row ? C.rows : C.cols, C.ld, beta);
}

}  // namespace spx::cuda::detail
