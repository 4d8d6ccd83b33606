// The DGEMM plan rule (spx/plan/rules.hpp, GemmRuleTable): version 3's tile shape and split-k factor from the
// shape of the product and the device, by Tan et al.'s blocking model re-derived per shape class
// (docs/dgemm.md, "Shape classes"; the table's numbers and their measurements: docs/rules.md), and
// for Auto whether cuBLAS's DGEMM, timed by the same model with its own tiles, runs instead.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "spx/plan/rules.hpp"

namespace spx::plan {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Splits that k's slabs (slab_k deep: the tile's) allow at this factor: whole slabs each, empty
// trailing splits dropped (what launch_gemm_v3 runs).
int64_t effective_splits(int64_t k, int64_t slab_k, int64_t split) {
  const int64_t slabs = ceil_div(k, slab_k);
  const int64_t per = ceil_div(slabs, std::clamp<int64_t>(split, 1, slabs));
  return ceil_div(slabs, per);
}

// The entry's slab depth: its own (vendor tiles) or its spx tile's.
int64_t slab_depth(const GemmTileEntry& e) { return e.bk > 0 ? e.bk : cuda::gemm_tile_shape(e.tile).bk; }

// The least predicted time over `entries` (only `only`'s, unless Auto) and the split steps.
GemmChoice best_candidate(const std::vector<GemmTileEntry>& entries, int64_t m, int64_t n, int64_t k,
                          bool reads_c, const cuda::DeviceProps& device, const RuleTables& tables,
                          cuda::GemmTile only) {
  const GemmRuleTable& t = tables.gemm;
  GemmChoice best;
  best.predicted_us = std::numeric_limits<double>::infinity();
  const double mn_bytes = 8.0 * static_cast<double>(m) * static_cast<double>(n);
  for (const GemmTileEntry& e : entries) {
    if (only != cuda::GemmTile::Auto && e.tile != only) continue;
    const int64_t slab_k = slab_depth(e), slabs = ceil_div(k, slab_k);
    for (int split : t.split_steps) {
      if (split > 1) {
        if (slabs / split < t.min_split_slabs) break;  // ascending steps: the rest are shallower
        if (mn_bytes * split > static_cast<double>(t.max_workspace_bytes)) break;
      }
      // The splits launch_gemm_v3 runs for this factor (whole slabs each: maybe a few fewer).
      const int s = static_cast<int>(effective_splits(k, slab_k, split));
      const double us = gemm_predicted_us(e, s, m, n, k, reads_c, device, tables);
      if (us < best.predicted_us) best = GemmChoice{e.tile, s, us};
    }
  }
  return best;
}

}  // namespace

double gemm_predicted_us(const GemmTileEntry& e, int split_k, int64_t m, int64_t n, int64_t k, bool reads_c,
                         const cuda::DeviceProps& device, const RuleTables& tables) {
  const GemmRuleTable& t = tables.gemm;
  const model::DeviceBasics d = model::device_basics(device);
  const double sms = d.sm_count, hbm = streaming_gbs(device) * 1e3;  // bytes per µs
  const int64_t slab_k = slab_depth(e);
  const int64_t s = effective_splits(k, slab_k, split_k);
  const int64_t slabs_per_split = ceil_div(ceil_div(k, slab_k), s);
  const int64_t tiles = ceil_div(m, e.bm) * ceil_div(n, e.bn);
  const int64_t blocks = tiles * s;
  // Compute: blocks spread evenly; the busiest SM runs ceil(blocks / SMs) of them, blocks_per_sm at a
  // time. A full SM runs at the smaller of the tensor rate it sustains and the rate its L2 share
  // feeds (the paper's RB = DF · 8 B · (1/bm + 1/bn) / 2 solved for DF); b < blocks_per_sm blocks
  // reach b × alone_fraction of it (fewer warps to hide the pipeline's waits).
  const double tensor_per_sm = t.tensor_tflops * 1e6 * e.tensor_fraction / sms;                 // flop/µs
  const double l2_per_sm = t.l2_gbs * 1e3 / sms * (2.0 * e.bm * e.bn) / (8.0 * (e.bm + e.bn));  // flop/µs
  const double sm_rate = std::min(tensor_per_sm, l2_per_sm);
  const auto rate = [&](int64_t b) {
    return sm_rate * std::min(1.0, static_cast<double>(b) * e.alone_fraction);
  };
  const double block_flops = 2.0 * e.bm * e.bn * static_cast<double>(slabs_per_split * slab_k);
  const int64_t per_sm = ceil_div(blocks, d.sm_count), full = per_sm / e.blocks_per_sm;
  const int64_t rest = per_sm - full * e.blocks_per_sm;
  double compute = static_cast<double>(full * e.blocks_per_sm) * block_flops / rate(e.blocks_per_sm);
  if (rest > 0) compute += static_cast<double>(rest) * block_flops / rate(rest);
  // C (or the partials) written by the tiles; the share no co-resident block hides adds to compute.
  const double mn_bytes = 8.0 * static_cast<double>(m) * static_cast<double>(n);
  const double out_bytes = mn_bytes * static_cast<double>(s) + (s == 1 && reads_c ? mn_bytes : 0.0);
  const double store_us = out_bytes / (hbm * e.store_efficiency);
  const double stores = (1.0 - e.store_overlap) * store_us;
  // HBM floor: A and B once, C or the partials once (at the rate the tile's stores reach).
  const double ab_bytes = 8.0 * (static_cast<double>(m) + static_cast<double>(n)) * static_cast<double>(k);
  const double main = std::max(compute + stores, ab_bytes / hbm + store_us) + t.launch_us;
  if (s == 1) return main;
  // The reduction: the partials read once, C read (beta != 0) and written.
  const double sum_bytes = mn_bytes * (static_cast<double>(s) + (reads_c ? 2.0 : 1.0));
  return main + t.launch_us + sum_bytes / hbm;
}

