// The parametrised CSR SpMV for double (six coop variants); the device code is csr_param_kernel.cuh.
#include "cuda/spmv/csr_param_kernel.cuh"

namespace spx::cuda {

template void launch_csr_param<double>(Context&, const CsrSpmvParams&, const CsrParamArgs<double>&);

}  // namespace spx::cuda
