// Host entry point of spx::cuda::gemm: operand checks (the reference BLAS rules, as CublasGemm
// applies them), the trivial shapes, then the chosen version's launch.
#include "spx/cuda/gemm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "cuda/common/scale.hpp"
#include "cuda/gemm/gemm_launch.hpp"
#include "spx/cuda/rules.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

void check_ld(const char* who, const char* name, int64_t ld, int64_t stored_rows) {
  if (ld < std::max<int64_t>(1, stored_rows))
    throw Error(fmt::format("{}: ld{} = {} is less than the {} rows it stores", who, name, ld, stored_rows));
}

// Version 3's launch: the caller's tile and split factor where given, the plan rule's otherwise
// (gemm_plan, which `spx gemm` prints).
detail::V3Launch resolve_v3(const Context& ctx, const GemmParams& params, int64_t m, int64_t n, int64_t k,
                            bool reads_c) {
  const GemmChoice plan = gemm_plan(m, n, k, reads_c, ctx.props(), params);
  detail::V3Launch launch;
  launch.tile = plan.tile;
  launch.split_k = plan.split_k;
  return launch;
}

}  // namespace

const char* kernel_name(GemmVersion version) {
  switch (version) {
    case GemmVersion::Auto:
      return "spx_gemm";
    case GemmVersion::CudaCoreV1:
      return "spx_gemm_v1";
    case GemmVersion::TensorCoreV2:
      return "spx_gemm_v2";
    case GemmVersion::TensorCoreV3:
      return "spx_gemm_v3";
  }
  throw Error("spx::cuda::gemm: unknown GemmVersion");
}

template <class T>
void gemm(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda,
          const T* B, int64_t ldb, T beta, T* C, int64_t ldc, const GemmParams& params) {
  const GemmVersion version = resolve_gemm_version<T>(params.version);
  const char* who = kernel_name(version);
  constexpr bool is_double = std::is_same_v<T, double>;
  const bool tensor = version == GemmVersion::TensorCoreV2 || version == GemmVersion::TensorCoreV3;
  if (tensor && !is_double)
    throw Error(fmt::format("{}: FP64 tensor cores only; float needs GemmVersion::CudaCoreV1", who));
  if (m < 0 || n < 0 || k < 0)
    throw Error(fmt::format("{}: sizes m={} n={} k={} must be non-negative", who, m, n, k));
  if (params.split_k < 0 || params.split_k > kMaxGemmSplitK)
    throw Error(fmt::format("{}: split_k = {} is outside [0, {}] (0: the rule's choice)", who, params.split_k,
                            kMaxGemmSplitK));
  if ((params.tile != GemmTile::Auto || params.split_k != 0) && version != GemmVersion::TensorCoreV3)
    throw Error(fmt::format("{}: tile {} and split_k {} are version 3's knobs (f64, TensorCoreV3 or Auto)",
                            who, gemm_tile_name(params.tile), params.split_k));
  check_ld(who, "a", lda, op_a == Op::N ? m : k);
  check_ld(who, "b", ldb, op_b == Op::N ? k : n);
  check_ld(who, "c", ldc, m);
  if (m == 0 || n == 0) return;
  // BLAS convention: no product to add, so A and B are not read; beta == 0 writes zeros unread.
  if (k == 0 || alpha == T{0}) return scale_in_place(ctx, C, m, n, ldc, beta);
  if constexpr (is_double) {
    if (version == GemmVersion::TensorCoreV3) {
      const detail::V3Launch launch = resolve_v3(ctx, params, m, n, k, beta != 0.0);
      // A 1-D grid of all tiles (at most 2^31 - 1), splits in y.
      const GemmTileShape ts = gemm_tile_shape(launch.tile);
      const int64_t tiles_m = (m + ts.bm - 1) / ts.bm, tiles_n = (n + ts.bn - 1) / ts.bn;
      if (tiles_m > int64_t{0x7fffffff} / tiles_n)
        throw Error(fmt::format("{}: {} x {} needs more {} tiles than a grid holds", who, m, n,
                                gemm_tile_name(launch.tile)));
      return detail::launch_gemm_v3(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, launch);
    }
  }
  // v1/v2: a 2-D grid of 128 × 128 tiles (n tiles in y, at most 65535).
  const int64_t tile = detail::kGemmTile, tiles_m = (m + tile - 1) / tile, tiles_n = (n + tile - 1) / tile;
  if (tiles_n > 65535 || tiles_m > int64_t{0x7fffffff})
    throw Error(fmt::format("{}: {} x {} needs more {}x{} tiles than a grid holds", who, m, n, tile, tile));
  if constexpr (is_double) {
    if (version == GemmVersion::TensorCoreV2)
      return detail::launch_gemm_v2(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  detail::launch_gemm_v1(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

template void gemm(Context&, Op, Op, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                   int64_t, float, float*, int64_t, const GemmParams&);
template void gemm(Context&, Op, Op, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                   int64_t, double, double*, int64_t, const GemmParams&);

}  // namespace spx::cuda
