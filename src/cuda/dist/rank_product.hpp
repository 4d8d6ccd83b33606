// One rank's share of a distributed product (spx/cuda/dist.hpp), for drivers that enqueue each
// rank's work on the thread that drives it (Team::on_ranks): the distributed CG runs a batch of
// iterations per rank this way, one dispatch per batch.
#pragma once

#include "spx/cuda/dist.hpp"

namespace spx::cuda::dist::detail {

// Rank r's rows of y = A·x: its pack, messages, local and remote parts, on the calling thread. The
// one-column buffers exist from construction; every rank must make the same call.
template <class T>
void rank_spmv(DistSparseMatrix<T>& A, int rank, const DistVector<T>& x, DistVector<T>& y);

}  // namespace spx::cuda::dist::detail
