// The CG entry points' shared pieces (module.cpp, mpi_ranks.cpp): the request from Python's
// keywords, and the result as the dict python/spx/_cg.py wraps in a CgInfo.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>

#include "gpu.hpp"
#include "spx/cg.hpp"

namespace spx::python {

CgRequest cg_request(double rtol, double atol, int64_t max_iterations, bool jacobi, bool history);
nanobind::dict cg_dict(const CgResult& r);

}  // namespace spx::python
