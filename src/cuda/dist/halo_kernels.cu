// Pack and scatter-add: one thread per (entry, column), grid-stride, coalesced over the columns of
// a row (L > 1) or over consecutive entries (L = 1). Both move a few hundred kilobytes per product
// at most (the halo), so they are latency-bound: simple is enough.
#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/dist/halo_kernels.hpp"

namespace spx::cuda::dist::detail {
namespace {

constexpr int kBlock = 256;

template <class T>
__global__ void __launch_bounds__(kBlock)
    pack_kernel(int64_t items, int64_t L, const int32_t* __restrict__ index, const T* __restrict__ x,
                T* __restrict__ out) {
  for (int64_t k = blockIdx.x * int64_t{kBlock} + threadIdx.x; k < items; k += int64_t{gridDim.x} * kBlock) {
    const int64_t i = k / L, j = k - i * L;
    out[k] = x[static_cast<int64_t>(index[i]) * L + j];
  }
}

template <class T>
__global__ void __launch_bounds__(kBlock)
    scatter_add_kernel(int64_t items, int64_t L, const int32_t* __restrict__ row, const T* __restrict__ t,
                       T* __restrict__ y) {
  for (int64_t k = blockIdx.x * int64_t{kBlock} + threadIdx.x; k < items; k += int64_t{gridDim.x} * kBlock) {
    const int64_t i = k / L, j = k - i * L;
    y[static_cast<int64_t>(row[i]) * L + j] += t[k];
  }
}

unsigned grid(int64_t items) {
  return static_cast<unsigned>(std::min<int64_t>(grid_for(items, kBlock), 65535));
}

}  // namespace

template <class T>
void launch_pack(cudaStream_t stream, int64_t count, int64_t L, const int32_t* index, const T* x, T* out) {
  if (count <= 0) return;
  pack_kernel<T><<<grid(count * L), kBlock, 0, stream>>>(count * L, L, index, x, out);
  SPX_CHECK_LAUNCH("pack_kernel", stream);
}

template <class T>
void launch_scatter_add(cudaStream_t stream, int64_t count, int64_t L, const int32_t* row, const T* t, T* y) {
  if (count <= 0) return;
  scatter_add_kernel<T><<<grid(count * L), kBlock, 0, stream>>>(count * L, L, row, t, y);
  SPX_CHECK_LAUNCH("scatter_add_kernel", stream);
}

template void launch_pack<float>(cudaStream_t, int64_t, int64_t, const int32_t*, const float*, float*);
template void launch_pack<double>(cudaStream_t, int64_t, int64_t, const int32_t*, const double*, double*);
template void launch_scatter_add<float>(cudaStream_t, int64_t, int64_t, const int32_t*, const float*, float*);
template void launch_scatter_add<double>(cudaStream_t, int64_t, int64_t, const int32_t*, const double*,
                                         double*);

}  // namespace spx::cuda::dist::detail
