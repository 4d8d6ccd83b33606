// The plain-way CG baseline (issue 22): cuSPARSE SpMV (spx's CusparseSpmv wrapper, CSR ALG1) and
// cuBLAS vector calls in host pointer mode — dot products returned to the host each time, the way
// NVIDIA's conjugateGradient sample and most hand-written solvers do it. Jacobi through cublas*dgmm.
// CUDA builds only.
#pragma once

#include <cstdint>
#include <span>

#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"

namespace spx::bench {

struct VendorCgResult {
  int64_t iterations = 0;
  double residual = 0;  // ‖r‖ of the recurrence
  double rhs_norm = 0;
  double seconds = 0;  // the loop (setup of the SpMV descriptor excluded)
  bool converged = false;
};

// Solves A x = b from x = 0 until ‖r‖ <= rtol·‖b‖ or max_iterations; inv_diag empty: no
// preconditioner. All spans are device memory.
template <class T>
VendorCgResult vendor_cg(cuda::Context& ctx, const cuda::DeviceCsr<T, int32_t>& A,
                         std::span<const T> inv_diag, std::span<const T> b, std::span<T> x, double rtol,
                         int64_t max_iterations);

}  // namespace spx::bench
