// GEMM version 1: Tan et al.'s CUDA-core blocking (docs/dgemm.md derives the sizes for the H100).
//
// One block of 256 threads computes a kBM × kBN = 128 × 128 tile of C. op(A) and op(B) stream
// through shared memory in kBK = 8 deep slabs, double-buffered: while the block multiplies slab s
// from one buffer, each thread already holds slab s+1's elements in registers (loaded from global
// memory before the multiply, so the loads' latency hides behind it) and stores them into the
// other buffer afterwards — one __syncthreads per slab (the paper's register prefetching,
// Algorithm 2, feeding its §4.2 double buffer in shared memory).
// Each thread accumulates an kRX × kRY = 8 × 8 register tile of C: 64 FMAs per 16 shared-memory
// loads, which the shared→register level of the bandwidth model requires.
//
// Transposes are handled in the loader alone (gemm_slab.cuh): both slabs sit in shared memory as
// [k][m] and [k][n] whatever op is, so the multiply loop has one form.

#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/gemm/gemm_launch.hpp"
#include "cuda/gemm/gemm_slab.cuh"

namespace spx::cuda::detail {
namespace {

using namespace gemm_slab;

constexpr int kRX = 8, kRY = 8;
constexpr int kTX = kBM / kRX;  // threads along m: 16
static_assert(kTX * (kBN / kRY) == kThreads, "one 8 x 8 register tile per thread");

template <class T>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_v1_kernel(Operand<T> a, Operand<T> b, int64_t m, int64_t n, int64_t k, T alpha, T beta, T* C,
                   int64_t ldc) {
  __shared__ __align__(16) T As[2][kBK][kRow];
  __shared__ __align__(16) T Bs[2][kBK][kRow];
  const int tx = static_cast<int>(threadIdx.x) % kTX, ty = static_cast<int>(threadIdx.x) / kTX;
  const int64_t m0 = int64_t{blockIdx.x} * kBM, n0 = int64_t{blockIdx.y} * kBN;

  // Thread (tx, ty) owns rows m0 + tx + 16i and columns n0 + ty + 16j: the 16 threads of a
  // half-warp read 16 consecutive elements of the A slab (one conflict-free wavefront) and two
  // B elements (broadcast).
  T acc[kRX][kRY];
#pragma unroll
  for (int i = 0; i < kRX; ++i)
#pragma unroll
    for (int j = 0; j < kRY; ++j) acc[i][j] = T{0};

  typename Vec<T>::type sa[kLoads<T>], sb[kLoads<T>];
  load_slab(a, m0, 0, sa);
  load_slab(b, n0, 0, sb);
  store_slab<T>(a.k_is_row, sa, As[0]);
  store_slab<T>(b.k_is_row, sb, Bs[0]);
  __syncthreads();

  const int64_t slabs = (k + kBK - 1) / kBK;
  for (int64_t s = 0; s < slabs; ++s) {
    const int buf = static_cast<int>(s & 1);
    const bool more = s + 1 < slabs;
    if (more) {  // issue the next slab's global loads now; they land while we multiply
      load_slab(a, m0, (s + 1) * kBK, sa);
      load_slab(b, n0, (s + 1) * kBK, sb);
    }
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      T ra[kRX], rb[kRY];
#pragma unroll
      for (int i = 0; i < kRX; ++i) ra[i] = As[buf][kk][tx + kTX * i];
#pragma unroll
      for (int j = 0; j < kRY; ++j) rb[j] = Bs[buf][kk][ty + (kBN / kRY) * j];
#pragma unroll
      for (int i = 0; i < kRX; ++i)
#pragma unroll
        for (int j = 0; j < kRY; ++j) acc[i][j] = fma(ra[i], rb[j], acc[i][j]);
    }
    if (more) {  // the other buffer was last read before the previous iteration's barrier
      store_slab<T>(a.k_is_row, sa, As[buf ^ 1]);
      store_slab<T>(b.k_is_row, sb, Bs[buf ^ 1]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int j = 0; j < kRY; ++j) {
    const int64_t col = n0 + ty + (kBN / kRY) * j;
    if (col >= n) continue;
#pragma unroll
    for (int i = 0; i < kRX; ++i) {
      const int64_t row = m0 + tx + kTX * i;
      if (row >= m) continue;
      T* c = C + row + col * ldc;
      // beta == 0 must not read C: NaN there may not leak into the result.
      *c = beta == T{0} ? alpha * acc[i][j] : alpha * acc[i][j] + beta * *c;
    }
  }
}

}  // namespace

template <class T>
void launch_gemm_v1(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
                    int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  // A is m × k as stored for N (rows along m), k × m for T (rows along k); B the other way round.
  const Operand<T> a = operand(A, lda, m, k, op_a == Op::T);
  const Operand<T> b = operand(B, ldb, n, k, op_b == Op::N);
  const dim3 grid(static_cast<unsigned>((m + kBM - 1) / kBM), static_cast<unsigned>((n + kBN - 1) / kBN));
  gemm_v1_kernel<T><<<grid, kThreads, 0, ctx.stream()>>>(a, b, m, n, k, alpha, beta, C, ldc);
  SPX_CHECK_LAUNCH("gemm_v1_kernel", ctx.stream());
}

template void launch_gemm_v1(Context&, Op, Op, int64_t, int64_t, int64_t, float, const float*, int64_t,
                             const float*, int64_t, float, float*, int64_t);
template void launch_gemm_v1(Context&, Op, Op, int64_t, int64_t, int64_t, double, const double*, int64_t,
                             const double*, int64_t, double, double*, int64_t);

}  // namespace spx::cuda::detail
