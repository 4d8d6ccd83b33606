// The local matrix approach on the GPU (Reguly & Giles 2012, §8.2, eq. 12): y = Aᵀ(K_e(A x)).
// One thread per element: gather the m = (p+1)² values of x at the element's nodes, multiply by the
// element's local matrix (its packed upper triangle, m(m+1)/2 values: symmetric, so half the bytes
// of the paper's full m² storage), and add the m results into y. Element data are slot-major —
// value t of element e at [t·E + e] — so a warp's loads of one slot are one coalesced transaction,
// as the paper lays out its ELLPACK and LMA data. Scatter: atomicAdd (Hopper has native f32 and f64
// atomics in L2), or colour by colour with plain read-modify-write (4 launches; the paper's double
// precision path on Fermi, which had no double atomics).
#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/solve/lma_kernels.hpp"

namespace spx::cuda::detail {
namespace {

constexpr int kLmaBlock = 128;

template <int P, class T, bool Atomic>
__global__ void __launch_bounds__(kLmaBlock)
    lma_kernel(int64_t elements, int64_t begin, int64_t end, const int32_t* __restrict__ nodes,
               const T* __restrict__ local, const T* __restrict__ x, T* __restrict__ y) {
  constexpr int M = (P + 1) * (P + 1);
  const int64_t e = begin + blockIdx.x * int64_t{kLmaBlock} + threadIdx.x;
  if (e >= end) return;
  int32_t node[M];
  T xe[M], ye[M];
#pragma unroll
  for (int i = 0; i < M; ++i) {
    node[i] = nodes[i * elements + e];
    xe[i] = node[i] >= 0 ? __ldg(&x[node[i]]) : T{0};
    ye[i] = T{0};
  }
  int t = 0;
#pragma unroll
  for (int i = 0; i < M; ++i) {
#pragma unroll
    for (int j = i; j < M; ++j, ++t) {
      const T a = __ldcs(&local[t * elements + e]);  // streamed once per product: do not keep in L2
      ye[i] += a * xe[j];
      if (j != i) ye[j] += a * xe[i];
    }
  }
#pragma unroll
  for (int i = 0; i < M; ++i) {
    if (node[i] < 0) continue;
    if constexpr (Atomic)
      atomicAdd(&y[node[i]], ye[i]);
    else
      y[node[i]] += ye[i];
  }
}

template <int P, class T, bool Atomic>
void launch(cudaStream_t stream, int64_t elements, int64_t begin, int64_t end, const int32_t* nodes,
            const T* local, const T* x, T* y) {
  if (end <= begin) return;
  lma_kernel<P, T, Atomic>
      <<<grid_for(end - begin, kLmaBlock), kLmaBlock, 0, stream>>>(elements, begin, end, nodes, local, x, y);
  SPX_CHECK_LAUNCH("lma_kernel", stream);
}

}  // namespace

template <class T>
void launch_lma(cudaStream_t stream, int p, bool atomic, int64_t elements, int64_t begin, int64_t end,
                const int32_t* nodes, const T* local, const T* x, T* y) {
  switch (p * 2 + (atomic ? 1 : 0)) {
    case 3:
      return launch<1, T, true>(stream, elements, begin, end, nodes, local, x, y);
    case 2:
      return launch<1, T, false>(stream, elements, begin, end, nodes, local, x, y);
    case 5:
      return launch<2, T, true>(stream, elements, begin, end, nodes, local, x, y);
    case 4:
      return launch<2, T, false>(stream, elements, begin, end, nodes, local, x, y);
    case 7:
      return launch<3, T, true>(stream, elements, begin, end, nodes, local, x, y);
    case 6:
      return launch<3, T, false>(stream, elements, begin, end, nodes, local, x, y);
    case 9:
      return launch<4, T, true>(stream, elements, begin, end, nodes, local, x, y);
    default:
      return launch<4, T, false>(stream, elements, begin, end, nodes, local, x, y);
  }
}

template void launch_lma<float>(cudaStream_t, int, bool, int64_t, int64_t, int64_t, const int32_t*,
                                const float*, const float*, float*);
template void launch_lma<double>(cudaStream_t, int, bool, int64_t, int64_t, int64_t, const int32_t*,
                                 const double*, const double*, double*);

}  // namespace spx::cuda::detail
