// The fixed rule of the parametrised CSR SpMV (Reguly & Giles §5.4) re-derived for Hopper, as
// data, and the long-row threshold. Host code without CUDA: the CPU tests check it and
// `spx tune` / tools/fit_csr_rule.py evaluate and refit it from device measurements.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

namespace {

// When DeviceProps are not filled in (a host-only caller), plan for an H100 SXM: 132 SMs, 2048
// resident threads and 32 resident blocks per SM, 1024 threads per block.
constexpr int kFallbackSms = 132;
constexpr int kFallbackThreadsPerSm = 2048;
constexpr int kFallbackBlocksPerSm = 32;
constexpr int kFallbackThreadsPerBlock = 1024;

constexpr int kMinBlock = 64;
constexpr int kMaxBlock = 1024;
constexpr int kMaxRepeat = 1024;

bool is_power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

int sm_count_of(const DeviceProps& props) { return props.sm_count > 0 ? props.sm_count : kFallbackSms; }

}  // namespace

std::string invalid_reason(const CsrSpmvParams& p) {
  if (!is_power_of_two(p.coop) || p.coop > 32)
    return fmt::format("coop {} is not a power of two in 1..32", p.coop);
  if (p.block_size < kMinBlock || p.block_size > kMaxBlock || p.block_size % 32 != 0)
    return fmt::format("block_size {} is not a multiple of 32 in {}..{}", p.block_size, kMinBlock, kMaxBlock);
  if (p.repeat < 1 || p.repeat > kMaxRepeat)
    return fmt::format("repeat {} is not in 1..{}", p.repeat, kMaxRepeat);
  return {};
}

void validate(const CsrSpmvParams& p, const char* who) {
  if (std::string why = invalid_reason(p); !why.empty()) throw Error(fmt::format("{}: {}", who, why));
}

std::string to_string(const CsrSpmvParams& p) {
  return fmt::format("block_size={} coop={} repeat={}", p.block_size, p.coop, p.repeat);
}

const CsrRuleTable& default_csr_rule_table() {
  // Refitted on the H100 (2026-11-21, commit e5c0794) by tools/fit_csr_rule.py --fit from the
  // exhaustive `spx tune` search over the small + standard suites and half of the shared matrices
  // (f32 + f64; bench/results/h100/tune-*.json). Fraction of the exhaustive optimum: 93.1%
  // training, 90.6% held out (the hand-derived starting table below it in git history: 91.9% /
  // 90.9%); the paper reports 84% / 73% on Fermi. The comments give the reasons for the shape;
  // the numbers are the fit's.
  static const CsrRuleTable table = {
      // coop: the paper's rule, the smallest power of two above sqrt(avg row length), written as
      // bounds on the average (coop^2 > avg). On Hopper the reduction is log2(coop) shuffles
      // instead of shared-memory steps, so a larger coop costs less than on Fermi; against that,
      // the 256 KB L1 keeps the lines a short-row thread walks alone (coop 1-2) alive between
      // its iterations. The fit moved coop 8 down to avg >= 8 and coop 32 down to avg >= 128.
      {{1, 1}, {4, 2}, {8, 4}, {64, 8}, {128, 16}, {std::numeric_limits<double>::infinity(), 32}},
      // block_size: the paper's 128 came from Fermi (8 blocks per SM, 48 KB L1 per SM shared by
      // fewer threads in small blocks). On Hopper 256 fills an SM with 8 blocks (2048 threads),
      // the kernel's registers never limit occupancy, and the L1 is shared by all resident
      // threads whatever the block size: block size only sets the granularity of the work.
      256,
      // repeat: the paper wanted >= 1500 blocks, about 13 waves of Fermi's 112 resident blocks.
      // Here: rows per resident thread group R (132 SMs × 2048 threads / coop groups); a block
      // takes `repeat` batches of rows only while R / repeat >= 8 waves remain, so every SM stays
      // busy to the end and a slow block costs at most ~1/8 of the run. The fit found repeat > 1
      // pays only from R >= 128 rows per resident group (the 16.8M-row 7-point stencil): short
      // grains cost little on Hopper, whose block scheduler refills SMs quickly.
      {{0, 1}, {128, 2}, {256, 4}, {512, 8}, {1024, 16}},
      // Long rows: at least 64 iterations of one group (~ the launch latency of a few µs at a
      // few loads in flight per lane), or a group's fair share of the whole matrix.
      64.0,
      1.0,
      // Halving coop for large short-row matrices (CsrRuleTable): chosen on the same tune data
      // (rows per group >= 16, avg < 24): the ten matrices above 0.5M rows went from 90.5% to
      // 96.2% of their optimum, all 106 matrix-precision pairs from 92.2% to 92.7%.
      16,
      24,
  };
  return table;
}

