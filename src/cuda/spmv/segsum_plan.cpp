// Plans and the entry point of the segmented-sum SpMV (host side; the kernels are in segsum.cu).
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/common/scale.hpp"
#include "cuda/spmv/segsum_launch.hpp"
#include "cuda/spmv/segsum_partition.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_segsum.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

std::string invalid_reason(const SegsumSpmvParams& p) {
  if (p.nnz_per_lane < 4 || p.nnz_per_lane > 32 || p.nnz_per_lane % 4 != 0)
    return fmt::format("nnz_per_lane {} is not a multiple of 4 in 4..32", p.nnz_per_lane);
  if (p.tiles_per_warp < 0 || p.tiles_per_warp > 4096)
    return fmt::format("tiles_per_warp {} is not in 1..4096 (or 0: chosen from the tile count)",
                       p.tiles_per_warp);
  if (p.block_size < 32 || p.block_size > 512 || p.block_size % 32 != 0)
    return fmt::format("block_size {} is not a multiple of 32 in 32..512", p.block_size);
  return {};
}

std::string to_string(const SegsumSpmvParams& p) {
  return fmt::format("nnz_per_lane={} tiles_per_warp={} block_size={}", p.nnz_per_lane, p.tiles_per_warp,
                     p.block_size);
}

template <class T>
SegsumSpmvPlan plan_segsum_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA,
                                const SegsumSpmvParams& params) {
  if (const std::string why = invalid_reason(params); !why.empty())
    throw Error(fmt::format("plan_segsum_spmv: {}", why));
  const int64_t tile_size = detail::segsum_tile_size(params.nnz_per_lane);
  // Tile positions run to nnz + tile_size in 32-bit lane arithmetic; rows + 1 offsets are int32.
  if (int64_t{dA.nnz} > int64_t{INT32_MAX} - tile_size || int64_t{dA.rows} >= int64_t{INT32_MAX})
    throw Error(
        fmt::format("plan_segsum_spmv: {} rows, {} nonzeros exceed the int32 index range", dA.rows, dA.nnz));
  SegsumSpmvPlan plan;
  plan.params = params;
  plan.rows = dA.rows;
  plan.cols = dA.cols;
  plan.nnz = dA.nnz;
  plan.row_ptr = dA.row_ptr.data();
  if (dA.rows == 0 || dA.nnz == 0) return plan;  // the product only scales y
  plan.tiles = detail::segsum_tile_count(dA.nnz, tile_size);
  if (plan.params.tiles_per_warp == 0) {
    // Two waves of 32 warps per SM (the tile kernel's 64 registers allow 32 resident warps).
    const int64_t two_waves = int64_t{2} * std::max(1, ctx.props().sm_count) * 32;
    plan.params.tiles_per_warp = static_cast<int>(std::clamp<int64_t>(plan.tiles / two_waves, 1, 4));
  }
  plan.warps = (plan.tiles + plan.params.tiles_per_warp - 1) / plan.params.tiles_per_warp;
  plan.tile_row = DeviceBuffer<int32_t>(static_cast<std::size_t>(plan.tiles) + 1, "segsum tile rows");
  plan.tile_dirty = DeviceBuffer<uint8_t>(static_cast<std::size_t>(plan.tiles), "segsum dirty tiles");
  plan.sync_row = DeviceBuffer<int32_t>(static_cast<std::size_t>(plan.warps), "segsum synchronizer rows");
  plan.sync_value = DeviceBuffer<double>(static_cast<std::size_t>(plan.warps), "segsum synchronizer values");
  DeviceBuffer<unsigned long long> count =
      to_device(ctx, std::vector<unsigned long long>{0ull}, "segsum count");
  detail::launch_segsum_plan(ctx, dA.row_ptr.data(), dA.rows, dA.nnz, tile_size, plan.tiles,
                             plan.tile_row.data(), plan.tile_dirty.data(), count.data());
  unsigned long long dirty = 0;
  copy_to_host_sync(ctx, &dirty, count.data(), sizeof dirty);
  plan.dirty_tiles = static_cast<int64_t>(dirty);
  return plan;
}

template <class T>
void spmv_segsum(Context& ctx, SegsumSpmvPlan& plan, const DeviceCsr<T, int32_t>& dA, std::span<const T> x,
                 std::span<T> y, T alpha, T beta) {
  check_spmv_operands("spmv_segsum", dA.rows, dA.cols, x, y);
  if (plan.rows != dA.rows || plan.cols != dA.cols || plan.nnz != dA.nnz || plan.row_ptr != dA.row_ptr.data())
    throw Error(fmt::format(
        "spmv_segsum: the plan was made for another matrix ({} x {}, {} nonzeros); plan this one with "
        "plan_segsum_spmv",
        plan.rows, plan.cols, plan.nnz));
  if (const std::string why = invalid_reason(plan.params); !why.empty())
    throw Error(fmt::format("spmv_segsum: {}", why));
  if (dA.rows == 0) return;
  const auto rows = static_cast<std::size_t>(dA.rows);
  if (alpha == T{0} || dA.nnz == 0) return scale_in_place(ctx, y.data(), rows, beta);
  detail::SegsumArgs<T> a;
  a.row_ptr = dA.row_ptr.data();
  a.col_idx = dA.col_idx.data();
  a.values = dA.values.data();
  a.x = x.data();
  a.y = y.data();
  a.alpha = alpha;
  a.beta = beta;
  a.rows = dA.rows;
  a.nnz = dA.nnz;
  a.tiles = plan.tiles;
  a.warps = plan.warps;
  a.nnz_per_lane = plan.params.nnz_per_lane;
  a.tiles_per_warp = plan.params.tiles_per_warp;
  a.block_size = plan.params.block_size;
  a.tile_row = plan.tile_row.data();
  a.tile_dirty = plan.tile_dirty.data();
  a.sync_row = plan.sync_row.data();
  a.sync_value = reinterpret_cast<T*>(plan.sync_value.data());
  detail::launch_segsum_spmv(ctx, a);
}

#define SPX_INSTANTIATE_SEGSUM(T)                                                                            \
  template SegsumSpmvPlan plan_segsum_spmv(Context&, const DeviceCsr<T, int32_t>&, const SegsumSpmvParams&); \
  template void spmv_segsum(Context&, SegsumSpmvPlan&, const DeviceCsr<T, int32_t>&, std::span<const T>,     \
                            std::span<T>, T, T);
SPX_INSTANTIATE_SEGSUM(float)
SPX_INSTANTIATE_SEGSUM(double)
#undef SPX_INSTANTIATE_SEGSUM

}  // namespace spx::cuda
