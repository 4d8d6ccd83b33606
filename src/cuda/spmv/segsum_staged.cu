// The segmented-sum SpMV's tile kernels that stage each tile's values and column indices in shared
// memory by cp.async (SegsumSpmvParams::stage_tiles), in a translation unit of their own
// (segsum_tile.cuh says why).
#include "cuda/spmv/segsum_tile.cuh"

namespace spx::cuda::detail {

template <class T>
void launch_segsum_staged_tiles(Context& ctx, const SegsumArgs<T>& a) {
  launch_segsum_tiles<T, true>(ctx, a);
}

template void launch_segsum_staged_tiles(Context&, const SegsumArgs<float>&);
template void launch_segsum_staged_tiles(Context&, const SegsumArgs<double>&);

}  // namespace spx::cuda::detail
