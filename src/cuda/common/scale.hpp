// y = beta*y without a product: for alpha == 0 (BLAS convention: A and x are not read) and for
// the shapes cuSPARSE and cuBLAS are not asked about (no rows, columns or nonzeros), so every spx
// kernel and baseline gives the same result there. beta == 0 writes zeros without reading (NaN in
// y must not survive); beta == 1 does nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spx/cuda/context.hpp"

namespace spx::cuda {

template <class T>
void scale_in_place(Context& ctx, T* y, std::size_t n, T beta);

// A strided matrix: `outer` runs of `inner` contiguous elements, `ld` elements apart (a
// column-major m × n matrix is inner = m, outer = n; a row-major one the other way round). Only
// the runs are touched, never the leading-dimension padding between them.
template <class T>
void scale_in_place(Context& ctx, T* data, int64_t inner, int64_t outer, int64_t ld, T beta);

}  // namespace spx::cuda
