// spx_gemm_configs: version 3's kernel template (src/cuda/gemm/gemm_v3.cuh) at candidate Configs that
// the library does not instantiate, beside every tile the library does (one per row of
// kGemmTileTable, launched as gemm() launches it: a tile added to the table is benchmarked here with
// no edit), NN, no split, each timed beside cuBLAS DGEMM in pairs over several rounds (the ratio
// printed is the median of the pairs'), each result checked against cuBLAS's. It answers "which
// tile, MMA shape, slab depth, stages and fragment buffering should a library tile have" before the
// library and its rule are changed (docs/dgemm.md).
//
//   spx_gemm_configs [--rounds R] SHAPE...     SHAPE = MxNxK (NN, alpha = 1, beta = 0)
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "common/median.hpp"
#include "cuda/gemm/gemm_launch.hpp"
#include "cuda/gemm/gemm_v3_launch.cuh"
#include "micro/gemm_bench.cuh"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/gemm.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/cuda/vendor.hpp"

namespace {

namespace cuda = spx::cuda;
namespace v3 = spx::cuda::detail::gemm_v3;
using spx::cuda::detail::V3Grid;

struct Candidate {
  std::string name;
  void (*run)(cuda::Context&, const double*, const double*, double*, int64_t, int64_t, int64_t);
};

// NN (A m × k, B k × n, both packed), no split, the rasterization band gemm() uses.
constexpr int kGroupM = 8;

// A configuration of the kernel template that the library does not instantiate.
template <class Cfg>
void run_nn(cuda::Context& ctx, const double* A, const double* B, double* C, int64_t m, int64_t n,
            int64_t k) {
  const v3::Operand a = v3::operand(A, m, m, k), b = v3::operand(B, k, k, n);
  v3::launch_ops<Cfg, false, true>(ctx, a, b, m, n, k, 1.0, 0.0, C, m, V3Grid{kGroupM, 1, k, nullptr});
}

// A library tile, through the launch gemm() dispatches to (its file's Config).
template <cuda::GemmTile kTile>
void run_library(cuda::Context& ctx, const double* A, const double* B, double* C, int64_t m, int64_t n,
                 int64_t k) {
  spx::cuda::detail::launch_v3_tile<kTile>(ctx, spx::Op::N, spx::Op::N, m, n, k, 1.0, A, m, B, k, 0.0, C, m,
                                           V3Grid{kGroupM, 1, k, nullptr});
}

// Config<bm, bn, warps m, warps n, bk, stages, mma k, blocks per SM, fragment buffering>: variants
// the library does not instantiate; fragment buffering "next-step" kFragsNextStep (the default),
// "after-row" kFragsAfterRow.
constexpr int kA = v3::kFragsAfterRow;
const Candidate kExperiments[] = {
    {"128x128 k8 after-row bk32 st3", run_nn<v3::Config<128, 128, 2, 4, 32, 3, 8, 1, kA>>},
    {"128x128 k8 after-row", run_nn<v3::Config<128, 128, 2, 4, 16, 4, 8, 1, kA>>},
    {"64x64 k4 next-step", run_nn<v3::Config<64, 64, 2, 2, 16, 3, 4, 3>>},
};

// Every library tile ("(lib)", one per row of kGemmTileTable), the experiments, and the first tile
// again: a configuration listed twice shows the tool's noise.
std::vector<Candidate> candidates() {
  std::vector<Candidate> c;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (c.push_back(
         {std::string(cuda::kGemmTileTable[I].name) + " (lib)", run_library<cuda::kGemmTileTable[I].tile>}),
     ...);
  }
  (std::make_index_sequence<std::size(cuda::kGemmTileTable)>{});
  const Candidate again{c.front().name + " again", c.front().run};
  c.insert(c.end(), std::begin(kExperiments), std::end(kExperiments));
  c.push_back(again);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3;
  std::vector<std::array<int64_t, 3>> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    long long m, n, k;
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (std::sscanf(argv[i], "%lldx%lldx%lld", &m, &n, &k) == 3 && m > 0 && n > 0 && k > 0) {
      shapes.push_back({m, n, k});
    } else {
      std::fprintf(stderr, "spx_gemm_configs: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  cuda::Context ctx;
  cuda::TimingOptions topt;
  topt.warmup = 2;
  topt.min_runs = 5;
  topt.min_seconds = 0.03;
  spx::bench_gemm::warm_up(ctx);
  const std::vector<Candidate> all = candidates();
  std::printf("%-22s", "m x n x k");
  std::printf(" %10s", "cuBLAS us");
  for (const Candidate& c : all) std::printf(" | %s", c.name.c_str());
  std::printf("\n");
  int failures = 0;
  for (const auto& [m, n, k] : shapes) {
    cuda::DeviceBuffer<double> A(static_cast<std::size_t>(m * k), "A"),
        B(static_cast<std::size_t>(k * n), "B");
    cuda::DeviceBuffer<double> C(static_cast<std::size_t>(m * n), "C"),
        R(static_cast<std::size_t>(m * n), "R");
    spx::bench_gemm::fill(ctx, A.data(), m * k, 1);
    spx::bench_gemm::fill(ctx, B.data(), k * n, 2);
    cuda::CublasGemm<double> cublas(ctx, spx::Op::N, spx::Op::N, m, n, k, 1.0, A.data(), m, B.data(), k, 0.0,
                                    R.data(), m);
    cublas.run();
    const double bound = spx::bench_gemm::check_bound(k);
    std::vector<std::string> bad;
    for (const Candidate& c : all) {
      cudaMemsetAsync(C.data(), 0xff, C.size() * sizeof(double), ctx.stream());  // NaN
      c.run(ctx, A.data(), B.data(), C.data(), m, n, k);
      if (!(spx::bench_gemm::max_abs_diff(ctx, C.data(), R.data(), m * n) <= bound)) bad.push_back(c.name);
    }
    // Every candidate is timed right beside its own cuBLAS timing (cuBLAS first in even rounds, the
    // candidate first in odd ones) and scored by the median of those pairs' ratios: the clock drifts
    // with the power the kernels before drew, and one cuBLAS timing per round for a dozen candidates
    // let two copies of one configuration differ by 4-7% in geomean. Each round also starts at
    // another candidate.
    std::vector<double> cub;
    std::vector<std::vector<double>> mine(all.size()), ratio(all.size());
    const std::size_t count = all.size();
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t step = 0; step < count; ++step) {
        const std::size_t i =
            (step + static_cast<std::size_t>(r) * count / static_cast<std::size_t>(rounds)) % count;
        const auto [c, x] = spx::bench_gemm::time_pair(
            ctx, topt, r, [&] { cublas.run(); },
            [&] { all[i].run(ctx, A.data(), B.data(), C.data(), m, n, k); });
        cub.push_back(c);
        mine[i].push_back(x);
        ratio[i].push_back(c / x);
      }
    }
    char name[64];
    std::snprintf(name, sizeof name, "%lldx%lldx%lld", static_cast<long long>(m), static_cast<long long>(n),
                  static_cast<long long>(k));
    std::printf("%-22s %10.1f", name, spx::median(cub) * 1e3);
    for (std::size_t i = 0; i < all.size(); ++i)
      std::printf(" | %8.1f %.2f", spx::median(mine[i]) * 1e3, spx::median(ratio[i]));
    std::printf("\n");
    for (const std::string& b : bad) std::printf("  WRONG RESULT: %s on %s\n", b.c_str(), name);
    failures += static_cast<int>(bad.size());
    std::fflush(stdout);
  }
  return failures ? 1 : 0;
}
