// The DGEMM plan explained (gemm_explain.hpp): gemm_rule per tile, as src/plan/gemm_rule.cpp
// ranks them, and Auto's pick between spx's best and cuBLAS (gemm_plan).
#include "gemm_explain.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <string>

#include "spx/plan/rules.hpp"

namespace spx::cli {

nlohmann::ordered_json explain_gemm_plan(const GemmShape& s, const cuda::DeviceProps& device,
                                         const std::string& device_label, const cuda::GemmParams& knobs,
                                         std::ostream& out) {
  const plan::RuleTables& tables = plan::default_rule_tables();
  const model::DeviceBasics basics = model::device_basics(device);
  const double stream_gbs = plan::streaming_gbs(device);
  const double md = static_cast<double>(s.m), nd = static_cast<double>(s.n), kd = static_cast<double>(s.k);
  // The floor: the flops at the FP64 tensor peak the model assumes, A and B read and C written once
  // (read too when beta != 0) at the streaming bandwidth it assumes.
  const double flop_us = 2.0 * md * nd * kd / (tables.gemm.tensor_tflops * 1e6);
  const double bytes = 8.0 * (md * kd + kd * nd + md * nd * (s.reads_c ? 2.0 : 1.0));
  const double byte_us = bytes / (stream_gbs * 1e3);
  const double floor_us = std::max(flop_us, byte_us);
  const plan::GemmChoice rule = plan::gemm_rule(s.m, s.n, s.k, s.reads_c, device);
  const plan::GemmChoice planned =
      plan::gemm_plan(s.m, s.n, s.k, s.reads_c, device, knobs, tables, s.aligned);

  const plan::GemmEmulationChoice emulation =
      plan::gemm_emulation_plan(s.m, s.n, s.k, s.reads_c, device, knobs, planned.predicted_us, 0, tables);
  fmt::print(out, "plan       {}, C ({} x {}), inner dimension {}{}, on {}\n",
             emulation.emulate ? "emulated DGEMM (INT8 tensor cores, Ozaki scheme II)"
             : planned.cublas  ? "cuBLAS DGEMM"
                               : "spx v3 (FP64 tensor cores)",
             s.m, s.n, s.k, s.reads_c ? ", beta != 0 (C read)" : "", device_label);
  fmt::print(out,
             "floor      {:.1f} us: {:.3g} GFLOP at {:.1f} TFLOP/s = {:.1f} us, {:.3g} GB at {:.0f} GB/s = "
             "{:.1f} us "
             "({}-bound)\n",
             floor_us, 2.0 * md * nd * kd / 1e9, tables.gemm.tensor_tflops, flop_us, bytes / 1e9, stream_gbs,
             byte_us, flop_us >= byte_us ? "flop" : "byte");
  fmt::print(out, "{:<10} {:>6} {:>6} {:>10} {:>7} {:>11} {:>12}\n", "tile", "slab k", "split", "blocks",
             "waves", "model us", "floor/model");
  nlohmann::ordered_json candidates = nlohmann::ordered_json::array();
  for (const plan::GemmTileEntry& e : tables.gemm.tiles) {
    const plan::GemmChoice c = plan::gemm_rule(s.m, s.n, s.k, s.reads_c, device, tables, e.tile);
    const int64_t blocks = ((s.m + e.bm - 1) / e.bm) * ((s.n + e.bn - 1) / e.bn) * c.split_k;
    const double waves = static_cast<double>(blocks) /
                         (static_cast<double>(basics.sm_count) * static_cast<double>(e.blocks_per_sm));
    const bool chosen = c.tile == rule.tile && c.split_k == rule.split_k;
    fmt::print(out, "{:<10} {:>6} {:>6} {:>10} {:>7.2f} {:>11.1f} {:>12.2f}{}\n",
               cuda::gemm_tile_name(e.tile), cuda::gemm_tile_shape(e.tile).bk, c.split_k, blocks, waves,
               c.predicted_us, floor_us / c.predicted_us, chosen ? "  <- the rule's choice" : "");
    candidates.push_back({{"tile", cuda::gemm_tile_name(e.tile)},
                          {"slab_k", cuda::gemm_tile_shape(e.tile).bk},
                          {"split_k", c.split_k},
                          {"blocks", blocks},
                          {"waves", waves},
                          {"predicted_us", c.predicted_us},
                          {"chosen", chosen}});
  }
  fmt::print(
      out,
      "why        each tile at the split the model times fastest for it (splits of whole slabs, at least {} "
      "slabs each, at most {} MiB of partials); waves = blocks / (SMs x blocks per SM); the least "
      "predicted time wins (docs/dgemm.md, \"Shape classes\")\n",
      tables.gemm.min_split_slabs, tables.gemm.max_workspace_bytes >> 20);
  if (planned.cublas_predicted_us > 0)
    fmt::print(
        out,
        "cuBLAS     model {:.1f} us (its tiles, fitted to its measured times{}) against spx's {:.1f} us: {} "
        "runs (Auto runs cuBLAS where its model is below spx's x {:.2f})\n",
        planned.cublas_predicted_us, s.aligned ? "" : "; an odd leading dimension: its unaligned kernels",
        planned.spx_predicted_us, planned.cublas ? "cuBLAS" : "spx", 1.0 + planned.margin);
  fmt::print(out, "emulation  {}{}\n", emulation.why,
             emulation.emulate
                 ? "; the call's inputs decide the moduli (Inf/NaN or an uncertifiable spread: native)"
                 : "");
  nlohmann::ordered_json j{{"schema", "spx-gemm-plan-1"},
                           {"m", s.m},
                           {"n", s.n},
                           {"k", s.k},
                           {"reads_c", s.reads_c},
                           {"device", device_label},
                           {"floor_us", floor_us},
                           {"flop_floor_us", flop_us},
                           {"byte_floor_us", byte_us},
                           {"rule",
                            {{"tile", cuda::gemm_tile_name(rule.tile)},
                             {"split_k", rule.split_k},
                             {"predicted_us", rule.predicted_us}}},
                           {"candidates", candidates},
                           {"operands_aligned", s.aligned},
                           {"runs", emulation.emulate ? "emulated"
                                    : planned.cublas  ? "cublas"
                                                      : "spx_v3"},
                           {"predicted_us", planned.predicted_us},
                           {"cublas_predicted_us", planned.cublas_predicted_us}};
  j["emulation"] = {{"emulate", emulation.emulate},
                    {"considered", emulation.considered},
                    {"moduli", emulation.moduli},
                    {"bits", emulation.bits},
                    {"predicted_us", emulation.emulated_us},
                    {"int8_us", emulation.int8_us},
                    {"convert_us", emulation.convert_us},
                    {"native_us", emulation.native_us},
                    {"why", emulation.why}};
  if (knobs.tile != cuda::GemmTile::Auto || knobs.split_k != 0) {
    const plan::GemmChoice& given = planned;  // knobs run spx's kernel: the plan is the given choice
    fmt::print(out,
               "given      tile {}, {} split{}: the model predicts {:.1f} us ({:.2f}x the rule's choice)\n",
               cuda::gemm_tile_name(given.tile), given.split_k, given.split_k == 1 ? "" : "s",
               given.predicted_us, given.predicted_us / rule.predicted_us);
    j["given"] = {{"tile", cuda::gemm_tile_name(given.tile)},
                  {"split_k", given.split_k},
                  {"predicted_us", given.predicted_us}};
  }
  return j;
}

}  // namespace spx::cli
