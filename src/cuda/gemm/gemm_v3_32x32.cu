// Version 3 at 32 × 32 tiles (the smallest grids; long k over a small C, split over every SM): 4 warps
// of 16 × 16, 32-deep slabs (m16n8k8), 4 stages (at most 74 KB), three blocks per SM.
// docs/dgemm.md, "Shape classes".
#include "cuda/gemm/gemm_v3_launch.cuh"

namespace spx::cuda::detail {

template <>
void launch_v3_tile<GemmTile::T32x32>(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                                      double alpha, const double* A, int64_t lda, const double* B,
                                      int64_t ldb, double beta, double* C, int64_t ldc, const V3Grid& grid) {
  using Cfg = gemm_v3::TileConfig<GemmTile::T32x32, 2, 2, 4, 8>;
  gemm_v3::launch_tile<Cfg>(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, grid);
}

}  // namespace spx::cuda::detail
