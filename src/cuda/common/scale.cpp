#include "cuda/common/scale.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuda/common/check.hpp"

namespace spx::cuda {

template <class T>
void scale_in_place(Context& ctx, T* y, std::size_t n, T beta) {
  if (n == 0) return;
  if (n > static_cast<std::size_t>(std::numeric_limits<int64_t>::max()))
    throw Error(fmt::format("scale_in_place: {} elements are too many", n));
  scale_in_place(ctx, y, static_cast<int64_t>(n), int64_t{1}, static_cast<int64_t>(n), beta);
}

template <class T>
void scale_in_place(Context& ctx, T* data, int64_t inner, int64_t outer, int64_t ld, T beta) {
  if (inner <= 0 || outer <= 0 || beta == T{1}) return;
  if (beta == T{0}) {
    // All-zero bits are +0.0 for float and double.
    SPX_CUDA_CHECK(cudaMemset2DAsync(data, static_cast<std::size_t>(ld) * sizeof(T), 0,
                                     static_cast<std::size_t>(inner) * sizeof(T),
                                     static_cast<std::size_t>(outer), ctx.stream()));
    return;
  }
  // geam in place (C = 0*C + beta*C, allowed when C aliases A and B with the same ld and no
  // transpose): one call for the whole strided matrix.
  const T zero = 0;
  if constexpr (std::is_same_v<T, float>)
    SPX_CUBLAS_CHECK(cublasSgeam_64(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, inner, outer, &zero, data, ld,
                                    &beta, data, ld, data, ld));
  else
    SPX_CUBLAS_CHECK(cublasDgeam_64(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, inner, outer, &zero, data, ld,
                                    &beta, data, ld, data, ld));
}

template void scale_in_place(Context&, float*, std::size_t, float);
template void scale_in_place(Context&, double*, std::size_t, double);
template void scale_in_place(Context&, float*, int64_t, int64_t, int64_t, float);
template void scale_in_place(Context&, double*, int64_t, int64_t, int64_t, double);

}  // namespace spx::cuda
