// The parametrised CSR SpMV for float (six coop variants); the device code is csr_param_kernel.cuh.
#include "cuda/spmv/csr_param_kernel.cuh"

namespace spx::cuda {

template void launch_csr_param<float>(Context&, const CsrSpmvParams&, const CsrParamArgs<float>&);

}  // namespace spx::cuda
