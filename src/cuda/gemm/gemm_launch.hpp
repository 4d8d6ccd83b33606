// Between the host entry point (gemm.cpp: checks, trivial cases) and the kernel files (.cu: no
// fmt, see launch.hpp). Operands are already validated when these run; m, n, k > 0, alpha != 0.
#pragma once

#include <cstdint>

#include "spx/cpu.hpp"
#include "spx/cuda/context.hpp"

namespace spx::cuda::detail {

// All versions tile C in kGemmTile × kGemmTile blocks; the grid's y extent (n tiles) is at most 65535.
inline constexpr int kGemmTile = 128;

template <class T>
void launch_gemm_v1(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
                    int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc);

// FP64 only: the FP64 tensor cores (DMMA) have no float form that keeps fp32 accuracy.
void launch_gemm_v2(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc);

// Version 3's launch-time knobs (data, not template parameters); 0 = the library's choice
// (gemm_v3.cu: a band of 8 tile rows; split-k only for grids of fewer tiles than SMs).
struct V3Knobs {
  int group_m = 0;  // tile rows (m) a band of consecutive blocks walks before moving along n
  int split_k = 0;  // k splits (1: none); each split's partial goes to ctx.workspace()
};

// FP64 only: version 3, the multi-stage cp.async pipeline (gemm_v3.cuh).
void launch_gemm_v3(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc, const V3Knobs& knobs = {});

}  // namespace spx::cuda::detail
