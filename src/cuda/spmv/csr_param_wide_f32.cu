// The parametrised CSR SpMV for float on 64-bit row offsets (WideDeviceCsr, six coop variants); the
// device code is csr_param_kernel.cuh, its offset arithmetic in int64_t.
#include "cuda/spmv/csr_param_kernel.cuh"

namespace spx::cuda {

template void launch_csr_param<float, float, int64_t>(Context&, const CsrSpmvParams&,
                                                      const CsrParamArgs<float, float, int64_t>&);

}  // namespace spx::cuda
