// Unchecked launchers of the ELL and COO SpMV kernels, shared by their entry points and by HYB
// (hyb.cu runs the ELL kernel with beta, then the COO kernel with beta = 1). The entry points in
// spmv_formats.hpp do the size checks and the alpha == 0 shortcut; these only enqueue kernels.
#pragma once

#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmv_formats.hpp"

namespace spx::cuda::detail {

// y = alpha*A*x + beta*y for A.rows > 0 (alpha may be anything; A and x are read).
template <class T, class I>
void launch_spmv_ell(Context& ctx, const DeviceEll<T, I>& A, const T* x, T* y, T alpha, T beta);

// Same for a COO sorted by row; config already checked. Uses ctx.workspace() in deterministic mode.
template <class T, class I>
void launch_spmv_coo(Context& ctx, const DeviceCoo<T, I>& A, const T* x, T* y, T alpha, T beta,
                     const CooParams& config);

}  // namespace spx::cuda::detail
