// The device side of a symmetric permutation (spx/cuda/reorder.hpp): gather a vector into the
// permuted numbering, scatter a result back with y = alpha*y' + beta*y. Launchers only (no fmt:
// included by the .cu file).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace spx::cuda::detail {

// out[i] = in[perm[i]], i < n.
template <class T>
void launch_gather(cudaStream_t stream, int64_t n, const int32_t* perm, const T* in, T* out);
// y[perm[i]] = alpha*yp[i] + beta*y[perm[i]], i < n; beta == 0 never reads y (NaN must not survive).
template <class T>
void launch_scatter_axpby(cudaStream_t stream, int64_t n, const int32_t* perm, const T* yp, T* y, T alpha,
                          T beta);

}  // namespace spx::cuda::detail
