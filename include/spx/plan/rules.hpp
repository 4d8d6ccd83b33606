// The fixed rules: every choice spx makes for a matrix without measuring it — the parameters of the
// parametrised CSR SpMV, ELLR-T's threads per row and block size, SELL-C16's and BSR's lanes per
// row, the SpMM format and the configurations of both SpMM kernels, the segmented sum's tile shape and
// mode, DGEMM's tile, split, cuBLAS and INT8-emulation choices — in one place.
//
// A rule is a small function of the matrix statistics and the device that walks a table; the
// tables are data (RuleTables; the defaults, with one line on why each step has its shape, are in
// src/plan/rule_tables.cpp, and the measurement each number came from is in docs/rules.md). A
// caller, the tuner or a refit (tools/fit_csr_rule.py) can run a rule on another table.
//
// Host code with no CUDA dependency: the rules run and are tested in every build. The kernels they
// configure are declared in spmv_csr.hpp, spmv_formats.hpp, spmv_segsum.hpp, spmv_bsr.hpp, spmm.hpp
// and gemm.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "spx/cuda/context.hpp"
#include "spx/cuda/gemm.hpp"
#include "spx/cuda/kernel_params.hpp"
#include "spx/model.hpp"
#include "spx/stats.hpp"

namespace spx::plan {

// --- The device, as the rules see it ---------------------------------------------------------

// The rules read the device through model::device_basics(props) (spx/model.hpp): every unset field
// takes the H100 SXM's figure.
//
// What a streaming kernel gets (GB/s): kStreamShareOfDatasheet of the datasheet bandwidth (close to
// the measured copy bandwidth: 3006 of 3352 GB/s on the H100), or DeviceBasics' H100 copy figure
// (3000 GB/s) when the properties have no clocks.
inline constexpr double kStreamShareOfDatasheet = 0.9;
double streaming_gbs(const cuda::DeviceProps& props);

// Threads the whole device keeps resident at once: SMs × threads per SM, limited by the blocks per
// SM at `block_size` (0: no block limit) and by a kernel's own cap of resident warps per SM
// (`warps_per_sm`, 0: none; e.g. a register cap).
int64_t resident_threads(const cuda::DeviceProps& props, int block_size = 0, int warps_per_sm = 0);

// --- The tables -------------------------------------------------------------------------------

// A step of a table keyed by the average row length: the first step whose bound exceeds the
// average applies (bounds exclusive, ascending; the last step catches the rest).
struct AverageRowStep {
  double avg_row_below;
  int value;
};

// Parametrised CSR SpMV (Reguly & Giles §5.4 re-derived for Hopper). `spx tune` records the table it
// ran with and tools/fit_csr_rule.py refits it from its measurements.
struct CsrRuleTable {
  // coop = the first step whose bound exceeds the average row length (the paper: the smallest
  // power of two above sqrt(avg row length), i.e. coop^2 > avg); the last step catches the rest.
  struct CoopStep {
    double avg_row_below;
    int coop;
  };
  std::vector<CoopStep> coop_steps;
  int block_size = 256;
  // repeat = the last step whose bound is <= rows / resident thread groups (resident groups =
  // SMs × resident threads per SM / coop): a block takes more rows only while enough blocks
  // remain to fill the device several times over (the paper: at least 1500 blocks on 14 SMs).
  struct RepeatStep {
    double rows_per_resident_group_from;
    int repeat;
  };
  std::vector<RepeatStep> repeat_steps;
  // Long rows (see csr_long_row_threshold): a row is long when its group would need more than
  // max(long_row_min_iterations, long_row_share × nnz / resident threads) iterations.
  double long_row_min_iterations = 64;
  double long_row_share = 1.0;
  // Large matrices with short rows: when the coop picked above leaves at least
  // halve_coop_rows_per_group rows per resident thread group and the average row is below
  // halve_coop_avg_below, coop is halved.
  double halve_coop_rows_per_group = 16;
  double halve_coop_avg_below = 24;
};

// The serial walk of one thread group and the spreading of small grids, shared by the ELLR-T SpMV
// and both SpMM rules.
struct LaunchShapeTable {
  // The group of the longest row walks its slots one after the other, each about ns_per_serial_slot;
  // that walk should not outlast streaming the matrix (nnz × bytes_per_nonzero at the device's
  // streaming bandwidth), and is never held below min_serial_slots.
  double ns_per_serial_slot = 100.0;
  double bytes_per_nonzero = 12.0;
  int64_t min_serial_slots = 64;
  // Block sizes tried largest first: the first whose grid still gives every SM min_blocks_per_sm
  // blocks; else the smallest block that keeps full occupancy.
  std::vector<int> spread_blocks = {256, 128};
  int min_blocks_per_sm = 2;
};

// ELLR-T SpMV (FastSpMM paper §2, Vázquez et al.'s model re-derived for Hopper).
struct EllrRuleTable {
  std::vector<AverageRowStep> threads_by_avg_row;  // T from the average row length
  // Small matrices: T doubles while rows × T < resident threads and an average row still gives each
  // thread this many slots.
  double small_min_slots_per_thread = 2.0;
};

// SELL-C16 (and its dictionary and RCM variants): lanes per row. One thread a row leaves a matrix of
// few long rows (fewer rows than resident threads) latency-bound: each thread walks its row one step
// of loads after another. L lanes split a row's slots round-robin (a warp then covers 32 / L rows of
// one slice, its loads still whole sectors) and add their partial sums by shuffles.
struct SellRuleTable {
  // Lanes double while rows × lanes < resident threads and every lane keeps this many slots of the
  // average (padded) row, up to max_lanes.
  double small_min_slots_per_lane = 16.0;
  int max_lanes = 8;
};

// BSR SpMV: lanes per block row (Q of BsrSpmvParams). A lane walking one block of a block row did
// one dependent chain of loads (row pointer, column, x) per block row; Q doubles only while every
// lane keeps min_blocks_per_lane blocks of an average block row, enough to fill the kernel's steps
// of several blocks' loads in flight.
struct BsrRuleTable {
  double min_blocks_per_lane = 4.0;
};

// SpMM: the format, ELLR-T SpMM (SSFastSpMM) and CSR SpMM.
struct SpmmRuleTable {
  // Format, statistics only: CSR when the ELLPACK-R slab is too large, the rows spread, or short
  // uniform rows; ELLR-T otherwise.
  double ellr_max_padding_ratio = 64.0;
  int64_t ellr_max_slots = int64_t{1} << 28;
  double ellr_max_row_spread = 0.6;  // stddev / average
  double short_row_average = 6.5;
  double short_row_max_padding = 3.0;
  int64_t ellr_max_dense_cols = 8;  // CSR above this many columns
  // Format, with the device: CSR for a small matrix (rows × this <= resident threads), and above
  // ellr_max_dense_cols_on_device columns.
  int64_t small_matrix_resident_threads_per_row = 4;
  int64_t ellr_max_dense_cols_on_device = 4;

