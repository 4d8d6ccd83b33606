// The CgResult a GPU solve reports, read off its final device state: status, iterations, norms
// and the one-line message (shared by the single-GPU and the distributed solver). The caller zeroes
// x for a zero right-hand side and copies the history.
#pragma once

#include "cuda/solve/cg_kernels.hpp"
#include "spx/cg.hpp"

namespace spx::cuda::detail {

CgResult cg_result(const CgState& state, const CgOptions& options);

}  // namespace spx::cuda::detail
