// The host side both GPU CG drivers share (the single-GPU CgSolver and the distributed
// DistCgSolver): the options' checks and the state a solve starts from, the loop of batches that
// reads the device state one batch late, and the CgResult read off the final state (status,
// iterations, norms, the one-line message). The callers zero x for a zero right-hand side and copy
// the history.
#pragma once

#include <functional>

#include "cuda/solve/cg_kernels.hpp"
#include "spx/cg.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/stream.hpp"

namespace spx::cuda::detail {

// spx::Error for options no solve can take; otherwise the device state a solve starts from.
CgState initial_cg_state(const CgOptions& options);

// Batches of options.check_every iterations until `state` (device memory) stops running: after
// enqueue_batch() enqueues one batch, the state is copied to host[j % 2] on ctx's stream and
// done[j % 2] recorded; batch j's copy is read after batch j + 1 is enqueued, so the host never
// stalls the GPU. At most max_iterations / check_every + 3 batches (a safety net: the device caps
// the iterations itself). progress gets (iteration, ‖r‖) after each read.
void run_cg_batches(Context& ctx, const CgState* state, CgState* host, Event& done0, Event& done1,
                    const CgOptions& options, const std::function<void()>& enqueue_batch,
                    const CgProgress& progress);

CgResult cg_result(const CgState& state, const CgOptions& options);

}  // namespace spx::cuda::detail