  // ELLR-T SpMM.
  std::vector<AverageRowStep> ellr_threads_by_avg_row;
  double ellr_small_min_slots_per_thread = 4.0;
  int ellr_max_block = 128;

  // CSR SpMM. Irregular rows (one column per lane unless B fits in L2, no large-matrix steps):
  // padding above irregular_padding or spread above irregular_spread.
  double irregular_padding = 3.0;
  double irregular_spread = 1.0;
  int cols_per_lane = 4;
  int cols_per_lane_irregular = 1;
  double b_l2_fraction = 0.5;  // an L_c-wide f64 slab of B "fits" in this share of the L2
  double nonzeros_per_split_lane = 16.0;
  // Large: rows + nnz >= large_items_per_warp × resident warps.
  int64_t large_items_per_warp = 256;
  // Large, regular, L_c = large_split_cols: rows of large_split_min_avg_row+ split over two lanes of
  // cols_per_lane columns (four in f32 for rows of large_split_four_min_avg_row+).
  int large_split_cols = 8;
  double large_split_min_avg_row = 16.0;
  double large_split_four_min_avg_row = 32.0;
  // Small, L_c <= ellr_max_dense_cols: widen the group while the grid has room (irregular: up to
  // widen_irregular_waves resident waves; regular: while rows × 2G fit the resident threads) and an
  // average row gives each splitting lane widen_*_nonzeros_per_lane nonzeros; rows count as
  // irregular there only with a row longer than widen_irregular_long_row.
  int widen_max_cols_per_pass = 8;
  int64_t widen_irregular_long_row = 128;
  int64_t widen_irregular_waves = 4;
  double widen_irregular_nonzeros_per_lane = 1.0;
  double widen_regular_nonzeros_per_lane = 2.0;
  // Long rows: the serial budget × split, clamped to [min_long_row_nnz, max_long_row_nnz]; in a
  // small matrix rows of up to small_long_row_chunks chunks stay with their group.
  int min_long_row_nnz = 32;
  int max_long_row_nnz = 1 << 16;
  int64_t small_long_row_chunks = 5;
  // Balanced tiles: of next_pow2(items / resident warps) items, clamped to [min, max]; in a large
  // matrix with long rows, in a small one above ellr_max_dense_cols columns when the rows are
  // moderately spread (padding >= tiled_min_padding, spread <= tiled_max_spread).
  int tiled_small_above_cols_per_pass = 8;
  int64_t min_tile_items = 32;
  int64_t max_tile_items = 2048;
  double tiled_min_padding = 15.0;
  double tiled_max_spread = 6.0;
  // Large, regular, L_c = large_vector_cols: 16-byte loads of B per lane, blocks of large_vector_block.
  int large_vector_cols = 32;
  int large_vector_bytes = 16;
  int large_vector_block = 128;
  // Small, row-split, L_c = small_split_cols: a warp per row of 4 columns per lane when rows × 32
  // lanes fill at most small_split_warp_fill of the resident threads and rows average
  // small_split_min_avg_row+; else at least 16 lanes when rows × 16 fill at most
  // small_split_half_warp_fill of them.
  int small_split_cols = 32;
  double small_split_warp_fill = 0.5;
  double small_split_half_warp_fill = 1.0;
  double small_split_min_avg_row = 8.0;
};

// Segmented-sum SpMV (Liu & Vinter), the choices of plan_segsum_spmv.
struct SegsumRuleTable {
  // T: the largest of these that still gives every resident warp slot a tile; else the smallest.
  std::vector<int> nnz_per_lane_steps = {16, 8};
  int min_nnz_per_lane = 4;
  // The tile kernel's resident warps per SM (its register cap: __launch_bounds__(512, 2)).
  int resident_warps_per_sm = 32;
  // Many dirty tiles (more than this fraction): T = dirty_nnz_per_lane where the rule gave 16.
  double dirty_fraction = 0.125;
  int dirty_nnz_per_lane = 8;
  int tiles_per_warp = 1;
  // Row completion for grids of at most this many waves of resident warps, with this limit.
  int64_t completion_waves = 2;
  int64_t completion_limit = 512;
};

// The planner (spx/plan.hpp): which candidates are eligible, their rule-mode order, and the cost
// estimates of their setup, before anything is built or timed.
struct PlannerRuleTable {
  // Padding limits past which a padded format is not a candidate (its slab alone would take
  // gigabytes and it measures its padding): slots per nonzero.
  double ell_max_padding = 20.0;
  double ellr_max_padding = 32.0;
  double spmm_ellr_max_padding = 64.0;
  double sell_max_slots_per_nnz = 4.0;  // SELL-32 slots over nonzeros (features), cuSPARSE SELL
  // CSR-C16 (16-bit column offsets): at most this share of the nonzeros in escape rows (span over
  // 65535, kept in 32-bit CSR), and at least this share of the matrix bytes saved against CSR.
  double c16_max_escape_share = 0.05;
  double c16_min_bytes_saved = 0.10;
  // BSR is a candidate only when its best block size moves at most (1 - bsr_min_saving) of CSR's
  // matrix bytes (src/plan/format_bsr.cpp): a smaller saving does not pay its fill and setup.
  double bsr_min_saving = 0.10;
  // rcm_csr (src/plan/format_rcm.cpp) only on rows of at least rcm_min_avg_row nonzeros on average
  // and ELL padding at most rcm_max_padding: on the H200 formats suite it won 1.4-1.6x on a shuffled
  // 27-point mesh and lost 0.5-0.75x on power-law and R-MAT graphs and a shuffled 5-point mesh.
  // spx's column-major CSR SpMM (spmm_csr_col) only up to this ELL padding (max row / mean row):
  // on the H200 validation suite it was the fastest candidate on every regular matrix and lost
  // 0.6-0.8x to cuSPARSE's column-major COO ALG3 / CSR ALG1 on power-law, R-MAT and long rows.
  double spmm_col_csr_max_padding = 8.0;
  // spx's column-major SpMM kernels only while a dense row (L x value bytes) is at most this many
  // bytes: at L = 8 (32/64 bytes) spmm_csr_col was the fastest candidate on every regular matrix of
  // the H200 validation suite; at L = 32 (128/256 bytes) cuSPARSE's column-major COO ALG3 / CSR ALG1
  // beat it on 15 of 22 products (f64 by 1.3-3x).
  int spmm_col_spx_max_row_bytes = 64;
  double rcm_min_avg_row = 12.0;
  double rcm_max_padding = 2.0;
  // Rule mode, SpMV: the order of preference per class of matrix, by ELL padding (rows × longest
  // row / nnz): uniform rows up to uniform_padding, spread rows up to spread_padding, irregular
  // beyond; long rows (average above long_row_average) have their own list. The default tables
  // make these lists and the SpMM ones from the kernel catalogue's ranks (src/plan/catalogue.cpp).
  double uniform_padding = 1.25;
  double spread_padding = 8.0;
  double long_row_average = 64.0;
  std::vector<std::string> spmv_uniform, spmv_spread, spmv_irregular, spmv_long_rows;
  // Rule mode, SpMM: spx's format rule's kernel first, then these.
  std::vector<std::string> spmm_row_major, spmm_col_major;
  // Model mode: the model predicts cuSPARSE's SpMM as its best algorithm per problem
  // (cusparse_spmm_best); a plan runs one algorithm, typically this much slower than that best
  // (geomean over the calibration suite, L = 8 for L <= 16, L = 32 above).
  struct VendorSpmmRatio {
    std::string kernel;
    double at_l8 = 1.0, at_l32 = 1.0;
  };
  std::vector<VendorSpmmRatio> vendor_spmm_over_best;
  // Rule mode: with fewer expected calls than this, candidates that convert the matrix rank after
  // those that run on the CSR as it is (a conversion costs tens to hundreds of products).
  int64_t rule_min_calls_to_convert = 200;
  // Setup estimates (µs): a fixed cost per built candidate (allocations, a synchronisation) and
  // the conversion's bytes at these rates. A conversion on the GPU also pays its read-backs and
  // launches (device_convert_fixed_us) and each of its format's device allocations
  // (device_allocation_us: cudaMalloc took 40-80 us on the H200 whatever the size, 4 MB to 1 GB),
  // and writes at a share of the copy bandwidth. Fitted on the planner's measured setup of ELL, HYB,
  // SELL-C16 and SELL-C16-dict on the H200 (formats suite and fresh set, 6-81M nonzeros: 0.4-1.8 ms,
  // of which ~0.6 ms is fixed for SELL-C16); the earlier 40 us + bytes at 0.25 of copy priced them
  // 3-4x low, so 100 calls converted where the conversion could not pay.
  double setup_fixed_us = 40.0;
  double device_convert_fixed_us = 160.0;
  double device_allocation_us = 75.0;
  double device_convert_fraction_of_copy = 0.17;  // GPU conversions: a share of the copy bandwidth
  double host_convert_gbs = 2.0;                  // host conversion + upload (COO, SELL)
  double vendor_preprocess_ns_per_nnz = 0.05;     // cuSPARSE analysis, per nonzero
  // Mode::Auto (decide_auto): a candidate's timing costs at least auto_timing_us (measure mode's
  // 2 ms per candidate) or auto_timing_runs of its predicted time; a kernel without a known model
  // error is taken as auto_unknown_error off; the saving expected from timing is auto_gain_share of
  // the overlap of the error bands (both bands are means, not bounds).
  double auto_timing_us = 2000.0;
  double auto_timing_runs = 10.0;
  double auto_unknown_error = 0.25;
  double auto_gain_share = 0.25;
  // Mode::Auto's race on real calls: the contenders take turns on the caller's first calls, each
  // timed by events read without waiting, and the fastest is kept. It may use auto_race_share of
  // the expected calls; each contender gets one untimed first call (lazy module loading, cuSPARSE's
  // first-call work) and between auto_race_min_samples and auto_race_max_samples timed ones (the
  // median decides). A call of a contender that loses costs auto_race_loss of its time (the
  // contenders are within the model's errors of each other).
  double auto_race_share = 0.25;
  int auto_race_min_samples = 3;
  int auto_race_max_samples = 31;
  double auto_race_loss = 0.3;
  // Mode::Auto's light plan (light_plan): planning itself — the formats' host inputs, the features on
  // the GPU, the ranking, the chosen format's conversion — costs about auto_plan_fixed_us +
  // auto_plan_us_per_mnnz per million nonzeros (H200, formats suite at 6-29M nonzeros: 1.9-4.2 ms, a
  // median of 2.0 ms + 60 us per million; of it host inputs 1.0-3.1 ms, features 0.3-0.6 ms,
  // conversions 0.3-1.6 ms; h200/spmv-formats/default-calls-*). It can save at most
  // auto_light_gain_share of the products' time over the expected calls (the light kernel's measured gap to
  // the fastest candidate); each product takes at least auto_launch_floor_us, or CSR's bytes at the copy
  // bandwidth. Where planning would cost more than it can save, an SpMV runs auto_light_kernel by its fixed
  // rule at once: no features, no conversion, no timing. On rows of uniform length (ELL padding up to
  // uniform_padding) ELL and SELL beat the light kernel by up to 2x once the products leave the launch floor
  // (csr_param with its evict-first loads at 0.53-0.80 of the fastest on the formats suite's stencils and
  // FEM), so planning may save up to auto_light_gain_share_uniform there (0.4: of 0.3, 0.4, 0.5 the
  // best 100-call geomean on the formats suite with planning counted); elsewhere csr_param was within
  // 10% of the fastest.
  double auto_plan_fixed_us = 2000.0;
  double auto_plan_us_per_mnnz = 60.0;
  double auto_light_gain_share = 0.10;
  double auto_light_gain_share_uniform = 0.4;
  double auto_launch_floor_us = 4.0;
  std::string auto_light_kernel;  // the default tables: the kernel catalogue's light_plan row
  // On irregular rows (ELL padding past spread_padding) no CSR kernel wins everywhere: csr_param
  // took 0.73-1.37x cuSPARSE CSR ALG1's time there (H200: power-law graphs 1.05-1.27x, a few huge
  // rows and road networks 0.73-0.89x; calibration, validation and shared suites). The light plan
  // then races auto_light_rival against the light kernel on the caller's first calls,
  // auto_light_race_samples timed calls each after one untimed (neither converts anything).
  std::string auto_light_rival;  // the default tables: the catalogue's light_rival row (or none)
  int auto_light_race_samples = 4;
};

// DGEMM version 3: the tile shape and the k splits (gemm_rule). Tan et al.'s blocking model per
// shape class: every (tile, split) candidate is timed by a roofline of its waves — the DMMA work of
// the busiest SM at the rate its tile sustains (the tensor rate, or the L2 → SM bandwidth the tile's
// 1/bm + 1/bn needs, the paper's RB), plus the C stores no other block hides — against the HBM bytes
// of A, B, C and the split partials; the fastest wins. docs/dgemm.md derives each term.
struct GemmTileEntry {
  cuda::GemmTile tile;  // Auto in GemmRuleTable::vendor_tiles: a tile of cuBLAS's, modelled, never launched
  int bm, bn;
  int blocks_per_sm;        // resident blocks per SM (registers, shared memory)
  double tensor_fraction;   // share of tensor_tflops an SM full of these blocks sustains
  double alone_fraction;    // share of that rate one block alone on an SM reaches (b blocks: b × it, <= 1)
  double store_overlap;     // share of C's store time hidden behind co-resident blocks' DMMAs
  double store_efficiency;  // share of the streaming bandwidth the tile's C (or partial) stores reach
  int bk = 0;               // k depth of a slab; 0: the spx tile's (gemm_tile_shape(tile).bk)
};
struct GemmRuleTable {
  std::vector<GemmTileEntry> tiles;  // the candidates; the first is the fallback
  double tensor_tflops = 66.3;       // FP64 tensor peak (DMMA m16n8k4, spx_micro)
  double l2_gbs = 5500.0;            // L2 → SM bandwidth all SMs share
  // HBM: the device's streaming bandwidth (streaming_gbs).
  std::vector<int> split_steps;  // split factors tried (1 first)
  int64_t min_split_slabs = 8;   // a split keeps at least this many of the tile's slabs (pipeline fill)
  std::size_t max_workspace_bytes = std::size_t{256} << 20;  // s × m × n partials at most
  double launch_us = 3.0;  // per kernel launch (the reduction is a second one)
  // cuBLAS's DGEMM, Auto's other candidate: modelled as the best of these tiles (the shapes its
  // kernels use, with their own fitted fractions: bench/gemm_vendor_fit.py) over split_steps. Auto
  // hands the product to cuBLAS where that time is below spx's best times (1 + vendor_margin).
  // Empty: spx's kernels only.
  std::vector<GemmTileEntry> vendor_tiles;
  double vendor_margin = 0.0;
  // cuBLAS on operands that are not all 16-byte aligned (an odd leading dimension, or a pointer off
  // 16 bytes) runs its unaligned kernels (align1): its tiles' tensor fraction and store efficiency
  // times these.
  double vendor_unaligned_tensor = 1.0;
  double vendor_unaligned_store = 1.0;
  // spx's small tiles copy 8 bytes at a time on unaligned operands, which the tile model (fitted on
  // aligned shapes) does not know: where the operands are unaligned and spx's predicted time is under
  // unaligned_small_us, spx runs only if predicted (1 + unaligned_small_margin) x faster than cuBLAS.
  double unaligned_small_us = 0.0;
  double unaligned_small_margin = 0.0;
};

// The emulated DGEMM's cost model (gemm_emulation_plan; docs/dgemm.md, "Emulated DGEMM", says what
// each figure rests on: predicted, not fitted, except where a field says so).
struct GemmEmulationRuleTable {
  double int8_tops = 1979.0;    // H100 SXM dense INT8 tensor peak, 132 SMs (scaled by the SM count)
  double int8_fraction = 0.58;  // of it the emulation's own cuBLASLt INT8 GEMMs reach (fitted)
  int int8_tile_m = 256;        // the INT8 GEMM's block tile (waves = tiles / SMs, one per SM)
  int int8_tile_n = 128;
  double convert_efficiency = 0.8;  // share of the streaming bandwidth the conversion kernels reach
  double reconstruct_ps = 6.0;      // CRT reconstruction, per element of C and modulus (fitted)
  double launch_us = 3.0;           // per kernel or GEMM launch
  double sync_us = 20.0;            // the host round trip that reads the statistics
  double margin = 0.1;              // Auto emulates only where predicted (1 + margin) x faster
  int min_cc_major = 9;             // the figures are Hopper's; other devices: no prediction
};

struct RuleTables {
  PlannerRuleTable planner;
  CsrRuleTable csr;
  LaunchShapeTable launch;
  EllrRuleTable ellr;
  SellRuleTable sell;
  BsrRuleTable bsr;
  SpmmRuleTable spmm;
  SegsumRuleTable segsum;
  GemmRuleTable gemm;
  GemmEmulationRuleTable gemm_emulation;
};

// The tables the rules use by default (src/plan/rule_tables.cpp).
const RuleTables& default_rule_tables();
const CsrRuleTable& default_csr_rule_table();  // = default_rule_tables().csr

// --- Parametrised CSR SpMV ----------------------------------------------------------------------

// The fixed rule (constant time in the matrix size): params from the row-length statistics
// (rows, nnz, avg_row) and the device. Always valid, for any stats (empty matrices included).
cuda::CsrSpmvParams csr_fixed_rule(const MatrixStats& stats, const cuda::DeviceProps& props,
                                   const CsrRuleTable& table = default_csr_rule_table());

// Row length above which a row leaves the main kernel for the long-row path, for these params:
// coop × max(min_iterations, share × nnz / resident threads). Its group of coop threads would
// otherwise walk it alone while the rest of the device idles (the paper's dc1 case).
int64_t csr_long_row_threshold(int64_t nnz, const cuda::CsrSpmvParams& params, const cuda::DeviceProps& props,
                               const CsrRuleTable& table = default_csr_rule_table());

// CSR-C16: rows longer than this go to the escape part too (their warps-per-chunk path), as
// csr_param sends them to its long-row path: csr_long_row_threshold under csr_fixed_rule's params.
int64_t csr_c16_escape_threshold(const MatrixStats& stats, const cuda::DeviceProps& props);

// --- ELLR-T SpMV ----------------------------------------------------------------------------------

// T grows with the average row length, is raised further when rows × T threads would not fill the
// device or when the longest row would make one thread group the critical path; BS keeps full
// occupancy and spreads small grids over every SM. Constant time.
cuda::EllrTParams ellr_t_rule(const MatrixStats& stats, const cuda::DeviceProps& device,
                              const RuleTables& tables = default_rule_tables());

// SELL-C16's lanes per row (SellRuleTable): 1, 2, 4 or 8, from the rows and the stored slots.
int sell_c16_lanes(int64_t rows, int64_t slots, const cuda::DeviceProps& device,
                   const RuleTables& tables = default_rule_tables());

// --- BSR SpMV ------------------------------------------------------------------------------------

// BSR's lanes per block row for blocks of `block` (b): the largest power of two Q with
// Q x min_blocks_per_lane <= the average blocks per block row (at least 1), capped so that
// b x Q <= cuda::kBsrMaxGroupLanes; block_size the kernel's default. Constant time.
cuda::BsrSpmvParams bsr_spmv_rule(int block, int64_t blocks, int64_t block_rows,
                                  const RuleTables& tables = default_rule_tables());

// Block size for a grid of `threads` threads of a memory-bound kernel with full occupancy at any
// block size of 64 or more: 256, lowered to 128 and then to the smallest block that still allows
// full occupancy when fewer than two blocks per SM would result (so a small grid reaches every SM).
int spread_block_size(int64_t threads, const cuda::DeviceProps& device,
                      const RuleTables& tables = default_rule_tables());

// --- SpMM -----------------------------------------------------------------------------------------

// ELLR-T's (T, BS, L_c) from the matrix statistics and L.
cuda::SpmmEllrParams spmm_ellr_rule(const MatrixStats& stats, int64_t dense_cols,
                                    const cuda::DeviceProps& device,
                                    const RuleTables& tables = default_rule_tables());

// The CSR kernel's configuration. value_bytes is the size of the value type (4: float, 8: double):
// the width of B loads per lane depends on it.
cuda::SpmmCsrParams spmm_csr_rule(const MatrixStats& stats, int64_t dense_cols,
                                  const cuda::DeviceProps& device, int value_bytes,
                                  const RuleTables& tables = default_rule_tables());
// The rule's tile size for balanced mode (what spmm_csr_rule puts in tile_items when it picks it).
int spmm_csr_tile_items(const MatrixStats& stats, const cuda::DeviceProps& device,
                        const RuleTables& tables = default_rule_tables());

// EllR unless the ELLPACK-R slab would be too large (ELLPACK-R never reads its padding, so padding
// costs memory, not time), the rows are short and uniform, or their lengths spread. This one answers
// for L <= 8 columns (or for a matrix alone).
cuda::SpmmFormat spmm_format_rule(const MatrixStats& stats, const RuleTables& tables = default_rule_tables());
// With the number of columns: CSR also when L > 8.
cuda::SpmmFormat spmm_format_rule(const MatrixStats& stats, int64_t dense_cols,
                                  const RuleTables& tables = default_rule_tables());
// With the device (what spx's own entry points use): CSR also for a matrix small for the device and
// at L = 5..8.
cuda::SpmmFormat spmm_format_rule(const MatrixStats& stats, int64_t dense_cols,
                                  const cuda::DeviceProps& device,
                                  const RuleTables& tables = default_rule_tables());

// --- Segmented-sum SpMV ---------------------------------------------------------------------------

// T for a matrix of nnz nonzeros before its tiles are known (plan_segsum_spmv plans again with
// segsum_nnz_per_lane_for_dirty's answer when it differs).
int segsum_nnz_per_lane(int64_t nnz, const cuda::DeviceProps& device,
                        const RuleTables& tables = default_rule_tables());
// T once the dirty tiles are counted: dirty_nnz_per_lane where the auto T was the largest step and
// many tiles are dirty, else `nnz_per_lane`.
int segsum_nnz_per_lane_for_dirty(int nnz_per_lane, int64_t dirty_tiles, int64_t tiles,
                                  const RuleTables& tables = default_rule_tables());
// Whether a grid of `warps` warps completes its rows (auto mode), and the limit it uses.
bool segsum_completes_rows(int64_t warps, const cuda::DeviceProps& device,
                           const RuleTables& tables = default_rule_tables());

// --- DGEMM (version 3) ----------------------------------------------------------------------------

// The rule's answer: a tile and a split factor (1: none), and the time the model predicts. From
// gemm_plan with GemmVersion::Auto also whether cuBLAS runs instead (then tile and split_k are spx's
// best candidate, predicted_us cuBLAS's time) and both sides' times.
struct GemmChoice {
  cuda::GemmTile tile = cuda::GemmTile::T128x128;
  int split_k = 1;
  double predicted_us = 0;         // the model's time of what runs
  bool cublas = false;             // Auto hands the product to cuBLAS's DGEMM
  double spx_predicted_us = 0;     // spx's candidate (tile, split_k)
  double cublas_predicted_us = 0;  // the vendor model's; 0: not considered (not Auto, or no vendor_tiles)
  double margin = 0;               // cuBLAS ran where its time < spx's x (1 + margin)
};
// C (m × n) += op(A) (m × k) op(B) in f64 on `device`; reads_c: beta != 0. Constant time (the
// candidates of the table); m, n, k >= 1. `only` other than Auto: the best split for that tile.
GemmChoice gemm_rule(int64_t m, int64_t n, int64_t k, bool reads_c, const cuda::DeviceProps& device,
                     const RuleTables& tables = default_rule_tables(),
                     cuda::GemmTile only = cuda::GemmTile::Auto);
// The vendor model's time for cuBLAS's DGEMM (the best of GemmRuleTable::vendor_tiles over the
// splits, as gemm_rule walks them), microseconds; infinity when the table has no vendor tiles.
// operands_aligned: lda, ldb, ldc even and A, B, C on 16-byte boundaries (gemm_operands_aligned).
double gemm_vendor_us(int64_t m, int64_t n, int64_t k, bool reads_c, const cuda::DeviceProps& device,
                      const RuleTables& tables = default_rule_tables(), bool operands_aligned = true);
// Whether f64 operands allow 16-byte accesses throughout: every leading dimension even and every
// pointer 16-byte aligned (null pointers count as aligned: the plan is asked before any data exist).
bool gemm_operands_aligned(const void* A, int64_t lda, const void* B, int64_t ldb, const void* C,
                           int64_t ldc);
// The model's time for one candidate (what gemm_rule minimises), microseconds.
double gemm_predicted_us(const GemmTileEntry& tile, int split_k, int64_t m, int64_t n, int64_t k,
                         bool reads_c, const cuda::DeviceProps& device,
                         const RuleTables& tables = default_rule_tables());
// What gemm() runs in f64 for these knobs: version 3's tile and split (cuda::GemmParams::tile, split_k) —
// the rule's choice where a knob is Auto / 0, the caller's where set, split_k as the launch runs it
// (whole slabs of the tile: a factor past what k's slabs allow shrinks) — and the model's time for
// that pair (0 when the tile has no table entry); with version Auto and both knobs unset, cuBLAS
// instead where the vendor model predicts it faster (GemmChoice::cublas; operands_aligned as for
// gemm_vendor_us). gemm() runs exactly this.
GemmChoice gemm_plan(int64_t m, int64_t n, int64_t k, bool reads_c, const cuda::DeviceProps& device,
                     const cuda::GemmParams& params, const RuleTables& tables = default_rule_tables(),
                     bool operands_aligned = true);

// --- DGEMM emulated on the INT8 tensor cores (Ozaki scheme II; spx/cuda/gemm_emulation.hpp) -------

// Auto's emulation candidate for a shape (m, n, k >= 1): the moduli count random-like inputs need
// (or `moduli` when > 0: the count a call's statistics asked for), the predicted times, and whether
// Auto emulates: params.emulation Always (where the inputs allow), or Auto and predicted faster than
// `native_us` (gemm_plan's predicted_us) by the margin.
struct GemmEmulationChoice {
  bool emulate = false;
  bool considered = false;  // false: f32, an explicit version or knob, Never, or no figures
  int moduli = 0;           // INT8 products besides the bound product
  int bits = 0;             // width of the scaled integers
  double emulated_us = 0;   // predicted: all of it
  double int8_us = 0;       // predicted: the (moduli + 1) INT8 GEMMs
  double convert_us = 0;    // predicted: conversions, reconstruction, launches, the round trip
  double native_us = 0;     // gemm_plan's prediction for native
  std::string why;          // one sentence: what runs and why
};
GemmEmulationChoice gemm_emulation_plan(int64_t m, int64_t n, int64_t k, bool reads_c,
                                        const cuda::DeviceProps& device, const cuda::GemmParams& params,
                                        double native_us, int moduli = 0,
                                        const RuleTables& tables = default_rule_tables());

}  // namespace spx::plan
