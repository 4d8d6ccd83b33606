// GEMM version 3 (double only): the launch of one product — the tile shape's kernel
// (gemm_v3_<tile>.cu) over tiles × splits blocks, and, with split-k, the reduction of the partials.
// Which tile and how many splits is the plan rule's answer (src/plan/gemm_rule.cpp), or the caller's
// (GemmParams); gemm.cpp resolves it into a V3Launch.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/gemm/gemm_launch.hpp"

namespace spx::cuda::detail {
namespace {

// C = alpha * (sum of the splits' partials) + beta * C. Block (X, R): thread (x, y) adds splits
// y, y + R, y + 2R, ... of element blockIdx.x * X + x in that order, then thread (x, 0) adds the R
// sums in order: a fixed order, so the result is the same on every run (deterministic). For a fixed
// split the X threads of a row read X consecutive partials (coalesced). beta == 0 never reads C.
template <int R>
__global__ void __launch_bounds__(256) split_k_sum(const double* partial, int splits, int64_t m, int64_t n,
                                                   double alpha, double beta, double* C, int64_t ldc) {
  constexpr int X = 256 / R;
  __shared__ double sums[R][X];
  const int64_t mn = m * n;
  const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
  const int64_t idx = int64_t{blockIdx.x} * X + x;
  double s = 0.0;
  if (idx < mn) {
#pragma unroll 4
    for (int z = y; z < splits; z += R) s += partial[z * mn + idx];
  }
  if constexpr (R > 1) {
    sums[y][x] = s;
    __syncthreads();
    if (y != 0) return;
    s = sums[0][x];
#pragma unroll
    for (int r = 1; r < R; ++r) s += sums[r][x];
  }
  if (idx >= mn) return;
  double* c = C + idx % m + idx / m * ldc;
  *c = beta == 0.0 ? alpha * s : alpha * s + beta * *c;  // beta == 0 never reads C
}

template <int R>
void launch_sum(Context& ctx, const double* partial, int splits, int64_t m, int64_t n, double alpha,
                double beta, double* C, int64_t ldc) {
  constexpr int X = 256 / R;
  split_k_sum<R>
      <<<grid_for(m * n, X), dim3(X, R), 0, ctx.stream()>>>(partial, splits, m, n, alpha, beta, C, ldc);
  SPX_CHECK_LAUNCH("gemm_v3 split_k_sum", ctx.stream());
}

}  // namespace

void launch_gemm_v3(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc, const V3Launch& launch) {
  // Whole slabs per split, so every split but the last runs only full slabs; a factor that leaves
  // the last splits empty shrinks to the splits that have k (the partials they would write).
  const int64_t slab_k = gemm_tile_shape(launch.tile).bk;
  const int64_t slabs = (k + slab_k - 1) / slab_k;
  int64_t splits = std::clamp<int64_t>(launch.split_k, 1, slabs);
  const int64_t k_split = (slabs + splits - 1) / splits * slab_k;
  splits = (k + k_split - 1) / k_split;
  V3Grid grid{std::max(1, launch.group_m), static_cast<int>(splits), k_split, nullptr};
  if (splits > 1)
    grid.partial =
        static_cast<double*>(ctx.workspace(static_cast<std::size_t>(splits * m * n) * sizeof(double)));
  const auto run = [&](auto tile) {
    launch_v3_tile<decltype(tile)::value>(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                          grid);
  };
  // One launch per row of kGemmTileTable (gemm.hpp): a tile added there is dispatched here, and
  // fails to link until its file specialises launch_v3_tile (gemm_launch.hpp).
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((launch.tile == kGemmTileTable[I].tile
          ? (run(std::integral_constant<GemmTile, kGemmTileTable[I].tile>{}), true)
          : false) ||
     ...);
  }
  (std::make_index_sequence<std::size(kGemmTileTable)>{});
  if (grid.partial == nullptr) return;
  const int s = grid.splits;
  if (s >= 8)
    launch_sum<8>(ctx, grid.partial, s, m, n, alpha, beta, C, ldc);
  else if (s >= 4)
    launch_sum<4>(ctx, grid.partial, s, m, n, alpha, beta, C, ldc);
  else
    launch_sum<2>(ctx, grid.partial, s, m, n, alpha, beta, C, ldc);
}

}  // namespace spx::cuda::detail
