// Driver-only: version 3 configurations besides the library's, NN layout (A [k][m], B [n][k] in
// shared memory), to choose bk / stages / MMA k on the H100.
#include <cstdint>
#include <cstdio>

#include "cuda/gemm/gemm_v3.cuh"

namespace gv = spx::cuda::detail::gemm_v3;

template <int BK, int S, int MK>
static void run_cfg(const double* A, int64_t lda, const double* B, int64_t ldb, double* C, int64_t ldc,
                    int64_t m, int64_t n, int64_t k, double alpha, double beta, cudaStream_t st) {
  using Cfg = gv::Config<BK, S, MK>;
  constexpr int bytes = gv::shared_bytes<Cfg, false, true>();
  auto kernel = gv::gemm_v3_kernel<Cfg, false, true>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  const dim3 grid(static_cast<unsigned>((m + 127) / 128), static_cast<unsigned>((n + 127) / 128));
  kernel<<<grid, gv::kThreads, bytes, st>>>(gv::operand(A, lda, m, k), gv::operand(B, ldb, k, n), m, n, k,
                                            alpha, beta, C, ldc);
}

using VariantFn = void (*)(const double*, int64_t, const double*, int64_t, double*, int64_t, int64_t, int64_t,
                           int64_t, double, double, cudaStream_t);
struct Variant {
  const char* name;
  VariantFn fn;
};
extern const Variant kVariants[] = {{"v3 bk16 s4 k8", run_cfg<16, 4, 8>},
                                    {"v3 bk16 s3 k4", run_cfg<16, 3, 4>},
                                    {"v3 bk32 s3 k4", run_cfg<32, 3, 4>},
                                    {"v3 bk32 s3 k8", run_cfg<32, 3, 8>},
                                    {"v3 bk32 s2 k4", run_cfg<32, 2, 4>},
                                    {"v3 bk16 s6 k4", run_cfg<16, 6, 4>},
                                    {nullptr, nullptr}};
