// Version 3 at 128 × 128 tiles (large grids): 8 warps of 64 × 32, bk = 16, 4 stages, one block per
// SM (228 registers: the accumulators alone are 128), the next step's fragments loaded after each
// row's DMMAs (kFragsAfterRow: 3.8% over loading them before the step, spx_gemm_configs, docs/dgemm.md).
#include "cuda/gemm/gemm_v3_launch.cuh"

namespace spx::cuda::detail {

template <>
void launch_v3_tile<GemmTile::T128x128>(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                                        double alpha, const double* A, int64_t lda, const double* B,
                                        int64_t ldb, double beta, double* C, int64_t ldc,
                                        const V3Grid& grid) {
  using Cfg = gemm_v3::TileConfig<GemmTile::T128x128, 2, 4, 4, 4, gemm_v3::kFragsAfterRow>;
  gemm_v3::launch_tile<Cfg>(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, grid);
}

}  // namespace spx::cuda::detail
