// A rank's member of a team spread over MPI processes (spx/cuda/dist_mpi.hpp).
#ifdef SPX_HAVE_CUDA
#include <fmt/format.h>
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

#include "mpi/comm.hpp"
#include "spx/cuda/dist_mpi.hpp"
#include "spx/error.hpp"

namespace spx::dist::mpi {

std::unique_ptr<spx::cuda::dist::Team> join_team(Group group, int device) {
  spx::cuda::dist::TeamMember member;
  member.rank = rank(group);
  member.size = size(group);
  member.device = device;
  std::string error;
  try {
    if (member.rank == 0) member.id = spx::cuda::dist::Team::new_id();
  } catch (const Error& e) {
    error = e.what();
  }
  detail::agree(group, error, "rank 0 could not make an NCCL id");
  detail::check(
      MPI_Bcast(member.id.data(), static_cast<int>(member.id.size()), MPI_BYTE, 0, detail::comm(group)),
      "MPI_Bcast");
  std::unique_ptr<spx::cuda::dist::Team> team;
  try {
    team = std::make_unique<spx::cuda::dist::Team>(member);
  } catch (const Error& e) {
    error = fmt::format("GPU {}: {}", device, e.what());
  }
  detail::agree(group, error, "another rank could not join the NCCL communicator");
  return team;
}

std::function<void(const std::string& error)> agree_on_setup(Group group) {
  return [group](const std::string& error) {
    detail::agree(group, error, "another rank failed to set up its part of the distributed matrix");
  };
}

}  // namespace spx::dist::mpi
#endif  // SPX_HAVE_CUDA
