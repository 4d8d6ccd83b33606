// One GPU per MPI rank through the single-process API (spx/cuda/dist.hpp, docs/distributed.md):
// every process joins the team as its own rank, builds only its part and runs the same products
// and the same CG (DistCgSolver, vectors on the device) as one process driving every GPU, with the
// same bits for the same split.
//
//   spx::dist::mpi::Session session;
//   auto gpu = spx::dist::mpi::choose_rank_gpu(Group::World);       // NCCL when no GPU is shared
//   auto team = spx::dist::mpi::join_team(Group::World, gpu.device);
//   auto D = spx::dist::mpi::distribute_parts(Group::World, my_rows, rows, cols);
//   spx::cuda::dist::DistOptions options;
//   options.agree = spx::dist::mpi::agree_on_setup(Group::World);
//   spx::cuda::dist::DistSparseMatrix<double> A(*team, std::move(D), options);
//
// Built with MPI and CUDA only (spx::dist::mpi::built_with_gpu_ranks()).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "spx/cuda/dist.hpp"
#include "spx/dist_mpi.hpp"

namespace spx::dist::mpi {

// This rank's member of a team spanning `group`, on its GPU `device` (choose_rank_gpu's, which
// must have chosen NCCL: NCCL needs a GPU per rank): the NCCL id made on rank 0 and broadcast.
// Collective; JobError on every rank when one could not join.
std::unique_ptr<spx::cuda::dist::Team> join_team(Group group, int device);

// DistOptions::agree for a team spanning `group`: every rank learns whether every rank's setup
// succeeded, and all throw JobError when one failed (the failing rank's message there).
std::function<void(const std::string& error)> agree_on_setup(Group group);

}  // namespace spx::dist::mpi
