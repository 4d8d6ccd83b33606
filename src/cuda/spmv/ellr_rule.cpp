// spx::cuda::ellr_t_rule and the configuration checks of the non-CSR SpMV kernels (host only; the
// rule itself is inline in ellr_rule.hpp so the CPU tests see it in every build).
#include "cuda/spmv/ellr_rule.hpp"

#include <fmt/format.h>

#include "spx/cuda/spmv_formats.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

EllrTConfig ellr_t_rule(const MatrixStats& stats, const DeviceProps& device) {
  const detail::EllrTChoice choice = detail::ellr_t_choice(stats, device);
  return {choice.threads_per_row, choice.block_size};
}

int spread_block_size(int64_t threads, const DeviceProps& device) {
  return detail::spread_block(threads, device);
}

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

}  // namespace spx::cuda
