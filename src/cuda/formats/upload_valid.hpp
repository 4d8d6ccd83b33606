// upload() without its validation, for callers that have just validated the matrix themselves (the
// front door: spx::stats validates it; a second O(nnz) pass would double that part of its setup).
#pragma once

#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/matrix.hpp"

namespace spx::cuda::detail {

// A must be valid (A.validate() passed): its arrays are copied as they are.
template <class T, class I>
DeviceCsr<T, I> upload_valid(Context& ctx, const Csr<T, I>& A);

}  // namespace spx::cuda::detail
