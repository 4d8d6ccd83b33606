// The SpMM rules: the format (ELLR-T or CSR), SSFastSpMM's (T, BS, L_c) and the CSR kernel's
// configuration. They walk SpmmRuleTable and LaunchShapeTable (rule_tables.cpp); docs/spmm.md has
// the design, docs/rules.md the measurement behind each number.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "common/pow2.hpp"
#include "plan/rules_detail.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {
namespace detail {
namespace {

using spx::detail::next_pow2;

// Rows of every length or padding: the CSR kernel's lanes then gather B from all over memory.
bool rows_irregular(const MatrixStats& s, const SpmmRuleTable& t) {
  if (s.nnz == 0 || s.rows == 0) return false;
  return s.ell_padding_ratio > t.irregular_padding ||
         (s.avg_row > 0 && s.stddev_row / s.avg_row > t.irregular_spread);
}

// Whether an L_c-wide f64 slab of B fits in the L2 (its rows are then L2 hits).
bool b_fits_l2(const MatrixStats& s, int cols_per_pass, const cuda::DeviceProps& device,
               const SpmmRuleTable& t) {
  return static_cast<double>(s.cols) * cols_per_pass * 8.0 <=
         t.b_l2_fraction * static_cast<double>(model::device_basics(device).l2_bytes);
}

bool moderately_spread(const MatrixStats& s, const SpmmRuleTable& t) {
  return s.avg_row > 0 && s.ell_padding_ratio >= t.tiled_min_padding &&
         s.stddev_row <= t.tiled_max_spread * s.avg_row;
}

}  // namespace

bool spmm_prefers_csr(const MatrixStats& s, const RuleTables& tables) {
  const SpmmRuleTable& t = tables.spmm;
  if (s.nnz == 0 || s.rows == 0) return false;
  if (s.ell_padding_ratio > t.ellr_max_padding_ratio) return true;
  if (s.avg_row > 0 && s.stddev_row > t.ellr_max_row_spread * s.avg_row) return true;
  const int64_t rows_padded = (s.rows + 31) / 32 * 32;
  if (rows_padded > t.ellr_max_slots / std::max<int64_t>(1, s.max_row)) return true;
  return s.avg_row < t.short_row_average && s.ell_padding_ratio <= t.short_row_max_padding;
}

bool spmm_prefers_csr(const MatrixStats& s, int64_t dense_cols, const RuleTables& tables) {
  return dense_cols > tables.spmm.ellr_max_dense_cols || spmm_prefers_csr(s, tables);
}

bool spmm_prefers_csr(const MatrixStats& s, int64_t dense_cols, const cuda::DeviceProps& device,
                      const RuleTables& tables) {
  const SpmmRuleTable& t = tables.spmm;
  if (spmm_prefers_csr(s, dense_cols, tables)) return true;
  if (s.nnz == 0) return false;
  if (s.rows * t.small_matrix_resident_threads_per_row <= resident_threads(device)) return true;
  return dense_cols > t.ellr_max_dense_cols_on_device;
}

cuda::SpmmEllrParams spmm_ellr_choice(const MatrixStats& stats, int64_t dense_cols,
                                      const cuda::DeviceProps& device, const RuleTables& tables) {
  const SpmmRuleTable& t = tables.spmm;
  cuda::SpmmEllrParams c;
  // As many columns per pass as the registers allow: every pass re-reads A.
  c.cols_per_pass = std::min(cuda::kSpmmEllrMaxColsPerPass, next_pow2(std::max<int64_t>(1, dense_cols)));
  // Threads per row as the ELLR-T SpMV rule chooses them, from the SpMM table's steps.
  c.threads_per_row =
      threads_per_row(stats, device, tables, t.ellr_threads_by_avg_row, t.ellr_small_min_slots_per_thread);
  c.block_size = std::min(t.ellr_max_block,
                          spread_block(std::max<int64_t>(1, stats.rows) * c.threads_per_row, device, tables));
  return c;
}

int spmm_tile_items(const MatrixStats& stats, const cuda::DeviceProps& device, const RuleTables& tables) {
  const SpmmRuleTable& t = tables.spmm;
  const int64_t items = std::max<int64_t>(1, stats.rows + stats.nnz);
  const int64_t warps = std::max<int64_t>(1, resident_threads(device) / 32);
  return static_cast<int>(
      std::clamp<int64_t>(next_pow2((items + warps - 1) / warps), t.min_tile_items, t.max_tile_items));
}

cuda::SpmmCsrParams spmm_csr_choice(const MatrixStats& stats, int64_t dense_cols,
                                    const cuda::DeviceProps& device, int value_bytes,
                                    const RuleTables& tables) {
  const SpmmRuleTable& t = tables.spmm;
  const bool irregular = rows_irregular(stats, t);
  const int64_t resident = resident_threads(device);
  cuda::SpmmCsrParams c;
  c.cols_per_pass = std::min(cuda::kSpmmCsrMaxColsPerPass, next_pow2(std::max<int64_t>(1, dense_cols)));

  // Columns per lane, and lanes splitting a row long enough to give each of them its nonzeros.
  const int per_lane = irregular && !b_fits_l2(stats, c.cols_per_pass, device, t) ? t.cols_per_lane_irregular
                                                                                  : t.cols_per_lane;
  const int column_lanes = std::min(32, std::max(1, c.cols_per_pass / per_lane));
  int split = 1;
  while (column_lanes * split < 32 && stats.avg_row >= 2.0 * split * t.nonzeros_per_split_lane) split *= 2;
  c.threads_per_row = std::min(32, column_lanes * split);

  // Large regular matrices at L_c = large_split_cols: lanes of cols_per_lane columns split each row.
  const bool large = stats.rows + stats.nnz >= t.large_items_per_warp * (resident / 32);
  if (large && c.cols_per_pass == t.large_split_cols && !irregular &&
      stats.avg_row >= t.large_split_min_avg_row) {
    const int ways = value_bytes == 4 && stats.avg_row >= t.large_split_four_min_avg_row ? 4 : 2;
    c.cols_per_lane = t.cols_per_lane;
    c.threads_per_row = ways * column_lanes;  // column_lanes = L_c / cols_per_lane here (regular rows)
  }
  // The kernel's register limit: at most cuda::kSpmmCsrMaxColsPerThread columns per lane.
  while (c.cols_per_pass / c.threads_per_row > cuda::kSpmmCsrMaxColsPerThread) c.threads_per_row *= 2;

  // Small matrices at L_c <= widen_max_cols_per_pass are latency-bound: widen the group (fewer
  // columns per lane, then more lanes splitting the row) while the grid has room and an average row
  // still gives each splitting lane its nonzeros.
  if (c.cols_per_pass <= t.widen_max_cols_per_pass) {
    const bool widen_irregular = irregular && stats.max_row > t.widen_irregular_long_row;
    const double per_split_lane =
        widen_irregular ? t.widen_irregular_nonzeros_per_lane : t.widen_regular_nonzeros_per_lane;
    auto splitting = [&](int g) { return std::max(1, g / std::max(1, c.cols_per_pass)); };
    auto room = [&](int g) {  // irregular: up to a few resident waves; regular: the widened grid fits
      return widen_irregular ? stats.rows * g < t.widen_irregular_waves * resident
                             : stats.rows * 2 * g <= resident;
    };
    while (c.threads_per_row < 32 && room(c.threads_per_row) &&
           stats.avg_row >= per_split_lane * splitting(2 * c.threads_per_row))
      c.threads_per_row *= 2;
  }

  // Long rows: the serial walk the SpMV rule allows for this matrix, times the split; none when no
  // row is that long, or in a small matrix when the longest is a few chunks.
  const int64_t budget = serial_slot_budget(stats, device, tables) * split;
  c.long_row_nnz = static_cast<int>(std::clamp<int64_t>(budget, t.min_long_row_nnz, t.max_long_row_nnz));
  if (stats.max_row <= c.long_row_nnz ||
      (!large && stats.max_row <= t.small_long_row_chunks * c.long_row_nnz))
    c.long_row_nnz = cuda::kSpmmNoLongRows;

  // Balanced tiles rather than row-split: in a large matrix with long rows (one launch instead of the
  // long-row list); in a small one above a few columns when the rows are moderately spread.
  if (large ? c.long_row_nnz != cuda::kSpmmNoLongRows
            : moderately_spread(stats, t) && c.cols_per_pass > t.tiled_small_above_cols_per_pass)
    c.tile_items = spmm_tile_items(stats, device, tables);

  // Large regular matrices at L_c = large_vector_cols, either mode: one 16-byte load of B per lane
  // and nonzero, a group of L_c / V lanes (no split of the nonzeros).
  if (large && c.cols_per_pass == t.large_vector_cols && !irregular) {
    c.cols_per_lane = t.large_vector_bytes / std::max(1, value_bytes);
    c.threads_per_row = c.cols_per_pass / c.cols_per_lane;
    c.block_size = t.large_vector_block;
    return c;
  }

  // Small row-split matrices at L_c = small_split_cols: more lanes per row than the columns need.
  if (c.tile_items == 0 && c.cols_per_pass == t.small_split_cols) {
    if (static_cast<double>(stats.rows * 32) <= t.small_split_warp_fill * static_cast<double>(resident) &&
        stats.avg_row >= t.small_split_min_avg_row) {
      c.threads_per_row = 32;
      c.cols_per_lane = t.cols_per_lane;
    } else if (static_cast<double>(stats.rows * 16) <=
               t.small_split_half_warp_fill * static_cast<double>(resident)) {
      c.threads_per_row = std::max(c.threads_per_row, 16);
    }
  }
  c.block_size = std::min(cuda::kSpmmMaxBlock,
                          spread_block(std::max<int64_t>(1, stats.rows) * c.threads_per_row, device, tables));
  return c;
}

}  // namespace detail

