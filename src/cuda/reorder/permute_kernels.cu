// Gather into and scatter out of a permuted numbering (permute_kernels.hpp). The permuted side is
// coalesced, the other side a random access per entry. Each thread moves kPerThread entries, a
// block's stride apart (coalesced at every step): their permutation loads are all issued, then all
// their random accesses. Measured on an H200 (ncu, 2.25M f32 entries of a shuffled mesh's RCM
// order): 19.7 us, as with one entry a thread (19.1): the random side costs a 32-byte sector per
// entry (~114 G sectors/s), not latency; docs/reorder.md.
#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/reorder/permute_kernels.hpp"

namespace spx::cuda::detail {
namespace {

constexpr int kPermuteBlock = 256;
constexpr int kPerThread = 8;
constexpr int64_t kPerBlock = int64_t{kPermuteBlock} * kPerThread;

template <class T>
__global__ void __launch_bounds__(kPermuteBlock)
    gather_kernel(int64_t n, const int32_t* __restrict__ perm, const T* __restrict__ in,
                  T* __restrict__ out) {
  const int64_t first = blockIdx.x * kPerBlock + threadIdx.x;
  int32_t p[kPerThread];
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int64_t i = first + int64_t{u} * kPermuteBlock;
    p[u] = i < n ? __ldcs(perm + i) : -1;
  }
  T v[kPerThread];
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) v[u] = p[u] >= 0 ? __ldg(in + p[u]) : T{0};
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int64_t i = first + int64_t{u} * kPermuteBlock;
    if (i < n) out[i] = v[u];
  }
}

template <class T>
__global__ void __launch_bounds__(kPermuteBlock)
    scatter_kernel(int64_t n, const int32_t* __restrict__ perm, const T* __restrict__ yp, T* __restrict__ y,
                   T alpha, T beta) {
  const int64_t first = blockIdx.x * kPerBlock + threadIdx.x;
  int32_t r[kPerThread];
  T v[kPerThread];
#pragma unroll
  for (int u = 0; u < kPerThread; ++u) {
    const int64_t i = first + int64_t{u} * kPermuteBlock;
    r[u] = i < n ? __ldcs(perm + i) : -1;
    v[u] = i < n ? alpha * __ldcs(yp + i) : T{0};
  }
  if (beta != T{0}) {  // beta == 0 never reads y: NaN or garbage there may not leak into the result
#pragma unroll
    for (int u = 0; u < kPerThread; ++u)
      if (r[u] >= 0) v[u] += beta * y[r[u]];
  }
#pragma unroll
  for (int u = 0; u < kPerThread; ++u)
    if (r[u] >= 0) y[r[u]] = v[u];
}

}  // namespace

template <class T>
void launch_gather(cudaStream_t stream, int64_t n, const int32_t* perm, const T* in, T* out) {
  if (n <= 0) return;
  gather_kernel<T><<<grid_for(n, static_cast<int>(kPerBlock)), kPermuteBlock, 0, stream>>>(n, perm, in, out);
  SPX_CHECK_LAUNCH("gather_kernel", stream);
}

template <class T>
void launch_scatter_axpby(cudaStream_t stream, int64_t n, const int32_t* perm, const T* yp, T* y, T alpha,
                          T beta) {
  if (n <= 0) return;
  scatter_kernel<T>
      <<<grid_for(n, static_cast<int>(kPerBlock)), kPermuteBlock, 0, stream>>>(n, perm, yp, y, alpha, beta);
  SPX_CHECK_LAUNCH("scatter_kernel", stream);
}

template void launch_gather<float>(cudaStream_t, int64_t, const int32_t*, const float*, float*);
template void launch_gather<double>(cudaStream_t, int64_t, const int32_t*, const double*, double*);
template void launch_scatter_axpby<float>(cudaStream_t, int64_t, const int32_t*, const float*, float*, float,
                                          float);
template void launch_scatter_axpby<double>(cudaStream_t, int64_t, const int32_t*, const double*, double*,
                                           double, double);

}  // namespace spx::cuda::detail
