// spx_gemm_grid: spx::cuda::gemm (Auto, f64) against cuBLAS DGEMM over a grid of shapes, in the same
// process and interleaved rounds, with each shape's floor and the plan's prediction, and spx's own
// kernels (version 3 at the rule's tile and split: what Auto runs unless it hands the shape to cuBLAS)
// timed in the same rounds (docs/dgemm.md, "Shape classes"; scripts/gemm-grid runs it with the
// issue-25 grid).
//
//   spx_gemm_grid [--json FILE] [--rounds R] [--min-time S] [--variants] [--timing-study] [--profile]
//   [--emulation auto|never|always] SHAPE...
//   --emulation: GemmParams::emulation of the Auto runs (docs/dgemm.md, "Emulated DGEMM"); `always`
//   times the INT8 emulation call by call against cuBLAS on every shape (the runs column says
//   "emulated" where it ran, and how many moduli).
//   --timing-study: also time Auto beside cuBLAS in paired rounds (each back to back) and each alone,
//   and the rule's tile and split given explicitly, to see whether the ways of timing one kernel agree.
//   SHAPE = MxNxK or MxNxK:AB with A, B in {N, T} (op(A), op(B)); alpha = 1, beta = 0.
//   --profile: no timing and no check; per shape cuBLAS once and spx's version 3 once (with --variants,
//   every variant once), A and B memset to 0x3f bytes (no fill kernels), so that a profiler
//   (scripts/gemm-profile: Nsight Compute) sees only the GEMM kernels, in shape order.
//
// Per shape: A, B filled on the device with values in [-1, 1]; R rounds, each timing spx Auto and then
// spx's own version 3 call by call against cuBLAS (time_interleaved: alternate calls, each between its
// own events, so both sides run at the same clocks); a round's ratio is the median of its pairs'
// cuBLAS / spx ratios, the shape's the median over the rounds. Auto's C and version 3's are each
// checked against cuBLAS's: max |diff| <= 4 (k + 3) u k (both errors' worst case for |a|, |b| <= 1).
// Floor: max(flops at the FP64 tensor peak (66.3 TFLOP/s, spx_micro), bytes (A, B read and C written
// once) at the copy bandwidth measured here). --variants also times every tile with the rule's split
// for that tile and with 1, half and twice that split (the data the rule table is fitted to).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/median.hpp"
#include "micro/gemm_bench.cuh"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/gemm.hpp"
#include "spx/cuda/gemm_emulation.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/plan/rules.hpp"

namespace {

using spx::Op;
namespace cuda = spx::cuda;
namespace plan = spx::plan;

constexpr double kTensorTflops = 66.3;  // spx_micro, DMMA m16n8k4 (bench/results/h100/gemm/micro.json.gz)

#define GRID_CHECK(call)                                                                                 \
  do {                                                                                                   \
    cudaError_t err_ = (call);                                                                           \
    if (err_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "spx_gemm_grid: %s: %s (%s:%d)\n", #call, cudaGetErrorString(err_), __FILE__, \
                   __LINE__);                                                                            \
      std::exit(1);                                                                                      \
    }                                                                                                    \
  } while (0)

struct Shape {
  int64_t m, n, k;
  Op op_a = Op::N, op_b = Op::N;
};

bool parse_shape(const char* s, Shape& out) {
  long long m, n, k;
  char a = 'N', b = 'N';
  const int got = std::sscanf(s, "%lldx%lldx%lld:%c%c", &m, &n, &k, &a, &b);
  if (got != 3 && got != 5) return false;
  out = Shape{m, n, k, a == 'T' ? Op::T : Op::N, b == 'T' ? Op::T : Op::N};
  return m > 0 && n > 0 && k > 0;
}

