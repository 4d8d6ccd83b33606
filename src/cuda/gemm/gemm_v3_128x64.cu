// Version 3 at 128 × 64 tiles (mid-size and short-k grids): 8 warps of 32 × 32 (32 accumulator
// doubles per lane), bk = 16, 3 stages (at most 92 KB of shared memory), two blocks per SM, so one
// block's C stores overlap the other's DMMAs. docs/dgemm.md, "Shape classes".
#include "cuda/gemm/gemm_v3_launch.cuh"

namespace spx::cuda::detail {

template <>
void launch_v3_tile<GemmTile::T128x64>(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                                       double alpha, const double* A, int64_t lda, const double* B,
                                       int64_t ldb, double beta, double* C, int64_t ldc, const V3Grid& grid) {
  using Cfg = gemm_v3::TileConfig<GemmTile::T128x64, 4, 2, 3, 4>;
  gemm_v3::launch_tile<Cfg>(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, grid);
}

}  // namespace spx::cuda::detail
