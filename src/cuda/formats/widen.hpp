// Widening a device array of int32 indices to int64 (cuSPARSE's 64-bit CSR takes no 32-bit columns
// under 64-bit offsets): one grid-stride launch on ctx's stream.
#pragma once

#include <cstdint>

#include "spx/cuda/context.hpp"

namespace spx::cuda::detail {

void widen_indices(Context& ctx, const int32_t* in, int64_t* out, int64_t n);

}  // namespace spx::cuda::detail