double copy_bandwidth_gbs(cuda::Context& ctx) {
  const std::size_t bytes = std::size_t{1} << 30;
  cuda::DeviceBuffer<std::byte> a(bytes, "copy a"), b(bytes, "copy b");
  GRID_CHECK(cudaMemsetAsync(a.data(), 1, bytes, ctx.stream()));
  const spx::Timing t = cuda::time_kernel(
      ctx,
      [&] { GRID_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, ctx.stream())); },
      2, 10, 0.05);
  return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e-3) / 1e9;
}

// One shape's operands on the device, cuBLAS's product into Cref (or into C when there is no
// reference) and spx's into C: C = op(A) op(B), alpha = 1, beta = 0. `random`: operands uniform in
// [-1, 1) (seeded by the shape's index) and a reference to check against; otherwise memset operands
// and no fill kernel at all (--profile).
struct ShapeRun {
  ShapeRun(cuda::Context& context, const Shape& shape, bool random, uint64_t seed)
      : ctx(context),
        s(shape),
        a_rows(s.op_a == Op::N ? s.m : s.k),
        b_rows(s.op_b == Op::N ? s.k : s.n),
        A(static_cast<std::size_t>(a_rows * (s.op_a == Op::N ? s.k : s.m)), "A"),
        B(static_cast<std::size_t>(b_rows * (s.op_b == Op::N ? s.n : s.k)), "B"),
        C(static_cast<std::size_t>(s.m * s.n), "C"),
        Cref(random ? static_cast<std::size_t>(s.m * s.n) : 0, "Cref"),
        cublas(ctx, s.op_a, s.op_b, s.m, s.n, s.k, 1.0, A.data(), a_rows, B.data(), b_rows, 0.0,
               random ? Cref.data() : C.data(), s.m) {
    if (random) {
      spx::bench_gemm::fill(ctx, A.data(), static_cast<int64_t>(A.size()), 1 + seed);
      spx::bench_gemm::fill(ctx, B.data(), static_cast<int64_t>(B.size()), 7919 + seed);
    } else {
      GRID_CHECK(cudaMemsetAsync(A.data(), 0x3f, A.size() * sizeof(double), ctx.stream()));
      GRID_CHECK(cudaMemsetAsync(B.data(), 0x3f, B.size() * sizeof(double), ctx.stream()));
    }
  }
  void run_spx(const cuda::GemmParams& p) {
    cuda::gemm<double>(ctx, s.op_a, s.op_b, s.m, s.n, s.k, 1.0, A.data(), a_rows, B.data(), b_rows, 0.0,
                       C.data(), s.m, p);
  }

  cuda::Context& ctx;
  Shape s;
  int64_t a_rows, b_rows;
  cuda::DeviceBuffer<double> A, B, C, Cref;
  cuda::CublasGemm<double> cublas;
};

// One variant of --variants: a table entry (tile) at one split, and whether that split is the
// rule's for the tile.
struct Variant {
  const plan::GemmTileEntry* entry;
  int split_k;
  bool rule_split;
};

// Every tile at the rule's split for it, 1, half and twice it (the data the rule is fitted to), but
// not a tile whose best prediction is over kVariantSlack times the rule's pick (32 x 32 tiles on
// 16384^3: minutes of timing that no fit needs).
constexpr double kVariantSlack = 4.0;
std::vector<Variant> variants_of(const Shape& s, const cuda::DeviceProps& props) {
  std::vector<Variant> out;
  const double best = plan::gemm_rule(s.m, s.n, s.k, false, props).predicted_us;
  for (const plan::GemmTileEntry& e : plan::default_rule_tables().gemm.tiles) {
    const plan::GemmChoice tc =
        plan::gemm_rule(s.m, s.n, s.k, false, props, plan::default_rule_tables(), e.tile);
    if (tc.predicted_us > kVariantSlack * best) continue;
    std::vector<int> splits = {tc.split_k, 1};
    if (tc.split_k > 1) splits.push_back(std::max(2, tc.split_k / 2));
    if (tc.split_k * 2 <= cuda::kMaxGemmSplitK) splits.push_back(tc.split_k * 2);
    std::sort(splits.begin(), splits.end());
    splits.erase(std::unique(splits.begin(), splits.end()), splits.end());
    for (int split : splits) out.push_back(Variant{&e, split, split == tc.split_k});
  }
  return out;
}

