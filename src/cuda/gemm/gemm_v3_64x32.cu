// Version 3 at 64 × 32 tiles (small grids, n of a few dozen): 4 warps of 32 × 16, 32-deep slabs
// (m16n8k8 DMMAs, 16 per warp per barrier), 3 stages (at most 80 KB), two blocks per SM, the next
// step's fragments loaded after each row's DMMAs (kFragsAfterRow: 2.6% over loading them before the
// step, spx_gemm_configs). docs/dgemm.md, "Shape classes".
#include "cuda/gemm/gemm_v3_launch.cuh"

namespace spx::cuda::detail {

template <>
void launch_v3_tile<GemmTile::T64x32>(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                                      double alpha, const double* A, int64_t lda, const double* B,
                                      int64_t ldb, double beta, double* C, int64_t ldc, const V3Grid& grid) {
  using Cfg = gemm_v3::TileConfig<GemmTile::T64x32, 2, 2, 3, 8, gemm_v3::kFragsAfterRow>;
  gemm_v3::launch_tile<Cfg>(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, grid);
}

}  // namespace spx::cuda::detail
