// The SpMM rules as host-only inline code, so the CPU tests (tests/cpu/spmm_rule_test.cpp) run
// them in every build; src/cuda/spmm/spmm_rules.cpp exposes them as spmm_format_rule,
// spmm_ellr_rule and spmm_csr_rule. Each step is a table or a constant with its reason;
// docs/spmm.md has the H100 study the numbers come from. No CUDA here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "cuda/spmv/ellr_rule.hpp"
#include "spx/cuda/context.hpp"
#include "spx/stats.hpp"

namespace spx::cuda::detail {

// --- Format ----------------------------------------------------------------------------------
// ELLR-T never reads padding slots, so padding costs memory, not bandwidth; what it does cost is
// (1) the slab itself: rows × max_row slots must fit (to_ellr refuses past 2^31 slots), and
// (2) imbalance: the lanes of a warp walk as many slots as the longest of its rows, so a spread of
// row lengths idles most lanes. The CSR kernel walks each row's own nonzeros and splits rows longer
// than long_row_nnz over the whole grid, so it is the safe choice for power-law rows.
// The format rule, fitted on the H100 (bench/results/h100/spmm, the 40 shared matrices at L = 8,
// ELLR-T and CSR SpMM side by side, f32 and f64; docs/spmm.md):
//  * ELLPACK-R never reads its padding, so padding costs memory, not time: ELLR-T beat the CSR
//    kernel of that time on spread matrices with padding up to 45x (PGPgiantcompo, ca-CondMat,
//    nh2010, zenios, vsp_data: 1.1-1.5x) — no longer against today's CSR (kMaxEllrRowSpread). The
//    limit is the slab's size: more than 64 slots per nonzero (the bench's skip rule too) or more
//    than 2^28 slots (3 GB in f64) go to CSR.
//  * Short uniform rows (average below 6.5, padding at most 3x) go to CSR, whose lanes own columns:
//    G3_circuit 127 vs 198 us, cs4, uk, lp_afiro, olm1000, delaunay_n16 (f64, L = 8); ELLR-T gives
//    one thread a whole row of 3-6 nonzeros there.
inline constexpr double kMaxEllrPaddingRatio = 64.0;
inline constexpr int64_t kMaxEllrSlots = int64_t{1} << 28;
inline constexpr double kShortRowAverage =
    6.5;  // delaunay (6.0) CSR, bcsstk01 (8.3) ELLR; stencil7 (6.98) unmeasured
inline constexpr double kShortRowMaxPadding = 3.0;

// Refit after the CSR kernel gained widened groups and balanced tiles (H100, f64, L = 8: CSR from
// bench-spmm-shared-c407a63.json, ELLR-T from bench-spmm-shared.json, same device kind): rows whose
// lengths spread by more than 0.6 of their average now go to CSR at any padding. Row-split CSR
// beat ELLR-T on de2010 (cv 0.62) 11.7 vs 14.2 µs, vt2010 14.2 vs 16.8, zenios 7.4 vs 9.5, karate
// 5.7 vs 7.7, chesapeake 6.5 vs 7.6, and CSR tiles on vsp_data 14.2 vs 25.9, PGPgiantcompo 15.2 vs
// 23.8, nh2010 19.8 vs 21.2, ca-CondMat 20.2 vs 21.2. ELLR-T stays ahead on uniform rows:
// bcsstk13 (cv 0.54) 8.0 vs 10.7, cage11 14.7 vs 16.0, ct2010 (cv 0.58) 20.5 vs 20.7.
inline constexpr double kMaxEllrRowSpread = 0.6;
inline bool spmm_prefers_csr(const MatrixStats& s) {
  if (s.nnz == 0 || s.rows == 0) return false;
  if (s.ell_padding_ratio > kMaxEllrPaddingRatio) return true;
  if (s.avg_row > 0 && s.stddev_row > kMaxEllrRowSpread * s.avg_row) return true;
  const int64_t rows_padded = (s.rows + 31) / 32 * 32;
  if (rows_padded > kMaxEllrSlots / std::max<int64_t>(1, s.max_row)) return true;
  return s.avg_row < kShortRowAverage && s.ell_padding_ratio <= kShortRowMaxPadding;
}

inline constexpr int64_t kMaxEllrDenseCols = 8;

inline bool spmm_prefers_csr(const MatrixStats& s, int64_t dense_cols) {
  return dense_cols > kMaxEllrDenseCols || spmm_prefers_csr(s);
}

// With the device: a small matrix (at most a quarter as many rows as the device has resident
// threads) goes to CSR too. There the CSR rule widens each row's group to fill the device, and
// since its row walk batches its loads (csr_device.cuh) that widened row-split beat ELLR-T at L = 8
// on most small uniform matrices (H100, f64, d07d68a, same run): Andrews 17.9 vs 24.5 µs, cage11
// 12.4 vs 14.6, EX5 10.4 vs 11.9, data 5.6 vs 6.4, jagmesh7 5.2 vs 6.2; even on cage10 and ct2010;
// behind on bcsstk13 (8.3 vs 7.8) and bcsstk01 (48 rows, 7.6 vs 5.8).
// Larger matrices with rows of fewer than 32 nonzeros on average go to CSR as well (H100, 86e4165,
// bench/results/h100/spmm/l8-probe-86e4165.txt, L = 8, same process; the CSR rule's G = 2, V = 4
// against ELLR-T): stencil7_256 f32 0.779 vs 1.498 ms, f64 1.297 vs 2.010; stencil27_128 f32 0.294
// vs 0.377, f64 0.491 vs 0.524; banded_4m f32 0.448 vs 0.663, f64 0.758 vs 0.909; fem_rows30 f32
// 0.179 vs 0.215, f64 0.273 vs 0.277 (and faster still with the split step of spmm_csr_choice).
// Longer uniform rows too, with that step (l8-probe-long-bc0aa74.txt): blockdense_32 f32 0.156 vs
// 0.222, f64 0.258 vs 0.273; fem_rows80 f32 0.359 vs 0.443, f64 0.585 vs 0.578 (the one loss, 1%).
// So at L = 5..8 ELLR-T is left to the statistics-only rule; L <= 4 was not measured and keeps it.
inline constexpr int64_t kSmallMatrixResidentThreadsPerRow = 4;
inline bool spmm_prefers_csr(const MatrixStats& s, int64_t dense_cols, const DeviceProps& device) {
  if (spmm_prefers_csr(s, dense_cols)) return true;
  if (s.nnz == 0) return false;
  if (s.rows * kSmallMatrixResidentThreadsPerRow <= resident_threads(device)) return true;
  return dense_cols > kMaxEllrDenseCols / 2;  // measured at L = 8 only
}

// --- L_c: columns of C per pass --------------------------------------------------------------
// Every pass re-reads A (12 bytes per nonzero in f64), so L_c should cover L in as few passes as
// the registers allow: the partial sums live in registers (L_c per thread; shared memory, the
// paper's Fermi choice, would add a store and a load per partial sum and cap occupancy). 32 f64
// partial sums are 64 registers: the largest L_c that still runs 3-4 blocks of 256 per SM.
inline constexpr int kMaxEllrColsPerPass = 32;
// Blocks of at most 256 threads: __launch_bounds__(256) lets a thread use up to 255 registers, which
// L_c = 32 f64 partial sums plus a 32-wide B row in flight need (1024 would cap it at 64 and spill).
inline constexpr int kMaxSpmmBlock = 256;
inline constexpr int kMaxCsrColsPerPass = 64;

inline int next_pow2(int64_t n) {
  int p = 1;
  while (p < n && p < (1 << 30)) p *= 2;
  return p;
}

// --- ELLR-T SpMM (SSFastSpMM) ------------------------------------------------------------------
inline constexpr int kEllrBlock = 128;

struct SpmmEllrChoice {
  int threads_per_row = 1;
  int block_size = 256;
  int cols_per_pass = 8;
};

// T from the average row length. Each slot a thread takes carries L_c multiply-adds and an
// L_c-wide read of a B row, so a thread needs fewer slots than in SpMV to hide the reduction
// (L_c · log2 T shuffles per row): the H100 sweep (docs/spmm.md) put T = 2 first for rows of 27-30
// and T = 1 within 10%. Upper bounds exclusive.
struct SpmmThreadsByRowLength {
  double average_row_below;
  int threads_per_row;
};
inline constexpr SpmmThreadsByRowLength kSpmmEllrThreadsByAverageRow[] = {
    {16.0, 1},    // G3_circuit (4.8), cage11 (14.3): one thread walks the row
    {96.0, 2},    // stencil27 (26.6): T=2 0.520 ms vs T=1 0.566 (f64, L=8); fem_rows30 0.276 vs 0.281
    {192.0, 4},   //
    {384.0, 8},   //
    {768.0, 16},  //
    {std::numeric_limits<double>::infinity(), 32},
};

inline int spmm_ellr_threads_for_average_row(double average_row) {
  for (const auto& entry : kSpmmEllrThreadsByAverageRow)
    if (average_row < entry.average_row_below) return entry.threads_per_row;
  return 32;
}

inline SpmmEllrChoice spmm_ellr_choice(const MatrixStats& stats, int64_t dense_cols,
                                       const DeviceProps& device) {
  SpmmEllrChoice c;
  c.cols_per_pass = std::min(kMaxEllrColsPerPass, next_pow2(std::max<int64_t>(1, dense_cols)));
  int t = spmm_ellr_threads_for_average_row(stats.avg_row);
  // Small matrices: fewer rows × T threads than the device keeps resident leave SMs idle; split rows
  // further while each thread still gets two slots of an average row.
  const int64_t resident = resident_threads(device);
  while (t < 32 && stats.rows * t < resident && 4.0 * t <= stats.avg_row) t *= 2;
  // A long row walked by one thread is the critical path (as for SpMV, ellr_rule.hpp step 3).
  const int64_t budget = serial_slot_budget(stats, device);
  while (t < 32 && (stats.max_row + t - 1) / t > budget) t *= 2;
  c.threads_per_row = t;
  // The sweep: BS = 64 and 128 within 1%, 256 5-7% slower (f64 stencil27 and fem_rows30, L = 8).
  c.block_size = std::min(kEllrBlock, spread_block(std::max<int64_t>(1, stats.rows) * t, device));
  return c;
}

// --- CSR SpMM ----------------------------------------------------------------------------------
struct SpmmCsrChoice {
  int threads_per_row = 8;
  int block_size = 256;
  int cols_per_pass = 8;
  int long_row_nnz = 1 << 14;
  int tile_items = 0;
  int cols_per_lane = 0;
};

// Columns per lane: 4 (two double2 or one float4 per nonzero), so a group of L_c / 4 lanes reads
// one contiguous row segment of B and needs no reduction at all. The sweep (f64, stencil27 and
// fem_rows30): G = 2 at L = 8 (0.547 ms vs 0.623 for G = 4) and G = 8 at L = 32 (1.31 vs 1.56 for
// G = 16).
// Irregular rows for the CSR configuration (one column per lane, more lanes per row): a spread
// (stddev / average) above 1 or an ELL slab over 3x the nonzeros — the thresholds of the study
// behind kCsrColsPerLane* (docs/spmm.md), kept when the format rule changed.
inline bool spmm_rows_irregular(const MatrixStats& s) {
  if (s.nnz == 0 || s.rows == 0) return false;
  return s.ell_padding_ratio > 3.0 || (s.avg_row > 0 && s.stddev_row / s.avg_row > 1.0);
}

inline constexpr int kCsrColsPerLane = 4;

// Whether an L_c-wide slab of B (f64, the larger case) fits in the L2: then B's rows are L2 hits and
// wide loads win even on irregular rows (H100, f64, L = 32, shared graphs with B of 0.1-20 MB:
// memplus 26.5 µs at four columns per lane vs 36.0 at one, PGPgiantcompo 27.0 vs 35.9, ca-CondMat
// 33.0 vs 45.0). 50 MiB (H100) when the properties do not say.
inline constexpr std::size_t kDefaultL2Bytes = std::size_t{50} << 20;

inline bool spmm_b_fits_l2(const MatrixStats& s, int cols_per_pass, const DeviceProps& device) {
  const std::size_t l2 = device.l2_bytes > 0 ? device.l2_bytes : kDefaultL2Bytes;
  return static_cast<double>(s.cols) * cols_per_pass * 8.0 <= 0.5 * static_cast<double>(l2);
}
// Irregular matrices (those the format rule sends to CSR: random columns, rows of every length)
// gather B rows from all over memory, so the kernel is latency-bound and wants more lanes in
// flight rather than wider loads: powerlaw_4m (f64) ran 4.5 ms with one column per lane (G = 8)
// against 6.9 ms with four (G = 2) at L = 8, and 6.6 against 10.4 ms at L = 32.
inline constexpr int kCsrColsPerLaneIrregular = 1;
// Rows get split between lanes (S = G / (L_c / V) nonzero lanes per column) only when they are long
// enough to give each of them ~16 nonzeros; at most 32 lanes per row.
inline constexpr double kCsrNonzerosPerSplitLane = 16.0;
// Long rows: never below 1024 nonzeros (the long-row kernel's atomics cost more than a short walk),
// never above 65536; in between, the serial walk the SpMV rule allows for this matrix.
// Rows longer than long_row_nnz are cut into chunks of that many nonzeros, spread over the grid.
// The floor was 1024 in the first version; on the H100 the shared matrices with a few rows of
// 200-17,663 nonzeros (memplus, vsp_*, Maragal_6, L = 8) then took 300-440 µs against cuSPARSE's
// 12-25 µs: one group walked up to 1024 dependent gathers. 64 keeps a chunk's serial walk near the
// ~6 µs that kNsPerSerialSlot predicts for 64 slots; a warp works each chunk (csr.cu), so 32 nonzeros
// are one to eight gathers per lane.
inline constexpr int kMinLongRowNnz = 32;
inline constexpr int kMaxLongRowNnz = 1 << 16;
// Small matrices: rows of up to this many long_row_nnz chunks stay with their group (no long-row pass).
inline constexpr int64_t kSmallLongRowChunks = 5;
// The small-matrix widening at L_c <= 8 treats rows as irregular only with a row longer than this.
inline constexpr int64_t kWideningLongRow = 128;
// long_row_nnz when no row is longer than the threshold: spmm_csr then skips the long-row list,
// its memset and the second kernel (three launches of ~2 µs each on small matrices).
inline constexpr int kNoLongRows = std::numeric_limits<int>::max();

// Balanced mode (csr_tiled.cu): one warp per tile of K items (rows + nonzeros). K is the smallest
// power of two that leaves at most one tile per resident warp, so a small matrix runs as a single
// wave of warps with a few nonzeros each, clamped to [32, 2048]: below 32 a tile is mostly its two
// row searches, above 2048 the tiles of a large matrix still give several waves to balance.
inline constexpr int64_t kMinTileItems = 32;
inline constexpr int64_t kMaxTileItems = 2048;

// Balanced mode in a large matrix (this many items per resident warp) with long rows.
inline constexpr int64_t kMinTiledItemsPerWarp = 256;
// Balanced mode in a small matrix: rows well past the average (ELL padding of 15x or more) but
// spread by at most 6 averages, above 8 columns per pass. H100, f64 (c407a63), tiles against row-split at L =
// 8: vsp_data 14.2 vs 19.1 µs, vsp_sctap 20.3 vs 25.8, nh2010 19.8 vs 24.5, memplus 14.5 vs 17.7,
// PGPgiantcompo 15.2 vs 18.0, ca-CondMat 20.2 vs 22.8, vsp_befref 16.6 vs 17.7; at L = 32 0.61-0.92x
// of row-split on the same seven. Extreme spreads stay row-split (a tile's warp walks its rows
// round after round, while row-split has every row in flight): Maragal_6 (cv 8.0) 36.5 vs 24.2 at
// L = 8 and 61.3 vs 46.8 at L = 32, vsp_model1 (cv 14.4) 34.2 vs 23.7 at L = 8. Below 15x padding
// (de2010, vt2010, ct2010) tiles were 0-22% slower. Since the row walk batches its loads
// (csr_device.cuh, d07d68a), row-split beats the tiles at L = 8 on six of those seven (nh2010 21.6 vs
// 25.5 µs, vsp_befref 14.9 vs 18.9, ca-CondMat 18.4 vs 21.5; vsp_data 15.0 vs 13.5 the exception),
// while at L = 32 the tiles still win on all seven (memplus 16.8 vs 22.0, PGPgiantcompo 16.7 vs 21.3).
inline constexpr double kTiledMinPadding = 15.0;
inline constexpr double kTiledMaxSpread = 6.0;
inline bool spmm_moderately_spread(const MatrixStats& s) {
  return s.avg_row > 0 && s.ell_padding_ratio >= kTiledMinPadding &&
         s.stddev_row <= kTiledMaxSpread * s.avg_row;
}

inline constexpr int kSmallSplitCols = 32;
inline constexpr int kLargeVectorCols = 32;
inline constexpr int kLargeVectorBytes = 16;
inline constexpr int kLargeVectorBlock = 128;
// Large matrices with regular rows of 16-31 nonzeros at L_c = 8: two lanes of four columns split
// each row (G = 4, V = 4) instead of one pair of lanes walking it (H100, l8-probe-86e4165.txt, same
// process, G = 2 -> 4): stencil27_128 f32 0.294 -> 0.272 ms, f64 0.491 -> 0.449; banded_4m f32
// 0.448 -> 0.427, f64 0.758 -> 0.749; fem_rows30 f32 0.179 -> 0.156, f64 0.273 -> 0.240. Rows of 7
// (stencil7_256) stay at G = 2 (1.110 / 1.649 ms at G = 4, V = 4). G = 4, V = 2 (no split) was
// 1-4% ahead in f64 on two of the three and 6% behind on fem_rows30; in f32 10-16% behind.
// Rows of 32 or more in f32: four lanes split each row (G = 8; l8-probe-long-bc0aa74.txt, G = 4 ->
// 8): fem_rows80 0.373 -> 0.359 ms, blockdense_32 0.188 -> 0.156; in f64 G = 4 stays ahead
// (fem_rows80 0.585 vs 0.594, blockdense_32 0.258 vs 0.264). G = 16 was slower in both. A large
// matrix of few, long rows (dense_csr_4096) then widens to G = 32 in the small-matrix step below,
// keeping V = 4: 0.157 ms in f64 against 0.278 at G = 32, V = 1 before; f32 0.095 against 0.268
// (bench-spmm-l8-922f5b0.json against ff8f755; cuSPARSE 0.187 / 0.105).
inline constexpr int kLargeSplitCols = 8;
inline constexpr double kLargeSplitMinAverageRow = 16.0;
inline constexpr double kLargeSplitFourMinAverageRow = 32.0;
inline constexpr double kSmallSplitMinAverageRow = 8.0;

inline int spmm_tile_items(const MatrixStats& stats, const DeviceProps& device) {
  const int64_t items = std::max<int64_t>(1, stats.rows + stats.nnz);
  const int64_t warps = std::max<int64_t>(1, resident_threads(device) / 32);
  return static_cast<int>(
      std::clamp<int64_t>(next_pow2((items + warps - 1) / warps), kMinTileItems, kMaxTileItems));
}

// value_bytes: 8 (double) or 4 (float); the steps before kLargeVectorBytes were fitted in f64.
inline SpmmCsrChoice spmm_csr_choice(const MatrixStats& stats, int64_t dense_cols, const DeviceProps& device,
                                     int value_bytes = 8) {
  SpmmCsrChoice c;
  c.cols_per_pass = std::min(kMaxCsrColsPerPass, next_pow2(std::max<int64_t>(1, dense_cols)));
  const int per_lane = spmm_rows_irregular(stats) && !spmm_b_fits_l2(stats, c.cols_per_pass, device)
                           ? kCsrColsPerLaneIrregular
                           : kCsrColsPerLane;
  const int column_lanes = std::min(32, std::max(1, c.cols_per_pass / per_lane));
  int split = 1;
  while (column_lanes * split < 32 && stats.avg_row >= 2.0 * split * kCsrNonzerosPerSplitLane) split *= 2;
  c.threads_per_row = std::min(32, column_lanes * split);
  const bool large = stats.rows + stats.nnz >= kMinTiledItemsPerWarp * (resident_threads(device) / 32);
  if (large && c.cols_per_pass == kLargeSplitCols && !spmm_rows_irregular(stats) &&
      stats.avg_row >= kLargeSplitMinAverageRow) {
    const int ways = value_bytes == 4 && stats.avg_row >= kLargeSplitFourMinAverageRow ? 4 : 2;
    c.cols_per_lane = kCsrColsPerLane;
    c.threads_per_row = ways * column_lanes;  // column_lanes = L_c / 4 here (regular rows)
  }
  // Lc / G <= 8 columns per lane (registers): for L_c = 64 at least 8 lanes.
  while (c.cols_per_pass / c.threads_per_row > 8) c.threads_per_row *= 2;
  // Small matrices at L_c <= 8: fewer rows × G lanes than the device keeps resident leave it
  // latency-bound (each group walks its row one gather after the other). Widen the group (fewer
  // columns per lane, then more lanes splitting the row) while an average row still gives each
  // splitting lane two nonzeros, one for irregular rows, whose average hides the long ones.
  // H100, f64, L = 8 (docs/spmm.md, tiles sweep): bcsstk13 25.7 -> 10.7 µs (G 8 -> 32), EX5
  // 16.5 -> 11.2, memplus 24.4 -> 17.7, vsp_befref 28.8 -> 17.7. Irregular rows widen up to four
  // resident waves, since their longest rows set the time (G = 32 vs 16: memplus 17.7 vs 20.3 µs,
  // PGPgiantcompo 18.3 vs 20.5, ca-CondMat 22.7 vs 24.2; the regular Andrews, cage10 and EX5 were
  // 4-10% faster at 16). At L_c = 32 the wider groups (2 or 1 columns per lane) were slower on 6 of
  // 9 small matrices (memplus 26.5 µs at G = 8, 29.2 at 16, 36.0 at 32): G stays there.
  // Regular rows widen only while the widened grid still fits the resident threads, and rows count
  // as irregular here only with a row past kWideningLongRow: the census graphs (ct2010, nh2010,
  // vt2010, de2010: rows of 5 on average, at most 45-74, irregular by their ELL padding alone) ran
  // at G = 32 up to 1.5x slower than at G = 4-8 (H100, f64, L = 8, g-probe-5d0c6ed.txt: ct2010
  // 20.9 µs at G = 32, 13.9 at 4; delaunay_n16 11.6 at 8, 10.1 at 4).
  if (c.cols_per_pass <= kMaxEllrDenseCols) {
    const bool irregular = spmm_rows_irregular(stats) && stats.max_row > kWideningLongRow;
    const double per_split_lane = irregular ? 1.0 : 2.0;
    auto splitting = [&](int g) { return std::max(1, g / std::max(1, c.cols_per_pass)); };
    auto room = [&](int g) {  // irregular: up to four resident waves; regular: the widened grid fits
      return irregular ? stats.rows * g < 4 * resident_threads(device)
                       : stats.rows * 2 * g <= resident_threads(device);
    };
    while (c.threads_per_row < 32 && room(c.threads_per_row) &&
           stats.avg_row >= per_split_lane * splitting(2 * c.threads_per_row))
      c.threads_per_row *= 2;
  }
  const int64_t budget = serial_slot_budget(stats, device) * split;
  c.long_row_nnz = static_cast<int>(std::clamp<int64_t>(budget, kMinLongRowNnz, kMaxLongRowNnz));
  // The long-row pass is a memset and a second launch; in a small matrix a row of a few chunks
  // costs its group less than that (g-probe-5d0c6ed.txt, f64, L = 8, without the pass: nh2010, max
  // 74, 13.4 µs against 17.1 at G = 4; PGPgiantcompo, max 205, 12.3 against 14.3 at G = 32;
  // ca-CondMat, max 280, 17.8 against 18.9; memplus, max 574, needs it: 23.4 against 14.3).
  if (stats.max_row <= c.long_row_nnz || (!large && stats.max_row <= kSmallLongRowChunks * c.long_row_nnz))
    c.long_row_nnz = kNoLongRows;
  // Balanced tiles (one launch) rather than row-split: in a large matrix, when rows are too long
  // for one group (instead of the long-row list, a memset and a second kernel; H100, f64, c407a63:
  // powerlaw_4m 4.77 vs 5.60 ms at L = 32, 2.97 vs 2.90 at L = 8; rmat_22 5.91 vs 6.96, 3.28 vs
  // 3.61); in a small one above 8 columns, when the rows are moderately spread
  // (spmm_moderately_spread).
  if (large ? c.long_row_nnz != kNoLongRows
            : spmm_moderately_spread(stats) && c.cols_per_pass > kMaxEllrDenseCols)
    c.tile_items = spmm_tile_items(stats, device);
  // Large matrices with regular rows at L_c = 32, either mode: one 16-byte load of B per lane and
  // nonzero (V = 2 doubles or 4 floats), a group of L_c / V lanes (no split of the nonzeros), blocks
  // of 128. The steps above give rows of 64+ nonzeros G = 32 at one column per lane (4-8 byte
  // loads), 32-63 G = 16 at two, shorter rows G = 8 at four. H100 sweep
  // (bench/results/h100/spmm/large-sweep-43b79ee.*, `spx spmm --csr-config`, cuSPARSE in the same process),
  // the steps above -> this step: fem_rows80 f64 2.342 -> 1.452 ms, f32 2.018 -> 0.770 (cuSPARSE 3.09
  // / 1.39); blockdense_32 f64 1.249 -> 0.754, f32 0.846 -> 0.426 (1.19 / 0.54); dense_csr_4096 (tiles) f64
  // 0.572 -> 0.456, f32 0.529 -> 0.342 (0.45 / 0.15); short rows 1-2% faster: stencil27_128 f64 1.266
  // -> 1.251, fem_rows30 f64 0.676 -> 0.669. Four floats beat two in f32 (fem_rows80 0.770 vs 1.128 ms) and
  // two doubles beat four in f64 (1.452 vs 1.658). Two 16-byte loads per lane (f32 V = 8, G = 4)
  // won on fem_rows30/80 (0.309 / 0.724 ms) but lost on stencil27_128 (0.674 vs 0.630) and the
  // dense tiles (0.671 vs 0.342), so it is not a step.
  if (large && c.cols_per_pass == kLargeVectorCols && !spmm_rows_irregular(stats)) {
    c.cols_per_lane = kLargeVectorBytes / std::max(1, value_bytes);
    c.threads_per_row = c.cols_per_pass / c.cols_per_lane;
    c.block_size = kLargeVectorBlock;
    return c;
  }
  // Small matrices, row-split at L_c = 32: more lanes per row than the columns need. H100 sweep
  // (f32 and f64, the 38 shared matrices under 1M nonzeros, docs/spmm.md, "Row split at 32
  // columns"): where even 32 lanes per row fill at most half the device and rows average 8 or more
  // nonzeros, a warp per row, 4 columns per lane and the row's nonzeros split 4 ways cut the serial
  // walk (bcsstk13 f64 27.0 -> 11.2 µs, zenios 12.2 -> 8.1, f32 13.4 -> 9.1 and 10.5 -> 7.2); other
  // small matrices take 16 lanes of 2 columns (f64 delaunay_n12 7.2 -> 6.3, cage10 11.4 -> 10.5).
  // Only L_c = 32 was measured; large matrices keep G = 8 (stencil27: 1.31 vs 1.56 ms at G = 16).
  if (c.tile_items == 0 && c.cols_per_pass == kSmallSplitCols) {
    const int64_t resident = resident_threads(device);
    if (stats.rows * 32 * 2 <= resident && stats.avg_row >= kSmallSplitMinAverageRow) {
      c.threads_per_row = 32;
      c.cols_per_lane = kCsrColsPerLane;
    } else if (stats.rows * 16 <= resident) {
      c.threads_per_row = std::max(c.threads_per_row, 16);
    }
  }
  c.block_size =
      std::min(kMaxSpmmBlock, spread_block(std::max<int64_t>(1, stats.rows) * c.threads_per_row, device));
  return c;
}

}  // namespace spx::cuda::detail