cuda::GemmParams params_of(const Variant& v) {
  return cuda::GemmParams{cuda::GemmVersion::TensorCoreV3, v.entry->tile, v.split_k};
}

// The geometric mean of speed ratios (0 for none), and the least of them (1e30 for none).
double geometric_mean(const std::vector<double>& v) {
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return v.empty() ? 0.0 : std::exp(log_sum / static_cast<double>(v.size()));
}
double least(const std::vector<double>& v) {
  return v.empty() ? 1e30 : *std::min_element(v.begin(), v.end());
}

// --profile: each GEMM once, nothing else launched (see the header).
int profile_shapes(cuda::Context& ctx, const std::vector<Shape>& shapes, bool variants) {
  for (const Shape& s : shapes) {
    ShapeRun run(ctx, s, false, 0);
    run.cublas.run();
    run.run_spx(cuda::GemmParams{cuda::GemmVersion::TensorCoreV3});  // spx's kernel, whatever Auto picks
    const plan::GemmChoice choice = plan::gemm_rule(s.m, s.n, s.k, false, ctx.props());
    std::printf("%lldx%lldx%lld %c%c: cuBLAS, then spx %s split %d%s\n", static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k), s.op_a == Op::N ? 'N' : 'T',
                s.op_b == Op::N ? 'N' : 'T', cuda::gemm_tile_name(choice.tile), choice.split_k,
                variants ? ", then the variants:" : "");
    if (variants)
      for (const Variant& v : variants_of(s, ctx.props())) {
        run.run_spx(params_of(v));
        std::printf("    %s split %d\n", cuda::gemm_tile_name(v.entry->tile), v.split_k);
      }
    ctx.synchronize();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  int rounds = 3;
  double min_time = 0.03;
  bool variants = false, profile = false, timing_study = false;
  cuda::GemmParams auto_params;  // Auto; --emulation sets its emulation knob
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else if (a == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--min-time" && i + 1 < argc) {
      min_time = std::atof(argv[++i]);
    } else if (a == "--variants") {
      variants = true;
    } else if (a == "--timing-study") {
      timing_study = true;
    } else if (a == "--profile") {
      profile = true;
    } else if (a == "--emulation" && i + 1 < argc) {
      const std::string e = argv[++i];
      if (e != "auto" && e != "never" && e != "always") {
        std::fprintf(stderr, "spx_gemm_grid: --emulation takes auto, never or always, not '%s'\n", e.c_str());
        return 2;
      }
      auto_params.emulation = e == "always"  ? cuda::GemmEmulation::Always
                              : e == "never" ? cuda::GemmEmulation::Never
                                             : cuda::GemmEmulation::Auto;
    } else {
      Shape s;
      if (!parse_shape(argv[i], s)) {
        std::fprintf(stderr, "spx_gemm_grid: bad shape '%s' (MxNxK or MxNxK:AB)\n", argv[i]);
        return 2;
      }
      shapes.push_back(s);
    }
  }
  cuda::Context ctx;
  if (profile) return profile_shapes(ctx, shapes, variants);
  const double copy_gbs = copy_bandwidth_gbs(ctx);
  spx::bench_gemm::warm_up(ctx);
  std::FILE* json = json_path.empty() ? nullptr : std::fopen(json_path.c_str(), "w");
  if (json)
    std::fprintf(json,
                 "{\"schema\": \"spx-gemm-grid-1\", \"device\": \"%s\", \"copy_gbs\": %.1f, "
                 "\"tensor_tflops\": %.1f, \"rounds\": %d, \"shapes\": [\n",
                 ctx.props().name.c_str(), copy_gbs, kTensorTflops, rounds);
  std::printf("device %s, copy bandwidth %.0f GB/s, FP64 tensor peak %.1f TFLOP/s\n",
              ctx.props().name.c_str(), copy_gbs, kTensorTflops);
  std::printf("%-24s %-8s %5s %9s %10s %10s %10s %7s %7s %7s %10s %7s %s\n", "m x n x k", "runs", "split",
              "pred us", "spx us", "cuBLAS us", "floor us", "ratio", "spx/fl", "cub/fl", "v3 us", "v3 rat",
              "check (Auto, v3)");
  cuda::TimingOptions topt;
  topt.warmup = 2;
  topt.min_runs = 5;
  topt.min_seconds = min_time;
  std::vector<double> ratios, own_ratios, study_paired, study_alone;
  int failures = 0, handed = 0;
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const Shape& s = shapes[si];
    ShapeRun run(ctx, s, true, si);
    GRID_CHECK(cudaMemsetAsync(run.C.data(), 0xff, run.C.size() * sizeof(double), ctx.stream()));  // NaN
    // Check: one run each from a NaN C (beta = 0 must not read it).
    run.cublas.run();
    run.run_spx(auto_params);
    const cuda::GemmEmulationReport emulation = cuda::gemm_emulation_last();
    const double worst = spx::bench_gemm::max_abs_diff(ctx, run.C.data(), run.Cref.data(), s.m * s.n);
    const double kd = static_cast<double>(s.k);
    const double bound = spx::bench_gemm::check_bound(s.k);
    // spx's own kernels (version 3, the rule's tile and split), from a NaN C again.
    const cuda::GemmParams own_params{cuda::GemmVersion::TensorCoreV3};
    GRID_CHECK(cudaMemsetAsync(run.C.data(), 0xff, run.C.size() * sizeof(double), ctx.stream()));
    run.run_spx(own_params);
    const double own_worst = spx::bench_gemm::max_abs_diff(ctx, run.C.data(), run.Cref.data(), s.m * s.n);
    const bool ok = worst <= bound && own_worst <= bound;
    failures += ok ? 0 : 1;

    // Each round: Auto and cuBLAS call by call (time_interleaved: both at the same clocks), then spx's
    // version 3 and cuBLAS the same way.
    std::vector<double> spx_ms, cub_ms, own_ms, r, own_r;
    for (int round = 0; round < rounds; ++round) {
      const auto a = spx::bench_gemm::time_interleaved(
          ctx, topt, [&] { run.cublas.run(); }, [&] { run.run_spx(auto_params); });
      const auto o = spx::bench_gemm::time_interleaved(
          ctx, topt, [&] { run.cublas.run(); }, [&] { run.run_spx(own_params); });
      cub_ms.push_back(a.cublas_ms);
      spx_ms.push_back(a.kernel_ms);
      own_ms.push_back(o.kernel_ms);
      r.push_back(a.ratio);
      own_r.push_back(o.ratio);
    }
    const double spx = spx::median(spx_ms), cub = spx::median(cub_ms), ratio = spx::median(r);
    const double own = spx::median(own_ms), own_ratio = spx::median(own_r);
    ratios.push_back(ratio);
    own_ratios.push_back(own_ratio);
    const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * kd;
    const double bytes = 8.0 * static_cast<double>(s.m * s.k + s.k * s.n + s.m * s.n);
    const double flop_us = flops / (kTensorTflops * 1e6), byte_us = bytes / (copy_gbs * 1e3);
    const double floor_us = std::max(flop_us, byte_us);
    const plan::GemmChoice choice = plan::gemm_plan(
        s.m, s.n, s.k, false, ctx.props(), cuda::GemmParams{}, plan::default_rule_tables(),
        plan::gemm_operands_aligned(run.A.data(), run.a_rows, run.B.data(), run.b_rows, run.C.data(), s.m));
    handed += choice.cublas ? 1 : 0;
    char name[64];
    std::snprintf(name, sizeof name, "%lldx%lldx%lld%s", static_cast<long long>(s.m),
                  static_cast<long long>(s.n), static_cast<long long>(s.k),
                  s.op_a == Op::N && s.op_b == Op::N
                      ? ""
                      : (s.op_a == Op::T ? (s.op_b == Op::T ? ":TT" : ":TN") : ":NT"));
    std::printf(
        "%-24s %-8s %5d %9.1f %10.1f %10.1f %10.1f %7.3f %7.2f %7.2f %10.1f %7.3f %s (%.2g, %.2g)\n", name,
        emulation.emulated ? "emulated"
        : choice.cublas    ? "cuBLAS"
                           : cuda::gemm_tile_name(choice.tile),
        choice.split_k, choice.predicted_us, spx * 1e3, cub * 1e3, floor_us, ratio, floor_us / (spx * 1e3),
        floor_us / (cub * 1e3), own * 1e3, own_ratio, ok ? "ok" : "FAILED", worst / bound, own_worst / bound);
    std::fflush(stdout);
    if (json) {
      std::fprintf(
          json,
          "%s{\"shape\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"op_a\": \"%c\", \"op_b\": \"%c\", "
          "\"runs\": \"%s\", \"emulation_moduli\": %d, \"tile\": \"%s\", \"split_k\": %d, \"predicted_us\": "
          "%.2f, "
          "\"spx_predicted_us\": %.2f, \"cublas_predicted_us\": %.2f, \"spx_us\": %.3f, "
          "\"cublas_us\": %.3f, \"ratio\": %.4f, \"own_us\": %.3f, \"own_ratio\": %.4f, "
          "\"own_check_ratio\": %.3g, \"own_us_rounds\": [",
          si ? ",\n" : "", name, static_cast<long long>(s.m), static_cast<long long>(s.n),
          static_cast<long long>(s.k), s.op_a == Op::N ? 'N' : 'T', s.op_b == Op::N ? 'N' : 'T',
          emulation.emulated ? "emulated"
          : choice.cublas    ? "cublas"
                             : "spx_v3",
          emulation.emulated ? emulation.moduli : 0, cuda::gemm_tile_name(choice.tile), choice.split_k,
          choice.predicted_us, choice.spx_predicted_us, choice.cublas_predicted_us, spx * 1e3, cub * 1e3,
          ratio, own * 1e3, own_ratio, own_worst / bound);
      for (int i = 0; i < rounds; ++i) std::fprintf(json, "%s%.3f", i ? ", " : "", own_ms[i] * 1e3);
      std::fprintf(json, "], \"spx_us_rounds\": [");
      for (int i = 0; i < rounds; ++i) std::fprintf(json, "%s%.3f", i ? ", " : "", spx_ms[i] * 1e3);
      std::fprintf(json, "], \"cublas_us_rounds\": [");
      for (int i = 0; i < rounds; ++i) std::fprintf(json, "%s%.3f", i ? ", " : "", cub_ms[i] * 1e3);
      std::fprintf(
          json,
          "], \"flop_floor_us\": %.3f, \"byte_floor_us\": %.3f, \"floor_us\": %.3f, \"checked\": %s, "
          "\"check_ratio\": %.3g",
          flop_us, byte_us, floor_us, ok ? "true" : "false", worst / bound);
    }
    if (timing_study) {
      // Auto timed two more ways beside cuBLAS, to see whether the ways agree with the interleaved
      // rounds above: paired (each timed back to back for min_time, cuBLAS first in even rounds, two
      // rounds, the median ratio) and alone (each back to back, the lower of two medians, as the
      // variants are timed; the rule's tile and split given explicitly too).
      std::vector<double> paired_r;
      for (int round = 0; round < 2; ++round) {
        const auto [c, x] = spx::bench_gemm::time_pair(
            ctx, topt, round, [&] { run.cublas.run(); }, [&] { run.run_spx(auto_params); });
        paired_r.push_back(c / x);
      }
      const double paired = spx::median(paired_r);
      const auto alone = [&](const auto& f) {
        double best = 1e30;
        for (int round = 0; round < 2; ++round)
          best = std::min(best, cuda::time_kernel(ctx, f, topt).median_ms);
        return best;
      };
      const cuda::GemmParams explicit_params{cuda::GemmVersion::TensorCoreV3, choice.tile, choice.split_k};
      const double cub_alone = alone([&] { run.cublas.run(); });
      const double spx_alone = alone([&] { run.run_spx(auto_params); });
      const double spx_explicit = alone([&] { run.run_spx(explicit_params); });
      study_paired.push_back(paired);
      study_alone.push_back(cub_alone / spx_alone);
      std::printf(
          "    timing: interleaved %.3f | paired %.3f | alone %.3f (cuBLAS %.1f, spx %.1f, v3 %.1f us)\n",
          ratio, paired, cub_alone / spx_alone, cub_alone * 1e3, spx_alone * 1e3, spx_explicit * 1e3);
      if (json)
        std::fprintf(json,
                     ", \"timing_study\": {\"paired_ratio\": %.4f, \"alone_cublas_us\": %.3f, "
                     "\"alone_spx_us\": %.3f, \"alone_ratio\": %.4f, \"explicit_alone_spx_us\": %.3f}",
                     paired, cub_alone * 1e3, spx_alone * 1e3, cub_alone / spx_alone, spx_explicit * 1e3);
    }
    if (variants) {
      if (json) std::fprintf(json, ", \"variants\": [");
      bool first = true;
      for (const Variant& v : variants_of(s, ctx.props())) {
        const cuda::GemmParams p = params_of(v);
        double best = 1e30;
        for (int round = 0; round < 2; ++round)
          best = std::min(best, cuda::time_kernel(
                                    ctx, [&] { run.run_spx(p); }, topt)
                                    .median_ms);
        const double pred = plan::gemm_predicted_us(*v.entry, v.split_k, s.m, s.n, s.k, false, ctx.props());
        std::printf("    %-8s split %4d: %10.1f us (model %9.1f)%s\n", cuda::gemm_tile_name(p.tile),
                    v.split_k, best * 1e3, pred, v.rule_split ? "  <- rule for this tile" : "");
        if (json)
          std::fprintf(json, "%s{\"tile\": \"%s\", \"split_k\": %d, \"us\": %.3f, \"predicted_us\": %.2f}",
                       first ? "" : ", ", cuda::gemm_tile_name(p.tile), v.split_k, best * 1e3, pred);
        first = false;
      }
      if (json) std::fprintf(json, "]");
      std::fflush(stdout);
    }
    if (json) {
      std::fprintf(json, "}");
      std::fflush(json);
    }
  }
  const double geomean = geometric_mean(ratios), worst_ratio = least(ratios);
  const double own_geomean = geometric_mean(own_ratios), own_worst_ratio = least(own_ratios);
  std::printf(
      "shapes %zu, spx/cuBLAS speed geomean %.3f, worst %.3f (Auto; %d shapes handed to cuBLAS); spx's "
      "own v3 %.3f, worst %.3f; check failures %d\n",
      ratios.size(), geomean, worst_ratio, handed, own_geomean, own_worst_ratio, failures);
  if (timing_study)
    std::printf("timing study: geomean interleaved %.3f, paired %.3f, alone %.3f\n", geomean,
                geometric_mean(study_paired), geometric_mean(study_alone));
  if (json) {
    std::fprintf(json,
                 "\n], \"geomean_ratio\": %.4f, \"worst_ratio\": %.4f, \"handed_to_cublas\": %d, "
                 "\"own_geomean_ratio\": %.4f, \"own_worst_ratio\": %.4f, \"check_failures\": %d}\n",
                 geomean, worst_ratio, handed, own_geomean, own_worst_ratio, failures);
    std::fclose(json);
  }
  return failures ? 1 : 0;
}
