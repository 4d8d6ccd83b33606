// Host entry point of spx::cuda::gemm: operand checks (the reference BLAS rules, as CublasGemm
// applies them), the trivial shapes, then the chosen version's launch — for Auto in f64, the plan's
// pick between version 3 and cuBLAS's DGEMM (gemm_plan); in f32, cuBLAS's SGEMM.
#include "spx/cuda/gemm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "cuda/common/scale.hpp"
#include "cuda/gemm/gemm_launch.hpp"
#include "cuda/gemm/ozaki.hpp"
#include "spx/cuda/gemm_emulation.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"

namespace spx::cuda {
namespace {

// What the last gemm() on this thread did about emulation (gemm_emulation_last).
GemmEmulationReport& emulation_report() {
  thread_local GemmEmulationReport report;
  return report;
}

void check_ld(const char* who, const char* name, int64_t ld, int64_t stored_rows) {
  if (ld < std::max<int64_t>(1, stored_rows))
    throw Error(fmt::format("{}: ld{} = {} is less than the {} rows it stores", who, name, ld, stored_rows));
}

// gemm_plan for this call, remembered per thread for the last few shapes: the model walks every
// (tile, split) of spx's and cuBLAS's tables (1-4 us of host time), as long as the kernel itself on
// the smallest shapes, and a solver calls the same few shapes over and over.
plan::GemmChoice planned(const Context& ctx, const GemmParams& params, int64_t m, int64_t n, int64_t k,
                         bool reads_c, bool aligned) {
  struct Key {
    int device = -1, sm_count = 0;
    int64_t m = 0, n = 0, k = 0;
    bool reads_c = false, aligned = true;
    GemmParams params;
    bool operator==(const Key&) const = default;
  };
  struct Entry {
    Key key;
    plan::GemmChoice choice;
  };
  constexpr int kEntries = 8;
  thread_local Entry cache[kEntries];
  thread_local int next = 0;
  const DeviceProps& props = ctx.props();
  const Key key{props.device, props.sm_count, m, n, k, reads_c, aligned, params};
  for (const Entry& e : cache)
    if (e.key == key) return e.choice;
  const plan::GemmChoice choice =
      plan::gemm_plan(m, n, k, reads_c, props, params, plan::default_rule_tables(), aligned);
  cache[next] = Entry{key, choice};
  next = (next + 1) % kEntries;
  return choice;
}

// plan::gemm_emulation_plan for this call, remembered per thread for the last few shapes like planned():
// its sentence costs a few microseconds of formatting, as long as the smallest products.
plan::GemmEmulationChoice planned_emulation(const Context& ctx, const GemmParams& params, int64_t m,
                                            int64_t n, int64_t k, bool reads_c, double native_us) {
  struct Key {
    int device = -1, sm_count = 0;
    int64_t m = 0, n = 0, k = 0;
    bool reads_c = false;
    GemmParams params;
    double native_us = 0;
    bool operator==(const Key&) const = default;
  };
  struct Entry {
    Key key;
    plan::GemmEmulationChoice choice;
  };
  constexpr int kEntries = 8;
  thread_local Entry cache[kEntries];
  thread_local int next = 0;
  const DeviceProps& props = ctx.props();
  const Key key{props.device, props.sm_count, m, n, k, reads_c, params, native_us};
  for (const Entry& e : cache)
    if (e.key == key) return e.choice;
  const plan::GemmEmulationChoice choice =
      plan::gemm_emulation_plan(m, n, k, reads_c, props, params, native_us);
  cache[next] = Entry{key, choice};
  next = (next + 1) % kEntries;
  return choice;
}

// Auto in f64: the emulation on INT8 tensor cores where its model predicts it faster than the
// native plan (or where forced), and where the inputs allow it; false: native runs, the reason in
// gemm_emulation_last().
bool emulated(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha, const double* A,
              int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc,
              const GemmParams& params, double native_us) {
  GemmEmulationReport& report = emulation_report();
  const bool reads_c = beta != 0.0;
  const plan::GemmEmulationChoice predicted = planned_emulation(ctx, params, m, n, k, reads_c, native_us);
  if (!predicted.emulate) {
    report.reason = predicted.why;
    return false;
  }
  // The inputs may need more moduli than random-like ones: Auto asks the model again with their count.
  const auto veto = [&](int moduli) -> std::string {
    if (params.emulation == GemmEmulation::Always || moduli <= predicted.moduli) return {};
    const plan::GemmEmulationChoice again =
        plan::gemm_emulation_plan(m, n, k, reads_c, ctx.props(), params, native_us, moduli);
    return again.emulate ? std::string() : fmt::format("the inputs need {} moduli: {}", moduli, again.why);
  };
  return detail::run_ozaki_gemm(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                predicted.moduli, veto, report);
}

}  // namespace

const GemmEmulationReport& gemm_emulation_last() { return emulation_report(); }

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
  if (params.emulation == GemmEmulation::Always && (!is_double || params.version != GemmVersion::Auto ||
                                                    params.tile != GemmTile::Auto || params.split_k != 0))
    throw Error(
        fmt::format("{}: GemmEmulation::Always is a choice of Auto in f64 (version Auto, tile Auto, "
                    "split_k 0)",
                    who));
  if constexpr (is_double) emulation_report() = GemmEmulationReport{};
  check_ld(who, "a", lda, op_a == Op::N ? m : k);
  check_ld(who, "b", ldb, op_b == Op::N ? k : n);
  check_ld(who, "c", ldc, m);
  if (m == 0 || n == 0) return;
  // BLAS convention: no product to add, so A and B are not read; beta == 0 writes zeros unread.
  if (k == 0 || alpha == T{0}) return scale_in_place(ctx, C, m, n, ldc, beta);
  // Auto in float: cuBLAS's SGEMM, which spx's float kernel never beat (v1: 0.004-0.95x of it over
  // eight shape classes on the H100, docs/dgemm.md); CudaCoreV1 by name still runs v1.
  if constexpr (!is_double) {
    if (params.version == GemmVersion::Auto)
      return CublasGemm<float>(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc).run();
  }
  if constexpr (is_double) {
    if (version == GemmVersion::TensorCoreV3) {
      // The caller's tile and split factor where given, the plan rule's otherwise; for Auto,
      // cuBLAS where the plan predicts it faster (gemm_plan, which `spx gemm --explain` prints).
      const plan::GemmChoice plan =
          planned(ctx, params, m, n, k, beta != 0.0, plan::gemm_operands_aligned(A, lda, B, ldb, C, ldc));
      if (params.version == GemmVersion::Auto &&
          emulated(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, params, plan.predicted_us))
        return;
      if (plan.cublas)
        return CublasGemm<double>(ctx, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc).run();
      detail::V3Launch launch;
      launch.tile = plan.tile;
      launch.split_k = plan.split_k;
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
