// The parametrised CSR SpMV with float values under double x, y and sums (csr_param_mixed, the
// opt-in mixed precision): the device code is csr_param_kernel.cuh, values widened per multiply.
#include "cuda/spmv/csr_param_kernel.cuh"

namespace spx::cuda {

template void launch_csr_param<double, float>(Context&, const CsrSpmvParams&,
                                              const CsrParamArgs<double, float>&);

}  // namespace spx::cuda