cuda::SpmmEllrParams spmm_ellr_rule(const MatrixStats& stats, int64_t dense_cols,
                                    const cuda::DeviceProps& device, const RuleTables& tables) {
  return detail::spmm_ellr_choice(stats, dense_cols, device, tables);
}

cuda::SpmmCsrParams spmm_csr_rule(const MatrixStats& stats, int64_t dense_cols,
                                  const cuda::DeviceProps& device, int value_bytes,
                                  const RuleTables& tables) {
  if (value_bytes != 4 && value_bytes != 8)
    throw Error(
        fmt::format("spmm_csr_rule: value_bytes must be 4 (float) or 8 (double), got {}", value_bytes));
  return detail::spmm_csr_choice(stats, dense_cols, device, value_bytes, tables);
}

int spmm_csr_tile_items(const MatrixStats& stats, const cuda::DeviceProps& device, const RuleTables& tables) {
  return detail::spmm_tile_items(stats, device, tables);
}

cuda::SpmmFormat spmm_format_rule(const MatrixStats& stats, const RuleTables& tables) {
  return detail::spmm_prefers_csr(stats, tables) ? cuda::SpmmFormat::Csr : cuda::SpmmFormat::EllR;
}

cuda::SpmmFormat spmm_format_rule(const MatrixStats& stats, int64_t dense_cols, const RuleTables& tables) {
  return detail::spmm_prefers_csr(stats, dense_cols, tables) ? cuda::SpmmFormat::Csr : cuda::SpmmFormat::EllR;
}

cuda::SpmmFormat spmm_format_rule(const MatrixStats& stats, int64_t dense_cols,
                                  const cuda::DeviceProps& device, const RuleTables& tables) {
  return detail::spmm_prefers_csr(stats, dense_cols, device, tables) ? cuda::SpmmFormat::Csr
                                                                     : cuda::SpmmFormat::EllR;
}

}  // namespace spx::plan
