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
#include "spx/plan/rules.hpp"

namespace spx::cuda {
namespace {
bool aligned_16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

template <class T>
SegsumSpmvPlan plan_segsum_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA,
                                const SegsumSpmvParams& params) {
  validate(params, "plan_segsum_spmv");
  SegsumSpmvPlan plan;
  plan.params = params;
  if (plan.params.nnz_per_lane == 0)
    plan.params.nnz_per_lane = plan::segsum_nnz_per_lane(dA.nnz, ctx.props());
  const int64_t tile_size = detail::segsum_tile_size(plan.params.nnz_per_lane);
  // The tile kernel works in int32: tile positions run to nnz + tile_size, rows to rows + 32 (a
  // lane's first walked row), row offsets are int32.
  if (int64_t{dA.nnz} > int64_t{INT32_MAX} - tile_size || int64_t{dA.rows} > int64_t{INT32_MAX} - 64)
    throw Error(
        fmt::format("plan_segsum_spmv: {} rows, {} nonzeros exceed the int32 index range", dA.rows, dA.nnz));
  plan.rows = dA.rows;
  plan.cols = dA.cols;
  plan.nnz = dA.nnz;
  plan.row_ptr = dA.row_ptr.data();
  if (dA.rows == 0 || dA.nnz == 0) return plan;  // the product only scales y
  plan.tiles = detail::segsum_tile_count(dA.nnz, tile_size);
  if (plan.params.tiles_per_warp == 0)
    plan.params.tiles_per_warp = plan::default_rule_tables().segsum.tiles_per_warp;
  plan.warps = (plan.tiles + plan.params.tiles_per_warp - 1) / plan.params.tiles_per_warp;
  plan.tile_row = DeviceBuffer<int32_t>(static_cast<std::size_t>(plan.tiles) + 1, "segsum tile rows");
  plan.tile_dirty = DeviceBuffer<uint8_t>(static_cast<std::size_t>(plan.tiles), "segsum dirty tiles");
  DeviceBuffer<unsigned long long> counts =
      to_device(ctx, std::vector<unsigned long long>{0ull, 0ull}, "segsum plan counts");
  detail::launch_segsum_plan(ctx, dA.row_ptr.data(), dA.rows, dA.nnz, tile_size, plan.tiles,
                             plan.tile_row.data(), plan.tile_dirty.data(), counts.data());
  const std::vector<unsigned long long> counted = to_host(ctx, counts);
  const unsigned long long dirty = counted[0];
  plan.dirty_tiles = static_cast<int64_t>(dirty);
  plan.max_open_tail = static_cast<int64_t>(counted[1]);
  if (params.nnz_per_lane == 0) {
    // Many dirty tiles (empty rows) place their rows by search: plan again with the rule's smaller T.
    const int smaller =
        plan::segsum_nnz_per_lane_for_dirty(plan.params.nnz_per_lane, plan.dirty_tiles, plan.tiles);
    if (smaller != plan.params.nnz_per_lane) {
      SegsumSpmvParams again = params;
      again.nnz_per_lane = smaller;
      return plan_segsum_spmv(ctx, dA, again);
    }
  }
  if (params.complete_rows_up_to < 0) {
    plan.completes_rows = plan::segsum_completes_rows(plan.warps, ctx.props());
    plan.completion_limit = plan::default_rule_tables().segsum.completion_limit;
  } else {
    plan.completes_rows = params.complete_rows_up_to > 0;
    plan.completion_limit = params.complete_rows_up_to;
  }
  // Rows are completed by the staged kernel only (cp.async needs 16-byte aligned values and
  // col_idx, which device allocations are); without it, the synchronizer.
  const bool aligned = aligned_16(dA.values.data()) && aligned_16(dA.col_idx.data());
  plan.completes_rows = plan.completes_rows && aligned;
  // The clean synchronizer kernels load full tiles 16 bytes per lane (segsum_tile.cuh, kVectorTiles):
  // 16-byte aligned arrays and tiles (nnz_per_lane a multiple of the values per 16 bytes). The f64
  // synchronizer takes the clean kernel only then: without the vector loads it measured 3-7% slower
  // than the general kernel (bench/results/h100/segsum/NOTES.md, round 7).
  const bool vectorizable = aligned && plan.params.nnz_per_lane % (16 / static_cast<int>(sizeof(T))) == 0;
  plan.clean_kernel = plan.dirty_tiles == 0 && (plan.completes_rows || sizeof(T) == 4 || vectorizable);
  plan.vector_loads = plan.clean_kernel && !plan.completes_rows && vectorizable;
  const auto warps = static_cast<std::size_t>(plan.warps);
  if (plan.completes_rows && plan.max_open_tail > plan.completion_limit) {
    // Long tails, summed by arrival: which warps begin inside one, and the owners' and partners'
    // partials (the counters are the context's, Context::zeroed_counters, left at zero).
    plan.long_head = DeviceBuffer<uint8_t>(warps, "segsum long-tail heads");
    detail::launch_segsum_long_heads(ctx, dA.row_ptr.data(), plan.tile_row.data(), dA.nnz, tile_size,
                                     plan.params.tiles_per_warp, plan.warps, plan.completion_limit,
                                     plan.long_head.data());
    plan.sync_value = DeviceBuffer<double>(2 * warps, "segsum long-tail partials");
  }
  if (!plan.completes_rows) {
    plan.sync_row = DeviceBuffer<int32_t>(warps, "segsum synchronizer rows");
    plan.sync_value = DeviceBuffer<double>(warps, "segsum synchronizer values");
  }
  if (dirty > 0) {
    // Wide tiles are dirty; find them on the host from the tile rows (4 bytes per tile, once).
    const std::vector<int32_t> tile_row = to_host(ctx, plan.tile_row);
    std::vector<int32_t> wide;
    std::vector<int64_t> prefix;
    for (int64_t t = 0; t < plan.tiles; ++t) {
      const detail::RowRange range = detail::segsum_row_range(tile_row.data(), t);
      if (!detail::segsum_range_wide(range, tile_size)) continue;
      wide.push_back(static_cast<int32_t>(t));
      prefix.push_back(plan.wide_rows);
      plan.wide_rows += range.last - range.first + 1;
    }
    plan.wide_tiles = static_cast<int64_t>(wide.size());
    if (!wide.empty()) {
      plan.wide_tile = to_device(ctx, wide, "segsum wide tiles");
      plan.wide_prefix = to_device(ctx, prefix, "segsum wide tile prefix");
    }
  }
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
  validate(plan.params, "spmv_segsum");
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
  a.wide_tiles = plan.wide_tile.data();
  a.wide_prefix = plan.wide_prefix.data();
  a.wide_count = plan.wide_tiles;
  a.wide_total = plan.wide_rows;
  a.clean = plan.clean_kernel;
  // The plan checked the alignment of the matrix it was made for (the same row_ptr, checked above;
  // values and col_idx are checked again, as a DeviceCsr's arrays could be swapped): a staged tile
  // or a vector load of a misaligned array would fault.
  const bool aligned = aligned_16(a.values) && aligned_16(a.col_idx);
  if (plan.completes_rows && !aligned)
    throw Error(
        "spmv_segsum: the matrix's values or column indices are no longer 16-byte aligned; plan it again");
  a.vector_loads = plan.vector_loads && aligned;
  a.complete_rows = plan.completes_rows;
  a.complete_limit = static_cast<int>(std::min<int64_t>(plan.completion_limit, INT32_MAX));
  a.long_head = plan.long_head.data();
  a.arrivals = plan.long_head.empty() ? nullptr : ctx.zeroed_counters(static_cast<std::size_t>(plan.warps));
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
