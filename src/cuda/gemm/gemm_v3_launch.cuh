// The launch of one version-3 tile shape (gemm_v3.cuh's kernel at Config Cfg), one instantiation
// per (op_a, op_b): the shared layouts follow the stored layouts. Included by gemm_v3_<tile>.cu.
#pragma once

#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/gemm/gemm_launch.hpp"
#include "cuda/gemm/gemm_v3.cuh"

namespace spx::cuda::detail::gemm_v3 {

// The kernel of `kTile`: its extents and resident blocks per SM from kGemmTileTable (gemm.hpp), the
// warp grid, pipeline depth, DMMA k and fragment buffering per tile (its file says why).
template <GemmTile kTile, int WarpsM, int WarpsN, int Stages, int MmaK, int FragBufs = kFragsNextStep>
using TileConfig =
    Config<gemm_tile_row(kTile)->shape.bm, gemm_tile_row(kTile)->shape.bn, WarpsM, WarpsN,
           gemm_tile_row(kTile)->shape.bk, Stages, MmaK, gemm_tile_row(kTile)->blocks_per_sm, FragBufs>;

// Both operands 16-byte copyable run the kernel whose loop has only 16-byte copies; otherwise the
// one that chooses each operand's copy width at run time.
template <class Cfg, bool kAKContig, bool kBKContig>
void launch_ops(Context& ctx, const Operand& a, const Operand& b, int64_t m, int64_t n, int64_t k,
                double alpha, double beta, double* C, int64_t ldc, const V3Grid& g) {
  constexpr int bytes = shared_bytes<Cfg, kAKContig, kBKContig>();
  const auto kernel = a.vec_ok && b.vec_ok ? gemm_v3_kernel<Cfg, kAKContig, kBKContig, true>
                                           : gemm_v3_kernel<Cfg, kAKContig, kBKContig, false>;
  // Over 48 KB of shared memory needs the opt-in, per device: set on every launch (a cheap
  // attribute write), so a second device gets it too.
  SPX_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  // gemm.cpp checked that the tiles fit a 1-D grid (< 2^31) and the splits a grid's y (<= 65535).
  const int64_t tiles = ((m + Cfg::kBM - 1) / Cfg::kBM) * ((n + Cfg::kBN - 1) / Cfg::kBN);
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(g.splits));
  kernel<<<grid, Cfg::kThreads, bytes, ctx.stream()>>>(a, b, m, n, k, alpha, beta, C, ldc, g.group_m,
                                                       g.k_split, g.partial);
  SPX_CHECK_LAUNCH("gemm_v3_kernel", ctx.stream());
}

template <class Cfg>
void launch_tile(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                 const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                 int64_t ldc, const V3Grid& g) {
  // Stored shapes: A is m × k (op N) or k × m (op T); B is k × n (op N) or n × k (op T).
  const bool a_kc = op_a == Op::T, b_kc = op_b == Op::N;
  const Operand a = a_kc ? operand(A, lda, k, m) : operand(A, lda, m, k);
  const Operand b = b_kc ? operand(B, ldb, k, n) : operand(B, ldb, n, k);
  if (a_kc && b_kc) return launch_ops<Cfg, true, true>(ctx, a, b, m, n, k, alpha, beta, C, ldc, g);
  if (a_kc) return launch_ops<Cfg, true, false>(ctx, a, b, m, n, k, alpha, beta, C, ldc, g);
  if (b_kc) return launch_ops<Cfg, false, true>(ctx, a, b, m, n, k, alpha, beta, C, ldc, g);
  launch_ops<Cfg, false, false>(ctx, a, b, m, n, k, alpha, beta, C, ldc, g);
}

}  // namespace spx::cuda::detail::gemm_v3
