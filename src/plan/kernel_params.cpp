// The checks and text forms of the kernels' parameter structs (kernel_params.hpp). Host code,
// every build.
#include "spx/cuda/kernel_params.hpp"

#include <fmt/format.h>

#include "common/pow2.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

constexpr int kMinBlock = 64;
constexpr int kMaxBlock = 1024;
constexpr int kMaxRepeat = 1024;

using spx::detail::is_power_of_two;

bool power_of_two_in(int v, int lo, int hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; }

void check_block_size(const char* who, int block) {
  if (block < 32 || block > kSpmmMaxBlock || block % 32 != 0)
    throw Error(
        fmt::format("{}: block size must be a multiple of 32 in 32..{}, got {}", who, kSpmmMaxBlock, block));
}

}  // namespace

// --- CSR SpMV ---

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

// --- ELLR-T and COO SpMV ---

void check_ellr_t_config(const EllrTConfig& config) {
  const int t = config.threads_per_row;
  if (t < 1 || t > 32 || (t & (t - 1)) != 0)
    throw Error(fmt::format("spmv_ellr_t: threads per row must be 1, 2, 4, 8, 16 or 32, got {}", t));
  if (config.block_size < 32 || config.block_size > 1024 || config.block_size % 32 != 0)
    throw Error(fmt::format("spmv_ellr_t: block size must be a multiple of 32 in 32..1024, got {}",
                            config.block_size));
}

void check_coo_config(const CooConfig& config) {
  if (config.nnz_per_warp < 32 || config.nnz_per_warp > (1 << 20) || config.nnz_per_warp % 32 != 0)
    throw Error(fmt::format("spmv_coo: nonzeros per warp must be a multiple of 32 in 32..2^20, got {}",
                            config.nnz_per_warp));
  if (config.block_size < 32 || config.block_size > 512 || config.block_size % 32 != 0)
    throw Error(
        fmt::format("spmv_coo: block size must be a multiple of 32 in 32..512, got {}", config.block_size));
}

// --- Segmented sum ---

std::string invalid_reason(const SegsumSpmvParams& p) {
  if (p.nnz_per_lane != 0 && (p.nnz_per_lane < 4 || p.nnz_per_lane > 32 || p.nnz_per_lane % 4 != 0))
    return fmt::format("nnz_per_lane {} is not a multiple of 4 in 4..32 (or 0: chosen from nnz)",
                       p.nnz_per_lane);
  if (p.tiles_per_warp < 0 || p.tiles_per_warp > 4096)
    return fmt::format("tiles_per_warp {} is not in 1..4096 (or 0: chosen from the tile count)",
                       p.tiles_per_warp);
  if (p.block_size < 32 || p.block_size > 512 || p.block_size % 32 != 0)
    return fmt::format("block_size {} is not a multiple of 32 in 32..512", p.block_size);
  if (p.complete_rows_up_to < -1)
    return fmt::format("complete_rows_up_to {} is negative (-1: auto, 0: never)", p.complete_rows_up_to);
  return {};
}

std::string to_string(const SegsumSpmvParams& p) {
  return fmt::format("nnz_per_lane={} tiles_per_warp={} block_size={} complete_rows_up_to={}", p.nnz_per_lane,
                     p.tiles_per_warp, p.block_size, p.complete_rows_up_to);
}

// --- SpMM ---

void check_spmm_ellr_config(const SpmmEllrConfig& config) {
  if (!power_of_two_in(config.threads_per_row, 1, 32))
    throw Error(fmt::format("spmm_ellr_t: threads per row must be 1, 2, 4, 8, 16 or 32, got {}",
                            config.threads_per_row));
  check_block_size("spmm_ellr_t", config.block_size);
  if (!power_of_two_in(config.cols_per_pass, 1, kSpmmEllrMaxColsPerPass))
    throw Error(fmt::format("spmm_ellr_t: columns per pass must be 1, 2, 4, 8, 16 or 32, got {}",
                            config.cols_per_pass));
}

std::string to_string(const SpmmEllrConfig& c) {
  return fmt::format("T={} BS={} Lc={}", c.threads_per_row, c.block_size, c.cols_per_pass);
}

void check_spmm_csr_config(const SpmmCsrConfig& config) {
  if (!power_of_two_in(config.threads_per_row, 1, 32))
    throw Error(fmt::format("spmm_csr: threads per row must be a power of two in 1..32, got {}",
                            config.threads_per_row));
  check_block_size("spmm_csr", config.block_size);
  if (!power_of_two_in(config.cols_per_pass, 1, kSpmmCsrMaxColsPerPass))
    throw Error(fmt::format("spmm_csr: columns per pass must be a power of two in 1..64, got {}",
                            config.cols_per_pass));
  if (config.cols_per_pass / config.threads_per_row > kSpmmCsrMaxColsPerThread)
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

}  // namespace spx::cuda