int64_t csr_resident_threads(const DeviceProps& props, int block_size) {
  const int threads_per_sm = props.max_threads_per_sm > 0 ? props.max_threads_per_sm : kFallbackThreadsPerSm;
  const int blocks_per_sm = props.max_blocks_per_sm > 0 ? props.max_blocks_per_sm : kFallbackBlocksPerSm;
  const int block = std::max(32, block_size);
  const int64_t blocks = std::min<int64_t>(blocks_per_sm, threads_per_sm / block);
  return std::max<int64_t>(1, blocks) * block;
}

CsrSpmvParams csr_fixed_rule(const MatrixStats& stats, const DeviceProps& props, const CsrRuleTable& table) {
  if (table.coop_steps.empty() || table.repeat_steps.empty())
    throw Error("csr_fixed_rule: the rule table needs at least one coop step and one repeat step");
  CsrSpmvParams p;

  // coop from the average row length (NaN or negative averages count as empty rows).
  const double avg = std::isfinite(stats.avg_row) ? std::max(0.0, stats.avg_row) : 0.0;
  p.coop = table.coop_steps.back().coop;
  for (const auto& step : table.coop_steps) {
    if (avg < step.avg_row_below) {
      p.coop = step.coop;
      break;
    }
  }

  const int max_block =
      props.max_threads_per_block > 0 ? props.max_threads_per_block : kFallbackThreadsPerBlock;
  p.block_size = std::clamp(table.block_size / 32 * 32, kMinBlock, std::min(kMaxBlock, max_block));

  // Rows per resident thread group (resident groups = SMs × resident threads / coop).
  const auto rows_per_group = [&](int coop) {
    const double resident_groups = static_cast<double>(sm_count_of(props)) *
                                   static_cast<double>(csr_resident_threads(props, p.block_size)) /
                                   std::max(1, coop);
    return static_cast<double>(std::max<int64_t>(0, stats.rows)) / resident_groups;
  };
  if (p.coop > 1 && avg < table.halve_coop_avg_below &&
      rows_per_group(p.coop) >= table.halve_coop_rows_per_group)
    p.coop /= 2;

  // repeat from the rows per resident thread group.
  p.repeat = table.repeat_steps.front().repeat;
  const double groups_rows = rows_per_group(p.coop);
  for (const auto& step : table.repeat_steps) {
    if (groups_rows >= step.rows_per_resident_group_from) p.repeat = step.repeat;
  }
  p.repeat = std::clamp(p.repeat, 1, kMaxRepeat);
  validate(p, "csr_fixed_rule (check the rule table)");
  return p;
}

int64_t csr_long_row_threshold(int64_t nnz, const CsrSpmvParams& params, const DeviceProps& props,
                               const CsrRuleTable& table) {
  const double resident = static_cast<double>(sm_count_of(props)) *
                          static_cast<double>(csr_resident_threads(props, params.block_size));
  const double share = table.long_row_share * static_cast<double>(std::max<int64_t>(0, nnz)) / resident;
  const double iterations = std::max(table.long_row_min_iterations, share);
  const double threshold = std::ceil(iterations * std::max(1, params.coop));
  if (!(threshold < 9e18)) return std::numeric_limits<int64_t>::max();
  return std::max<int64_t>(0, static_cast<int64_t>(threshold));
}

MatrixStats csr_row_length_stats(int64_t rows, int64_t cols, std::span<const int32_t> row_ptr) {
  MatrixStats s;
  s.rows = rows;
  s.cols = cols;
  if (rows <= 0) return s;
  if (static_cast<int64_t>(row_ptr.size()) < rows + 1)
    throw Error(fmt::format("csr_row_length_stats: row_ptr has {} entries, {} rows need {}", row_ptr.size(),
                            rows, rows + 1));
  s.nnz = row_ptr[static_cast<std::size_t>(rows)] - row_ptr[0];
  s.min_row = std::numeric_limits<int64_t>::max();
  double sum_sq = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len = row_ptr[static_cast<std::size_t>(r) + 1] - row_ptr[static_cast<std::size_t>(r)];
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    if (len == 0) ++s.empty_rows;
    sum_sq += static_cast<double>(len) * static_cast<double>(len);
  }
  s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(rows);
  s.stddev_row = std::sqrt(std::max(0.0, sum_sq / static_cast<double>(rows) - s.avg_row * s.avg_row));
  return s;
}

}  // namespace spx::cuda
