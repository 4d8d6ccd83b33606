// The rcm format's planner numbers (plan/format_rcm.hpp).
#include "plan/format_rcm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "plan/format_sellc16.hpp"
#include "spx/plan/rules.hpp"
#include "spx/reorder.hpp"
#include "spx/sell_c16_dict.hpp"

namespace spx::plan {

double rcm_extra_bytes(const Problem& p) {
  const double n = static_cast<double>(p.stats.rows), nnz = static_cast<double>(p.stats.nnz);
  const double v = p.value_bytes;
  const double csr = nnz * (v + 4) + (n + 1) * 4;
  return csr + 4 * n + 2 * n * v;
}

double rcm_setup_us(const Problem& p, double fixed_us) {
  const double nnz = static_cast<double>(p.stats.nnz);
  const double n = static_cast<double>(p.stats.rows);
  const double upload = nnz * (p.value_bytes + 4) + (n + 1) * 4 + 4 * n;
  return fixed_us + nnz * (kRcmHostNsPerNnz + kRcmPermuteNsPerNnz) * 1e-3 + upload / (kRcmUploadGbs * 1e3);
}

namespace {

// Where x's gathers are poor and RCM can find a band: SpMV, square, the locality statistic there,
// row lengths not too skewed for a band (graph-like rows: RCM finds none), x gathered poorly.
std::string rcm_band_refusal(const Problem& p) {
  if (p.op != Operation::Spmv) return "reordering is an SpMV candidate";
  if (p.stats.rows != p.stats.cols)
    return fmt::format("reordering needs a square matrix, not {} x {}", p.stats.rows, p.stats.cols);
  if (!p.locality) return "needs the locality statistic (square SpMV through the front door)";
  const PlannerRuleTable& t = default_rule_tables().planner;
  if (p.stats.ell_padding_ratio > t.rcm_max_padding)
    return fmt::format("row lengths too skewed for a band (ELL padding {:.1f} > {:.1f})",
                       p.stats.ell_padding_ratio, t.rcm_max_padding);
  if (!p.locality->gathers_poorly())
    return fmt::format(
        "x is gathered well: {:.2f} sectors per row, {:.2f} estimated after RCM (< {:.0f}x gain)",
        p.locality->sectors_per_row, p.locality->rcm_sectors_per_row, reorder::kRcmMinSectorGain);
  return {};
}

bool rcm_sell_dict(const Problem& p) {
  return p.distinct_values && *p.distinct_values <= kSellC16DictMaxValues;
}

}  // namespace

double rcm_sell_matrix_bytes(const Problem& p) {
  return rcm_sell_dict(p) ? sellc16_dict_device_bytes(p) : sellc16_device_bytes(p);
}

double rcm_sell_extra_bytes(const Problem& p) {
  const double n = static_cast<double>(p.stats.rows);
  return rcm_sell_matrix_bytes(p) + 4 * n + n * p.value_bytes;
}

double rcm_sell_setup_us(const Problem& p, double device_convert_gbs) {
  // The renumbered CSR is uploaded, then converted on the device (SELL-C16's slab written).
  return rcm_setup_us(p, 0) + rcm_sell_matrix_bytes(p) / (device_convert_gbs * 1e3);
}

std::string rcm_sell_refusal(const Problem& p) { return rcm_band_refusal(p); }

std::string rcm_refusal(const Problem& p) {
  // csr_param's gain on the renumbered matrix must outweigh the gather and scatter, a few random
  // sectors a row: it pays only on rows long enough (docs/reorder.md, the formats suite).
  const PlannerRuleTable& t = default_rule_tables().planner;
  if (p.op == Operation::Spmv && p.stats.rows == p.stats.cols && p.locality &&
      p.stats.avg_row < t.rcm_min_avg_row)
    return fmt::format("rows of {:.1f} on average < {:.0f}: the gather and scatter outweigh the locality",
                       p.stats.avg_row, t.rcm_min_avg_row);
  return rcm_band_refusal(p);
}

MatrixFeatures rcm_reordered_features(const MatrixFeatures& f, int value_bytes) {
  MatrixFeatures g = f;
  const int k = value_bytes == 4 ? MatrixFeatures::kF32 : MatrixFeatures::kF64;
  const int per_sector = value_bytes == 4 ? 8 : 4;
  const double rows = static_cast<double>(f.rows), avg = f.avg_row();
  const double windows = std::ceil(rows / static_cast<double>(MatrixFeatures::kWindowRows));
  const double window_after =
      windows *
      reorder::rcm_window_sectors(static_cast<double>(MatrixFeatures::kWindowRows), avg, per_sector);
  // A row's nonzeros after RCM: in at most kRcmRunsPerWindow runs of columns.
  const double row_after = static_cast<double>(f.nnz) / per_sector + rows * (reorder::kRcmRunsPerWindow - 1);
  g.window_sectors[k] = std::min(f.window_sectors[k], static_cast<int64_t>(std::llround(window_after)));
  g.row_sectors[k] = std::min(f.row_sectors[k], static_cast<int64_t>(std::llround(row_after)));
  return g;
}

}  // namespace spx::plan
