// The default rule tables: every number a fixed rule uses, in one place. One line per step says why
// the step has its shape; docs/rules.md names the measurement each number came from (device, commit,
// committed results file). Change a number here only with a measurement, and update that table.
#include <limits>

#include "plan/catalogue.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// An spx tile's entry: its extents and resident blocks from the one tile table (kGemmTileTable in
// spx/cuda/gemm.hpp), the fitted fractions here.
GemmTileEntry spx_tile(cuda::GemmTile tile, double tensor_fraction, double alone_fraction,
                       double store_overlap, double store_efficiency) {
  const cuda::GemmTileRow& row = *cuda::gemm_tile_row(tile);
  return {tile,           row.shape.bm,  row.shape.bn,    row.blocks_per_sm, tensor_fraction,
          alone_fraction, store_overlap, store_efficiency};
}

RuleTables make_default_rule_tables() {
  RuleTables t;

  // --- Parametrised CSR SpMV (refitted by tools/fit_csr_rule.py from `spx tune`) ---
  // coop: the paper's smallest power of two above sqrt(avg row); on Hopper larger groups cost only
  // log2(coop) shuffles, while short rows keep their lines in the 256 KB L1 between iterations.
  t.csr.coop_steps = {{1, 1}, {4, 2}, {8, 4}, {64, 8}, {128, 16}, {kInf, 32}};
  // 8 blocks of 256 fill an SM; the block size only sets the granularity of the work.
  t.csr.block_size = 256;
  // repeat > 1 only while at least 8 waves of blocks remain, so a slow block costs ~1/8 of the run.
  t.csr.repeat_steps = {{0, 1}, {128, 2}, {256, 4}, {512, 8}, {1024, 16}};
  // A row is long past ~64 iterations of one group (a few µs of launch latency) or its fair share.
  t.csr.long_row_min_iterations = 64.0;
  t.csr.long_row_share = 1.0;
  // Many short rows in flight hide latency without splitting a row over more lanes.
  t.csr.halve_coop_rows_per_group = 16;
  t.csr.halve_coop_avg_below = 24;

  // --- Launch shapes (ELLR-T SpMV, SpMM) ---
  // A serial slot is two dependent round trips (column, then x) overlapped ~10 deep.
  t.launch.ns_per_serial_slot = 100.0;
  t.launch.bytes_per_nonzero = 12.0;  // f64 value + int32 column
  t.launch.min_serial_slots = 64;     // tiny matrices are launch-bound anyway
  // Any block of >= 64 threads reaches full occupancy on Hopper; small grids get smaller blocks so
  // that every SM gets two.
  t.launch.spread_blocks = {256, 128};
  t.launch.min_blocks_per_sm = 2;

  // --- ELLR-T SpMV ---
  // Each thread of a group should get about four slots of an average row.
  t.ellr.threads_by_avg_row = {{8.0, 1}, {16.0, 2}, {32.0, 4}, {64.0, 8}, {128.0, 16}, {kInf, 32}};
  t.ellr.small_min_slots_per_thread = 2.0;

  // --- SELL-C16 lanes per row ---
  // Two steps of 8 slots a lane at least; 8 lanes = a warp over 4 rows.
  t.sell.small_min_slots_per_lane = 16.0;
  t.sell.max_lanes = 8;

  // --- BSR lanes per block row ---
  // A lane keeps 4 blocks of an average block row: a 9-block row (2-4-unknown FEM) gets 2 lanes, not
  // 8; with one block a lane those matrices reached 42-58% of the streaming bandwidth.
  t.bsr.min_blocks_per_lane = 4.0;

  // --- SpMM format ---
  // ELLPACK-R never reads its padding: the limit is the slab's size, not its padding.
  t.spmm.ellr_max_padding_ratio = 64.0;
  t.spmm.ellr_max_slots = int64_t{1} << 28;  // 3 GB in f64
  // Spread rows idle most lanes of an ELLR-T warp; the row-split CSR kernel walks each row's own.
  t.spmm.ellr_max_row_spread = 0.6;
  // Short uniform rows: CSR's lanes own columns, ELLR-T gives one thread a whole row.
  t.spmm.short_row_average = 6.5;
  t.spmm.short_row_max_padding = 3.0;
  t.spmm.ellr_max_dense_cols = 8;
  // Small matrices: the CSR rule widens each row's group to fill the device.
  t.spmm.small_matrix_resident_threads_per_row = 4;
  // L = 5..8 measured: CSR's split rows beat ELLR-T on every large matrix; L <= 4 not measured.
  t.spmm.ellr_max_dense_cols_on_device = 4;

  // --- ELLR-T SpMM ---
  // Each slot carries L_c multiply-adds and an L_c-wide read of B: fewer slots per thread than SpMV.
  t.spmm.ellr_threads_by_avg_row = {{16.0, 1}, {96.0, 2}, {192.0, 4}, {384.0, 8}, {768.0, 16}, {kInf, 32}};
  t.spmm.ellr_small_min_slots_per_thread = 4.0;
  t.spmm.ellr_max_block = 128;

  // --- CSR SpMM ---
  // Irregular rows gather B from all over memory: latency-bound, more lanes in flight beat wide
  // loads, unless an L_c-wide slab of B fits in the L2.
  t.spmm.irregular_padding = 3.0;
  t.spmm.irregular_spread = 1.0;
  t.spmm.cols_per_lane = 4;  // two double2 or one float4 per nonzero: no reduction across lanes
  t.spmm.cols_per_lane_irregular = 1;
  t.spmm.b_l2_fraction = 0.5;
  t.spmm.nonzeros_per_split_lane = 16.0;
  t.spmm.large_items_per_warp = 256;
  // Large regular matrices at L_c = 8: two lanes of four columns split each row (four in f32).
  t.spmm.large_split_cols = 8;
  t.spmm.large_split_min_avg_row = 16.0;
  t.spmm.large_split_four_min_avg_row = 32.0;
  // Small matrices at L_c <= 8 are latency-bound: wider groups, within the resident threads for
  // regular rows (the census graphs ran slower past it), up to four waves for irregular ones.
  t.spmm.widen_max_cols_per_pass = 8;
  t.spmm.widen_irregular_long_row = 128;
  t.spmm.widen_irregular_waves = 4;
  t.spmm.widen_irregular_nonzeros_per_lane = 1.0;
  t.spmm.widen_regular_nonzeros_per_lane = 2.0;
  // The long-row kernel's atomics cost more than a short walk; 64 slots of walk ~ 6 µs.
  t.spmm.min_long_row_nnz = 32;
  t.spmm.max_long_row_nnz = 1 << 16;
  // In a small matrix the long-row pass (a memset and a launch) costs more than a few chunks' walk.
  t.spmm.small_long_row_chunks = 5;
  // Tiles: one wave of warps on a small matrix; several waves to balance on a large one.
  t.spmm.tiled_small_above_cols_per_pass = 8;
  t.spmm.min_tile_items = 32;
  t.spmm.max_tile_items = 2048;
  t.spmm.tiled_min_padding = 15.0;
  t.spmm.tiled_max_spread = 6.0;
  // Large regular matrices at L_c = 32: one 16-byte load of B per lane and nonzero.
  t.spmm.large_vector_cols = 32;
  t.spmm.large_vector_bytes = 16;
  t.spmm.large_vector_block = 128;
  // Small matrices at L_c = 32: more lanes per row than the columns need cut the serial walk.
  t.spmm.small_split_cols = 32;
  t.spmm.small_split_warp_fill = 0.5;
  t.spmm.small_split_half_warp_fill = 1.0;
  t.spmm.small_split_min_avg_row = 8.0;

  // --- Planner ---
  // Rule-mode orders: each kernel's rank per class of matrix is on its catalogue row, with why each
  // class is ordered so (plan/catalogue.cpp).
  t.planner.spmv_uniform = catalogue_rule_order(RuleOrder::SpmvUniform);
  t.planner.spmv_spread = catalogue_rule_order(RuleOrder::SpmvSpread);
  t.planner.spmv_irregular = catalogue_rule_order(RuleOrder::SpmvIrregular);
  t.planner.spmv_long_rows = catalogue_rule_order(RuleOrder::SpmvLongRows);
  t.planner.spmm_row_major = catalogue_rule_order(RuleOrder::SpmmRowMajor);
  t.planner.spmm_col_major = catalogue_rule_order(RuleOrder::SpmmColMajor);
  t.planner.auto_light_kernel = light_plan_row().name;
  if (const KernelRow* rival = light_rival_row()) t.planner.auto_light_rival = rival->name;
  t.planner.c16_max_escape_share = 0.05;
  t.planner.c16_min_bytes_saved = 0.10;
  // Each cuSPARSE SpMM algorithm's time over the modelled best: on its catalogue row, with where
  // the numbers come from.
  for (const KernelRow& r : catalogue())
    if (r.spmm() && r.vendor != VendorAlg::None)
      t.planner.vendor_spmm_over_best.push_back({r.name, r.over_best_l8, r.over_best_l32});

  // --- Segmented sum ---
  // A small matrix in large tiles runs too few warps, each a longer chain of round trips.
  t.segsum.nnz_per_lane_steps = {16, 8};
  t.segsum.min_nnz_per_lane = 4;
  t.segsum.resident_warps_per_sm = 32;
  // Dirty tiles place their rows by search: half-size tiles are faster when many are dirty.
  t.segsum.dirty_fraction = 0.125;
  t.segsum.dirty_nnz_per_lane = 8;
  // The kernel is bound by the L2 (the x gather), not the per-tile work longer warps amortise.
  t.segsum.tiles_per_warp = 1;
  // On a grid of a few waves the synchronizer's second launch is a large share of the time; a tail
  // of 512 nonzeros costs its warp about that launch.
  t.segsum.completion_waves = 2;
  t.segsum.completion_limit = 512;

  // --- DGEMM version 3 (gemm_rule; docs/dgemm.md "Shape classes", docs/rules.md) ---
  // Per tile {tensor fraction, alone fraction, store overlap, store efficiency} (extents and blocks
  // per SM: the tile table): fitted by bench/gemm_fit.py (coordinate search, rounded) so that the rule's pick
  // among the (tile, split) variants measured per shape of the 45-shape grid is the fastest measured one
  // (H100, bench/results/h100/gemm/grid-variants-<commit>.json.gz; validated on shapes outside the
  // grid: docs/dgemm.md). 128 x 128 sustains the most per SM but writes C with its tensor cores
  // idle; 128 x 64 hides about half its stores behind the second block; 64 x 64 pays the paper's RB
  // (1/64 + 1/64: 7.3 TB/s of L2 at the tensor rate); the 32-deep-slab tiles 64 x 32, 32 x 64 and
  // 32 x 32 fill the SMs on small and long-k grids without a split (or with fewer) and lose to the
  // L2 on anything larger.
  t.gemm.tiles = {spx_tile(cuda::GemmTile::T128x128, 0.75, 1.0, 0.05, 0.78),
                  spx_tile(cuda::GemmTile::T128x64, 0.685, 0.86, 0.45, 0.64),
                  spx_tile(cuda::GemmTile::T64x64, 0.61, 0.73, 0.38, 0.68),
                  spx_tile(cuda::GemmTile::T64x32, 0.65, 0.75, 0.1, 0.83),
                  spx_tile(cuda::GemmTile::T32x64, 0.65, 0.75, 0.05, 0.69),
                  spx_tile(cuda::GemmTile::T32x32, 0.55, 0.8, 0.3, 0.65)};
  t.gemm.tensor_tflops = 66.3;  // spx_micro, DMMA m16n8k4
  t.gemm.l2_gbs = 5960.0;       // fitted with the fractions (no L2 micro-benchmark yet)
  // Splits up to two waves of 64 x 64 blocks for a single output tile (64 x 64 x 1e5).
  t.gemm.split_steps = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 132, 198, 264, 396, 528, 792};
  t.gemm.min_split_slabs = 8;  // 128 deep: the 3-4 stage pipeline fills and drains in ~20% of it
  t.gemm.max_workspace_bytes = std::size_t{256} << 20;
  t.gemm.launch_us = 3.0;  // per launch as the back-to-back timings see it (1000^2 x 16: 7.8 us)
  // cuBLAS's DGEMM as Auto's other candidate: the three tiles its H100 kernels use most (128 x 64 x 16
  // at 2 blocks per SM, 64 x 64 x 16, 32 x 32 x 32; bench/results/h100/gemm/NOTES.md "What cuBLAS
  // runs"), their fractions fitted by bench/gemm_vendor_fit.py to cuBLAS's times on the 45 grid shapes
  // (H100, bench/results/h100/gemm/grid-auto-a26edae.json.gz: spx and cuBLAS timed call by call) so
  // that the pick between it and spx's best gives the most speed; scored on the 27 validation shapes
  // (docs/dgemm.md "Auto and cuBLAS"). The fractions are fitted numbers of a model, not measurements of
  // cuBLAS's kernels (64 x 64's stores, say); a fourth tile (32 x 64) fitted the grid better and the
  // validation shapes worse, and was left out.
  t.gemm.vendor_tiles = {{cuda::GemmTile::Auto, 128, 64, 2, 0.81, 0.5, 0.44, 0.87, 16},
                         {cuda::GemmTile::Auto, 64, 64, 3, 0.9, 0.86, 0.95, 0.29, 16},
                         {cuda::GemmTile::Auto, 32, 32, 4, 0.6, 0.2, 0.49, 0.76, 32}};
  t.gemm.vendor_margin = 0.0;
  // Fitted by bench/gemm_vendor_fit.py --unaligned on the 23 odd-extent shapes of
  // bench/gemm-shapes/odd-grid.txt (H100, bench/results/h100/gemm/odd-grid-b022a48.json.gz): cuBLAS ran
  // them 1.3-1.9x slower than the even shapes beside them (4095^3: 3328 against 4096^3's 2490 us), spx's
  // v3 1.0-1.1x on large squares. Terms for spx's own unaligned paths fitted the odd grid better and the
  // odd-validation shapes worse, and were left out (docs/dgemm.md "Auto and cuBLAS").
  t.gemm.vendor_unaligned_tensor = 0.8;
  t.gemm.vendor_unaligned_store = 0.88;
  // spx's small tiles on odd leading dimensions ran 1.5-1.8x slower than their (aligned) model:
  // 255^3 10.3 against 6.8 us, 383^3 17.8 against 12.1, 63 x 99999 x 63 79 against 44. The least
  // threshold and margin that leave no shape of the fit sets (grid and odd grid, two runs each) below
  // 0.85x cuBLAS (bench/gemm_vendor_fit.py --small): predicted 1.031x there, worst 0.918.
  t.gemm.unaligned_small_us = 45.0;
  t.gemm.unaligned_small_margin = 0.5;

  // --- DGEMM emulated on INT8 tensor cores (gemm_emulation_plan; docs/dgemm.md "Emulated DGEMM") ---
  t.gemm_emulation.int8_tops = 1979.0;  // H100 SXM dense INT8 tensor peak, 132 SMs
  // Of it the emulation's own cuBLASLt INT8 GEMMs reach (int32 out, k-padded): ~1150 TOPS, fitted to
  // the emulated calls measured on an H200 at 4096^3-16384^3 (bench/results/h200/gemm/emulation-*).
  t.gemm_emulation.int8_fraction = 0.58;
  t.gemm_emulation.int8_tile_m = 256;  // cuBLASLt's INT8 block tile: one per SM per wave
  t.gemm_emulation.int8_tile_n = 128;
  t.gemm_emulation.convert_efficiency = 0.8;
  // The CRT reconstruction's integer arithmetic is compute-bound: ~5x the int32 product's read-back,
  // fitted to the same H200 calls (8192^2 x 256: 8.7 ms).
  t.gemm_emulation.reconstruct_ps = 6.0;
  t.gemm_emulation.launch_us = 3.0;
  t.gemm_emulation.sync_us = 20.0;  // one host round trip for the inputs' statistics
  t.gemm_emulation.margin = 0.1;    // the model's error band: emulate only where clearly faster
  t.gemm_emulation.min_cc_major = 9;
  return t;
}

}  // namespace

const RuleTables& default_rule_tables() {
  static const RuleTables tables = [] {
    RuleTables t = make_default_rule_tables();
    plan::check_planner_table(t.planner);  // every kernel name a candidate of the catalogue
    return t;
  }();
  return tables;
}

const CsrRuleTable& default_csr_rule_table() { return default_rule_tables().csr; }

}  // namespace spx::plan
