// Internals of the FEM problem shared by its files (fem_local, fem_assemble, fem_elements).
#pragma once

#include <cstdint>
#include <vector>

#include "spx/fem.hpp"

namespace spx::fem::detail {

// Every element's full local matrix in double, element-major: element (ex, ey) = ex + n·ey holds
// K[(ex + n·ey)·m² + i·m + j]; local node i = a + (p + 1)·b sits at global node (ex·p + a, ey·p + b).
std::vector<double> local_matrices(const FemSpec& spec);

// The unknown of global node (gx, gy) on the (n·p + 1)² grid, or -1 on the boundary.
inline int64_t dof_of(int64_t gx, int64_t gy, int64_t g) {
  if (gx <= 0 || gy <= 0 || gx >= g - 1 || gy >= g - 1) return -1;
  return (gx - 1) + (g - 2) * (gy - 1);
}

}  // namespace spx::fem::detail
