// spx's own GPU SpMV kernels. Semantics as on the CPU (spx/cpu.hpp): y = alpha*A*x + beta*y;
// beta == 0 never reads y; alpha == 0 reads neither A nor x (y = beta*y). x and y are *device*
// spans (DeviceBuffer::span()); sizes are checked (x.size() >= cols, y.size() >= rows, entries past
// them untouched; the parts used must not overlap) and a mismatch is an spx::Error.
// Calls only enqueue work on ctx.stream(): they return before the kernel finishes.
#pragma once

#include <cstdint>
#include <span>

#include "spx/cuda/formats.hpp"

namespace spx::cuda {

// CSR-scalar (Bell & Garland): one thread per row, accumulating in T. The baseline every other
// kernel is compared to; fast for short uniform rows, slow for long or irregular ones (one thread
// walks the whole row, and a warp's loads are not coalesced). Instantiated for float/double ×
// int32_t/int64_t.
template <class T, class I>
void spmv_csr_scalar(Context& ctx, const DeviceCsr<T, I>& A, std::span<const T> x, std::span<T> y,
                     T alpha = T{1}, T beta = T{0});

}  // namespace spx::cuda
