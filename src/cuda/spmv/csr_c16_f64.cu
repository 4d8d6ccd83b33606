// The CSR-C16 SpMV for double (six coop variants); the device code is csr_c16_kernel.cuh.
#include "cuda/spmv/csr_c16_kernel.cuh"

namespace spx::cuda {

template void launch_csr_c16<double>(Context&, const CsrSpmvParams&, const CsrC16Args<double>&);

}  // namespace spx::cuda
