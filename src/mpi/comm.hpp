// The MPI side of spx/dist_mpi.hpp's Group: the communicator, datatypes, and return codes turned
// into spx::Error.
#pragma once

#include <mpi.h>

#include <string>

#include "spx/dist_mpi.hpp"

namespace spx::dist::mpi::detail {

inline MPI_Comm comm(Group g) { return g == Group::World ? MPI_COMM_WORLD : MPI_COMM_SELF; }

// spx::Error "<what>: MPI error <text>" unless rc is MPI_SUCCESS.
void check(int rc, const char* what);

// Every rank learns whether every rank succeeded (error empty: this one did): a rank whose setup
// threw must not leave the others waiting in the next collective. Throws JobError on every rank
// when one failed (`others`: what the ranks that did not fail say). first_only: only the lowest
// failing rank is the error's origin (a fault every rank sees, reported once).
void agree(Group group, const std::string& error,
           const char* others = "another rank failed to set up its part", bool first_only = false);

template <class T>
MPI_Datatype datatype();
template <>
inline MPI_Datatype datatype<float>() {
  return MPI_FLOAT;
}
template <>
inline MPI_Datatype datatype<double>() {
  return MPI_DOUBLE;
}

}  // namespace spx::dist::mpi::detail
