// The two small kernels of a distributed product (spx/cuda/dist.hpp): packing the x entries a rank
// sends, and adding the compressed remote part's rows into y.
#pragma once

#include <cstdint>

#include "spx/cuda/context.hpp"

namespace spx::cuda::dist::detail {

// out[i·L + j] = x[index[i]·L + j] for i < count, j < L (x and out row-major with L columns).
template <class T>
void launch_pack(cudaStream_t stream, int64_t count, int64_t L, const int32_t* index, const T* x, T* out);

// y[row[i]·L + j] += t[i·L + j] for i < count (rows distinct, so no two threads add to one entry).
template <class T>
void launch_scatter_add(cudaStream_t stream, int64_t count, int64_t L, const int32_t* row, const T* t, T* y);

}  // namespace spx::cuda::dist::detail
