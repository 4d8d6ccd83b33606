// The MPI ranks' entry points of spx._spx (mpi_ranks.cpp): the mpi_* functions and the MpiMatrix
// class behind python/spx/mpi.py.
#pragma once

#include <nanobind/nanobind.h>

namespace spx::python {

void bind_mpi_ranks(nanobind::module_& m);

}  // namespace spx::python
