// detail::widen_indices (widen.hpp).
#include <algorithm>

#include "cuda/common/check.hpp"
#include "cuda/formats/widen.hpp"

namespace spx::cuda::detail {
namespace {

__global__ void widen_kernel(const int32_t* __restrict__ in, int64_t* __restrict__ out, int64_t n) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i];
}

}  // namespace

void widen_indices(Context& ctx, const int32_t* in, int64_t* out, int64_t n) {
  if (n <= 0) return;
  constexpr int kBlock = 256;
  // A grid of at most 2^20 blocks strides over the rest (n can pass 2^31).
  const int64_t blocks = std::min<int64_t>((n + kBlock - 1) / kBlock, int64_t{1} << 20);
  widen_kernel<<<static_cast<unsigned>(blocks), kBlock, 0, ctx.stream()>>>(in, out, n);
  SPX_CHECK_LAUNCH("widen_kernel", ctx.stream());
}

}  // namespace spx::cuda::detail