GemmChoice gemm_rule(int64_t m, int64_t n, int64_t k, bool reads_c, const cuda::DeviceProps& device,
                     const RuleTables& tables, cuda::GemmTile only) {
  const GemmRuleTable& t = tables.gemm;
  if (t.tiles.empty() || m <= 0 || n <= 0 || k <= 0) {
    GemmChoice none;
    none.predicted_us = std::numeric_limits<double>::infinity();
    return none;
  }
  GemmChoice best = best_candidate(t.tiles, m, n, k, reads_c, device, tables, only);
  if (!std::isfinite(best.predicted_us))
    best.tile = only == cuda::GemmTile::Auto ? t.tiles.front().tile : only;
  return best;
}

double gemm_vendor_us(int64_t m, int64_t n, int64_t k, bool reads_c, const cuda::DeviceProps& device,
                      const RuleTables& tables, bool operands_aligned) {
  if (m <= 0 || n <= 0 || k <= 0) return std::numeric_limits<double>::infinity();
  if (operands_aligned)
    return best_candidate(tables.gemm.vendor_tiles, m, n, k, reads_c, device, tables, cuda::GemmTile::Auto)
        .predicted_us;
  std::vector<GemmTileEntry> unaligned = tables.gemm.vendor_tiles;
  for (GemmTileEntry& e : unaligned) {
    e.tensor_fraction *= tables.gemm.vendor_unaligned_tensor;
    e.store_efficiency *= tables.gemm.vendor_unaligned_store;
  }
  return best_candidate(unaligned, m, n, k, reads_c, device, tables, cuda::GemmTile::Auto).predicted_us;
}

bool gemm_operands_aligned(const void* A, int64_t lda, const void* B, int64_t ldb, const void* C,
                           int64_t ldc) {
  const auto on16 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return lda % 2 == 0 && ldb % 2 == 0 && ldc % 2 == 0 && on16(A) && on16(B) && on16(C);
}

GemmChoice gemm_plan(int64_t m, int64_t n, int64_t k, bool reads_c, const cuda::DeviceProps& device,
                     const cuda::GemmParams& params, const RuleTables& tables, bool operands_aligned) {
  GemmChoice c;
  if (params.tile == cuda::GemmTile::Auto || params.split_k == 0)
    c = gemm_rule(m, n, k, reads_c, device, tables, params.tile);
  if (params.tile != cuda::GemmTile::Auto) c.tile = params.tile;
  if (params.split_k != 0) {
    const int64_t slab_k = cuda::gemm_tile_shape(c.tile).bk;
    c.split_k = static_cast<int>(effective_splits(std::max<int64_t>(k, 1), slab_k, params.split_k));
  }
  // The rule's own pick comes timed; a caller's knob is timed here.
  const bool knobs = params.tile != cuda::GemmTile::Auto || params.split_k != 0;
  if (knobs || !std::isfinite(c.predicted_us)) {
    c.predicted_us = 0;
    for (const GemmTileEntry& e : tables.gemm.tiles)
      if (e.tile == c.tile)
        c.predicted_us = gemm_predicted_us(e, c.split_k, m, n, k, reads_c, device, tables);
  }
  c.spx_predicted_us = c.predicted_us;
  if (params.version == cuda::GemmVersion::Auto && !knobs) {
    const double vendor = gemm_vendor_us(m, n, k, reads_c, device, tables, operands_aligned);
    if (std::isfinite(vendor)) {
      c.cublas_predicted_us = vendor;
      const GemmRuleTable& t = tables.gemm;
      const bool small_unaligned = !operands_aligned && c.spx_predicted_us < t.unaligned_small_us;
      c.margin = t.vendor_margin + (small_unaligned ? t.unaligned_small_margin : 0.0);
      if (vendor < c.spx_predicted_us * (1.0 + c.margin)) {
        c.cublas = true;
        c.predicted_us = vendor;
      }
    }
  }
  return c;
}

}  // namespace spx::plan
