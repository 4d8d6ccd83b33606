// The SpMM configuration checks, rules and small helpers (host only; the rules themselves are
// inline in spmm_rules.hpp so the CPU tests see them in every build).
#include "cuda/spmm/spmm_rules.hpp"

#include <fmt/format.h>

#include "spx/cuda/spmm.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

bool power_of_two_in(int v, int lo, int hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; }

void check_block_size(const char* who, int block) {
  if (block < 32 || block > detail::kMaxSpmmBlock || block % 32 != 0)
    throw Error(fmt::format("{}: block size must be a multiple of 32 in 32..{}, got {}", who,
                            detail::kMaxSpmmBlock, block));
}

}  // namespace

template <class T>
DenseView<T> column_slice(DenseView<T> D, int64_t first, int64_t count) {
  if (first < 0 || count < 0 || first + count > D.cols)
    throw Error(fmt::format("column_slice: columns [{}, {}) outside a matrix of {} columns", first,
                            first + count, D.cols));
  DenseView<T> s = D;
  s.cols = count;
  if (D.data != nullptr) s.data = D.data + (D.layout == Layout::RowMajor ? first : first * D.ld);
  return s;
}

template DenseView<float> column_slice(DenseView<float>, int64_t, int64_t);
template DenseView<double> column_slice(DenseView<double>, int64_t, int64_t);
template DenseView<const float> column_slice(DenseView<const float>, int64_t, int64_t);
template DenseView<const double> column_slice(DenseView<const double>, int64_t, int64_t);

void check_spmm_ellr_config(const SpmmEllrConfig& config) {
  if (!power_of_two_in(config.threads_per_row, 1, 32))
    throw Error(fmt::format("spmm_ellr_t: threads per row must be 1, 2, 4, 8, 16 or 32, got {}",
                            config.threads_per_row));
  check_block_size("spmm_ellr_t", config.block_size);
  if (!power_of_two_in(config.cols_per_pass, 1, detail::kMaxEllrColsPerPass))
    throw Error(fmt::format("spmm_ellr_t: columns per pass must be 1, 2, 4, 8, 16 or 32, got {}",
                            config.cols_per_pass));
}

std::string to_string(const SpmmEllrConfig& c) {
  return fmt::format("T={} BS={} Lc={}", c.threads_per_row, c.block_size, c.cols_per_pass);
}

SpmmEllrConfig spmm_ellr_rule(const MatrixStats& stats, int64_t dense_cols, const DeviceProps& device) {
  const detail::SpmmEllrChoice c = detail::spmm_ellr_choice(stats, dense_cols, device);
  return {c.threads_per_row, c.block_size, c.cols_per_pass};
}

void check_spmm_csr_config(const SpmmCsrConfig& config) {
  if (!power_of_two_in(config.threads_per_row, 1, 32))
    throw Error(fmt::format("spmm_csr: threads per row must be a power of two in 1..32, got {}",
                            config.threads_per_row));
  check_block_size("spmm_csr", config.block_size);
  if (!power_of_two_in(config.cols_per_pass, 1, detail::kMaxCsrColsPerPass))
    throw Error(fmt::format("spmm_csr: columns per pass must be a power of two in 1..64, got {}",
                            config.cols_per_pass));
  if (config.cols_per_pass / config.threads_per_row > 8)
    throw Error(fmt::format("spmm_csr: {} columns per pass over {} threads is more than 8 columns per thread",
                            config.cols_per_pass, config.threads_per_row));
  if (config.cols_per_lane != 0 &&
      (!power_of_two_in(config.cols_per_lane, 1, 8) || config.cols_per_lane > config.cols_per_pass ||
       config.cols_per_pass / config.cols_per_lane > config.threads_per_row))
    throw Error(
        fmt::format("spmm_csr: cols_per_lane must be 0 or a power of two in 1..8 that covers {} columns "
                    "per pass with at most {} lanes, got {}",
                    config.cols_per_pass, config.threads_per_row, config.cols_per_lane));
  if (config.long_row_nnz < 32)
    throw Error(fmt::format("spmm_csr: long_row_nnz must be at least 32, got {}", config.long_row_nnz));
  if (config.tile_items != 0 && config.tile_items < 32)
    throw Error(
        fmt::format("spmm_csr: tile_items must be 0 (row-split) or at least 32, got {}", config.tile_items));
}

std::string to_string(const SpmmCsrConfig& c) {
  const std::string v = c.cols_per_lane > 0 ? fmt::format(" V={}", c.cols_per_lane) : std::string{};
  if (c.tile_items > 0)
    return fmt::format("G={} BS={} Lc={}{} tiles={}", c.threads_per_row, c.block_size, c.cols_per_pass, v,
                       c.tile_items);
  return fmt::format("G={} BS={} Lc={}{} long={}", c.threads_per_row, c.block_size, c.cols_per_pass, v,
                     c.long_row_nnz);
}

SpmmCsrConfig spmm_csr_rule(const MatrixStats& stats, int64_t dense_cols, const DeviceProps& device,
                            int value_bytes) {
  if (value_bytes != 4 && value_bytes != 8)
    throw Error(
        fmt::format("spmm_csr_rule: value_bytes must be 4 (float) or 8 (double), got {}", value_bytes));
  const detail::SpmmCsrChoice c = detail::spmm_csr_choice(stats, dense_cols, device, value_bytes);
  return {c.threads_per_row, c.block_size, c.cols_per_pass, c.long_row_nnz, c.tile_items, c.cols_per_lane};
}

int spmm_csr_tile_items(const MatrixStats& stats, const DeviceProps& device) {
  return detail::spmm_tile_items(stats, device);
}

SpmmFormat spmm_format_rule(const MatrixStats& stats) {
  return detail::spmm_prefers_csr(stats) ? SpmmFormat::Csr : SpmmFormat::EllR;
}

SpmmFormat spmm_format_rule(const MatrixStats& stats, int64_t dense_cols) {
  return detail::spmm_prefers_csr(stats, dense_cols) ? SpmmFormat::Csr : SpmmFormat::EllR;
}

SpmmFormat spmm_format_rule(const MatrixStats& stats, int64_t dense_cols, const DeviceProps& device) {
  return detail::spmm_prefers_csr(stats, dense_cols, device) ? SpmmFormat::Csr : SpmmFormat::EllR;
}

}  // namespace spx::cuda
