// The LMA element kernel's launch (lma_kernels.cu), for the operator in lma_operator.cpp.
#pragma once

#include <cstdint>

#include "spx/cuda/context.hpp"

namespace spx::cuda::detail {

// Elements begin .. end - 1 of `elements` (slot-major data) at degree p (1..4): y[node] += K_e x_e,
// with atomicAdd or plain read-modify-write (only for elements that share no node).
template <class T>
void launch_lma(cudaStream_t stream, int p, bool atomic, int64_t elements, int64_t begin, int64_t end,
                const int32_t* nodes, const T* local, const T* x, T* y);

}  // namespace spx::cuda::detail
