// GEMM version 3 (double only): the launch of gemm_v3.cuh's kernel, one instantiation per
// (op_a, op_b) — the shared layouts follow the stored layouts — at the one configuration the H100
// measurements chose (docs/dgemm.md, "Version 3"), plus the launch-time knobs: the rasterization
// band and split-k for grids below one wave.
#include <algorithm>
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/gemm/gemm_launch.hpp"
#include "cuda/gemm/gemm_v3.cuh"

namespace spx::cuda::detail {
namespace {

using namespace gemm_v3;

// bk = 16, 4 slabs in flight, m16n8k4 (see docs/dgemm.md for the choice).
using V3Config = Config<16, 4, 4>;

// C = alpha * (sum of the splits' partials, in split order: deterministic) + beta * C.
__global__ void split_k_sum(const double* partial, int splits, int64_t m, int64_t n, double alpha,
                            double beta, double* C, int64_t ldc) {
  const int64_t mn = m * n;
  for (int64_t idx = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; idx < mn;
       idx += int64_t{gridDim.x} * blockDim.x) {
    double s = 0.0;
    for (int z = 0; z < splits; ++z) s += partial[z * mn + idx];
    double* c = C + idx % m + idx / m * ldc;
    *c = beta == 0.0 ? alpha * s : alpha * s + beta * *c;  // beta == 0 never reads C
  }
}

// The knobs actually used for one product (0 in V3Knobs means "choose"):
// - group_m: 8 tile rows per band. 132 resident blocks then cover ~8 × 16 tiles, close to the
//   square that minimises the A + B panels they read (docs/dgemm.md has the byte count).
// - split_k: only when the tiles leave SMs idle (fewer tiles than SMs), as many splits as fit in one
//   wave, each at least kMinSplitSlabs slabs deep so the 4-stage pipeline still fills.
struct Resolved {
  int group_m;
  int splits;
  int64_t k_split;
};
constexpr int kDefaultGroupM = 8;
constexpr int64_t kMinSplitSlabs = 16;
constexpr int kMaxSplits = 8;

Resolved resolve(const Context& ctx, const V3Knobs& knobs, int64_t m, int64_t n, int64_t k) {
  const int64_t tiles = ((m + kBM - 1) / kBM) * ((n + kBN - 1) / kBN);
  const int64_t slabs = (k + V3Config::kBK - 1) / V3Config::kBK;
  int64_t splits = knobs.split_k;
  if (splits <= 0) {
    const int64_t sms = std::max(1, ctx.props().sm_count);
    splits = tiles >= sms ? 1 : std::min({sms / tiles, slabs / kMinSplitSlabs, int64_t{kMaxSplits}});
  }
  splits = std::clamp<int64_t>(splits, 1, std::min<int64_t>(slabs, 64));  // grid y stays small
  // Whole slabs per split, so every split but the last runs only full slabs.
  const int64_t k_split = (slabs + splits - 1) / splits * V3Config::kBK;
  splits = (k + k_split - 1) / k_split;
  return {knobs.group_m > 0 ? knobs.group_m : kDefaultGroupM, static_cast<int>(splits), k_split};
}

template <bool kAKContig, bool kBKContig>
void launch(Context& ctx, const Operand& a, const Operand& b, int64_t m, int64_t n, int64_t k, double alpha,
            double beta, double* C, int64_t ldc, const Resolved& r) {
  constexpr int bytes = shared_bytes<V3Config, kAKContig, kBKContig>();
  const auto kernel = gemm_v3_kernel<V3Config, kAKContig, kBKContig>;
  // Over 48 KB of shared memory needs the opt-in, per device: set on every launch (a cheap
  // attribute write), so a second device gets it too.
  SPX_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  const int64_t tiles = ((m + kBM - 1) / kBM) * ((n + kBN - 1) / kBN);  // gemm.cpp checked < 2^31
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(r.splits));
  double* partial = nullptr;
  if (r.splits > 1)  // small by construction: fewer tiles than SMs
    partial =
        static_cast<double*>(ctx.workspace(static_cast<std::size_t>(r.splits * m * n) * sizeof(double)));
  kernel<<<grid, kThreads, bytes, ctx.stream()>>>(a, b, m, n, k, alpha, beta, C, ldc, r.group_m, r.k_split,
                                                  partial);
  SPX_CHECK_LAUNCH("gemm_v3_kernel", ctx.stream());
  if (partial != nullptr) {
    split_k_sum<<<grid_for_resident(ctx, m * n, 256, 4), 256, 0, ctx.stream()>>>(partial, r.splits, m, n,
                                                                                 alpha, beta, C, ldc);
    SPX_CHECK_LAUNCH("gemm_v3 split_k_sum", ctx.stream());
  }
}

}  // namespace

void launch_gemm_v3(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc, const V3Knobs& knobs) {
  // Stored shapes: A is m × k (op N) or k × m (op T); B is k × n (op N) or n × k (op T).
  const bool a_kc = op_a == Op::T, b_kc = op_b == Op::N;
  const Operand a = a_kc ? operand(A, lda, k, m) : operand(A, lda, m, k);
  const Operand b = b_kc ? operand(B, ldb, k, n) : operand(B, ldb, n, k);
  const Resolved r = resolve(ctx, knobs, m, n, k);
  if (a_kc && b_kc) return launch<true, true>(ctx, a, b, m, n, k, alpha, beta, C, ldc, r);
  if (a_kc) return launch<true, false>(ctx, a, b, m, n, k, alpha, beta, C, ldc, r);
  if (b_kc) return launch<false, true>(ctx, a, b, m, n, k, alpha, beta, C, ldc, r);
  launch<false, false>(ctx, a, b, m, n, k, alpha, beta, C, ldc, r);
}

}  // namespace spx::cuda::detail
