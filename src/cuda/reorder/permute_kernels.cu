// Gather into and scatter out of a permuted numbering (permute_kernels.hpp): one thread per entry;
// the permuted side is coalesced, the other side is a random access per entry.
#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/reorder/permute_kernels.hpp"

namespace spx::cuda::detail {
namespace {

constexpr int kPermuteBlock = 256;

template <class T>
__global__ void __launch_bounds__(kPermuteBlock)
    gather_kernel(int64_t n, const int32_t* __restrict__ perm, const T* __restrict__ in,
                  T* __restrict__ out) {
  const int64_t i = blockIdx.x * int64_t{kPermuteBlock} + threadIdx.x;
  if (i < n) out[i] = __ldg(&in[perm[i]]);
}

template <class T>
__global__ void __launch_bounds__(kPermuteBlock)
    scatter_kernel(int64_t n, const int32_t* __restrict__ perm, const T* __restrict__ yp, T* __restrict__ y,
                   T alpha, T beta) {
  const int64_t i = blockIdx.x * int64_t{kPermuteBlock} + threadIdx.x;
  if (i >= n) return;
  const int32_t r = perm[i];
  const T v = alpha * yp[i];
  y[r] = beta == T{0} ? v : v + beta * y[r];
}

}  // namespace

template <class T>
void launch_gather(cudaStream_t stream, int64_t n, const int32_t* perm, const T* in, T* out) {
  if (n <= 0) return;
  gather_kernel<T><<<grid_for(n, kPermuteBlock), kPermuteBlock, 0, stream>>>(n, perm, in, out);
  SPX_CHECK_LAUNCH("gather_kernel", stream);
}

template <class T>
void launch_scatter_axpby(cudaStream_t stream, int64_t n, const int32_t* perm, const T* yp, T* y, T alpha,
                          T beta) {
  if (n <= 0) return;
  scatter_kernel<T><<<grid_for(n, kPermuteBlock), kPermuteBlock, 0, stream>>>(n, perm, yp, y, alpha, beta);
  SPX_CHECK_LAUNCH("scatter_kernel", stream);
}

template void launch_gather<float>(cudaStream_t, int64_t, const int32_t*, const float*, float*);
template void launch_gather<double>(cudaStream_t, int64_t, const int32_t*, const double*, double*);
template void launch_scatter_axpby<float>(cudaStream_t, int64_t, const int32_t*, const float*, float*, float,
                                          float);
template void launch_scatter_axpby<double>(cudaStream_t, int64_t, const int32_t*, const double*, double*,
                                           double, double);

}  // namespace spx::cuda::detail
