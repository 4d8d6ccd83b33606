// GEMM version 2 (double only): the FP64 tensor cores behind version 1's slab pipeline.
//
// Same block tile (128 × 128), same bk = 8 slabs in padded shared memory, same register double
// buffering (gemm_slab.cuh); the multiply is mma.sync.aligned.m8n8k4.row.col.f64 (SASS: DMMA.884)
// instead of DFMA. The 8 warps form a 2 (m) × 4 (n) grid, each warp owning a 64 × 32 tile of C
// as 8 × 4 accumulator fragments (2 doubles per lane each: 128 registers). Per k step of 4 a warp
// loads 8 A and 4 B fragments (one double per lane each) from shared memory and issues 32 DMMAs.
//
// Fragment layouts (PTX ISA, "Matrix fragments for mma.m8n8k4 with .f64"): A (8 × 4, row) —
// lane holds A[lane / 4][lane % 4]; B (4 × 8, col) — B[lane % 4][lane / 4]; C (8 × 8) —
// C[lane / 4][2 (lane % 4) + {0, 1}]. With slabs stored [k][outer] and rows kRow = 132 doubles
// apart, the 16 lanes of a half-warp (one 64-bit shared-load wavefront) read rows k..k+3 at
// 4-double bank offsets, 4 consecutive doubles each: 32 distinct banks, no conflict.
//
// Not yet the issue's goal: no cp.async/TMA multi-stage pipeline, no larger warp tiles (see
// docs/dgemm.md for the bandwidth estimate of this tiling).
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/gemm/gemm_launch.hpp"
#include "cuda/gemm/gemm_slab.cuh"

namespace spx::cuda::detail {
namespace {

using namespace gemm_slab;

constexpr int kWarpsM = 2, kWarpsN = 4;
constexpr int kWM = kBM / kWarpsM, kWN = kBN / kWarpsN;  // 64 × 32 per warp
constexpr int kTM = kWM / 8, kTN = kWN / 8;              // 8 × 4 fragments of 8 × 8
constexpr int kMmaK = 4;
static_assert(kWarpsM * kWarpsN * 32 == kThreads, "one warp per 64 x 32 tile");
static_assert(kBK % kMmaK == 0, "whole m8n8k4 steps per slab");

// d += a * b over one 8 × 8 × 4 tile, the warp's 32 lanes together.
__device__ __forceinline__ void dmma_m8n8k4(double (&d)[2], double a, double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a), "d"(b));
}

__global__ void __launch_bounds__(kThreads, 1)
    gemm_v2_kernel(Operand<double> a, Operand<double> b, int64_t m, int64_t n, int64_t k, double alpha,
                   double beta, double* C, int64_t ldc) {
  __shared__ __align__(16) double As[2][kBK][kRow];
  __shared__ __align__(16) double Bs[2][kBK][kRow];
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int wm = warp % kWarpsM, wn = warp / kWarpsM;
  const int frag_k = lane % 4, frag_o = lane / 4;  // this lane's (k, outer) in an A or B fragment
  const int64_t m0 = int64_t{blockIdx.x} * kBM, n0 = int64_t{blockIdx.y} * kBN;

  double acc[kTM][kTN][2];
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j][0] = acc[i][j][1] = 0.0;

  typename Vec<double>::type sa[kLoads<double>], sb[kLoads<double>];
  load_slab(a, m0, 0, sa);
  load_slab(b, n0, 0, sb);
  store_slab<double>(a.k_is_row, sa, As[0]);
  store_slab<double>(b.k_is_row, sb, Bs[0]);
  __syncthreads();

  const int64_t slabs = (k + kBK - 1) / kBK;
  for (int64_t s = 0; s < slabs; ++s) {
    const int buf = static_cast<int>(s & 1);
    const bool more = s + 1 < slabs;
    if (more) {  // the next slab's global loads fly while the tensor cores work
      load_slab(a, m0, (s + 1) * kBK, sa);
      load_slab(b, n0, (s + 1) * kBK, sb);
    }
#pragma unroll
    for (int kk = 0; kk < kBK; kk += kMmaK) {
      double fa[kTM], fb[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i) fa[i] = As[buf][kk + frag_k][wm * kWM + i * 8 + frag_o];
#pragma unroll
      for (int j = 0; j < kTN; ++j) fb[j] = Bs[buf][kk + frag_k][wn * kWN + j * 8 + frag_o];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) dmma_m8n8k4(acc[i][j], fa[i], fb[j]);
    }
    if (more) {
      store_slab<double>(a.k_is_row, sa, As[buf ^ 1]);
      store_slab<double>(b.k_is_row, sb, Bs[buf ^ 1]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int64_t row = m0 + wm * kWM + i * 8 + lane / 4;
    if (row >= m) continue;
#pragma unroll
    for (int j = 0; j < kTN; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int64_t col = n0 + wn * kWN + j * 8 + 2 * (lane % 4) + e;
        if (col >= n) continue;
        double* c = C + row + col * ldc;
        // beta == 0 must not read C: NaN there may not leak into the result.
        *c = beta == 0.0 ? alpha * acc[i][j][e] : alpha * acc[i][j][e] + beta * *c;
      }
  }
}

}  // namespace

void launch_gemm_v2(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc) {
  const Operand<double> a = operand(A, lda, m, k, op_a == Op::T);
  const Operand<double> b = operand(B, ldb, n, k, op_b == Op::N);
  const dim3 grid(static_cast<unsigned>((m + kBM - 1) / kBM), static_cast<unsigned>((n + kBN - 1) / kBN));
  gemm_v2_kernel<<<grid, kThreads, 0, ctx.stream()>>>(a, b, m, n, k, alpha, beta, C, ldc);
  SPX_CHECK_LAUNCH("gemm_v2_kernel", ctx.stream());
}

}  // namespace spx::cuda::detail
