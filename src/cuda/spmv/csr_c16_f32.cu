// The CSR-C16 SpMV for float (six coop variants); the device code is csr_c16_kernel.cuh.
#include "cuda/spmv/csr_c16_kernel.cuh"

namespace spx::cuda {

template void launch_csr_c16<float>(Context&, const CsrSpmvParams&, const CsrC16Args<float>&);

}  // namespace spx::cuda
