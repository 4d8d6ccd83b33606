// Between the host entry point (gemm.cpp: checks, trivial cases) and the kernel files (.cu: no
// fmt, see launch.hpp). Operands are already validated when these run; m, n, k > 0, alpha != 0.
#pragma once

#include <cstdint>

#include "spx/cpu.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/gemm.hpp"

namespace spx::cuda::detail {

// Versions 1 and 2 tile C in kGemmTile × kGemmTile blocks (a 2-D grid: at most 65535 tiles along n);
// version 3 takes its tile from V3Launch.
inline constexpr int kGemmTile = 128;

template <class T>
void launch_gemm_v1(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
                    int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc);

// FP64 only: the FP64 tensor cores (DMMA) have no float form that keeps fp32 accuracy.
void launch_gemm_v2(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc);

// Version 3's launch, resolved (gemm.cpp fills it from GemmParams and the plan rule,
// src/plan/gemm_rule.cpp): the tile shape, the rasterization band, and the k splits.
struct V3Launch {
  GemmTile tile = GemmTile::T128x128;
  int group_m = 8;  // tile rows (m) a band of consecutive blocks walks before moving along n
  int split_k = 1;  // k splits (1: none); each split's partial goes to ctx.workspace()
};

// FP64 only: version 3, the multi-stage cp.async pipeline (gemm_v3.cuh).
void launch_gemm_v3(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc, const V3Launch& launch);

// One tile shape's kernel (gemm_v3_<tile>.cu, one file each so they compile in parallel): split
// `splits` > 1 writes raw partials to `partial` (splits × m × n) instead of C.
struct V3Grid {
  int group_m;
  int splits;
  int64_t k_split;  // k per split, a multiple of the tile's slab depth
  double* partial;  // null without split
};
// Specialised once per GemmTile (other than Auto) in that tile's file.
template <GemmTile Tile>
void launch_v3_tile(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc, const V3Grid& grid);
// The specialisations, declared before any use (gemm_v3.cu) as the language asks.
#define SPX_GEMM_V3_TILE(TILE)                                                                            \
  template <>                                                                                             \
  void launch_v3_tile<GemmTile::TILE>(Context&, Op, Op, int64_t, int64_t, int64_t, double, const double*, \
                                      int64_t, const double*, int64_t, double, double*, int64_t,          \
                                      const V3Grid&)
SPX_GEMM_V3_TILE(T128x128);
SPX_GEMM_V3_TILE(T128x64);
SPX_GEMM_V3_TILE(T64x64);
SPX_GEMM_V3_TILE(T64x32);
SPX_GEMM_V3_TILE(T32x64);
SPX_GEMM_V3_TILE(T32x32);
#undef SPX_GEMM_V3_TILE

}  // namespace spx::cuda::detail
