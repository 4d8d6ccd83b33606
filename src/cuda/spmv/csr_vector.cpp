// CSR-vector (Bell & Garland 2008): one warp per row. Not a kernel of its own: the parametrised
// kernel with coop = 32, repeat = 1 (kCsrVectorParams), kept as a named entry point because it
// is the textbook baseline the papers compare against.
#include <cstdint>

#include "spx/cuda/spmv_csr.hpp"

namespace spx::cuda {

template <class T>
void spmv_csr_vector(Context& ctx, const DeviceCsr<T, int32_t>& dA, std::span<const T> x, std::span<T> y,
                     T alpha, T beta) {
  spmv_csr_params(ctx, kCsrVectorParams, dA, x, y, alpha, beta);
}

template void spmv_csr_vector(Context&, const DeviceCsr<float, int32_t>&, std::span<const float>,
                              std::span<float>, float, float);
template void spmv_csr_vector(Context&, const DeviceCsr<double, int32_t>&, std::span<const double>,
                              std::span<double>, double, double);

}  // namespace spx::cuda
