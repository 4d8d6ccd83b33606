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
namespace {
bool aligned_16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

constexpr int kResidentWarpsPerSm = 32;  // segsum_tile_kernel's register cap (segsum.cu): 64

// The tile kernel's resident warps on the whole device.
int64_t resident_warp_slots(const Context& ctx) {
  return int64_t{std::max(1, ctx.props().sm_count)} * kResidentWarpsPerSm;
}

// T from the matrix size: the largest of 16, 8, 4 that still gives every resident warp slot of
// the GPU a tile (a small matrix in large tiles runs too few warps, each a longer latency chain).
int auto_nnz_per_lane(const Context& ctx, int64_t nnz) {
  const int64_t slots = resident_warp_slots(ctx);
  for (int t : {16, 8})
    if (nnz >= slots * detail::segsum_tile_size(t)) return t;
  return 4;
}
}  // namespace

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
  if (p.stage_tiles < -1 || p.stage_tiles > 1)
    return fmt::format("stage_tiles {} is not -1 (auto), 0 (never) or 1 (always)", p.stage_tiles);
  return {};
}

std::string to_string(const SegsumSpmvParams& p) {
  return fmt::format(
      "nnz_per_lane={} tiles_per_warp={} block_size={} prefetch={} stream_loads={} sync_on_host={} "
      "complete_rows_up_to={} clean_kernel={} stage_tiles={}",
      p.nnz_per_lane, p.tiles_per_warp, p.block_size, int{p.prefetch}, int{p.stream_loads},
      int{p.sync_on_host}, p.complete_rows_up_to, int{p.clean_kernel}, p.stage_tiles);
}

template <class T>
SegsumSpmvPlan plan_segsum_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA,
                                const SegsumSpmvParams& params) {
  if (const std::string why = invalid_reason(params); !why.empty())
    throw Error(fmt::format("plan_segsum_spmv: {}", why));
  SegsumSpmvPlan plan;
  plan.params = params;
  if (plan.params.nnz_per_lane == 0) plan.params.nnz_per_lane = auto_nnz_per_lane(ctx, dA.nnz);
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
  if (plan.params.tiles_per_warp == 0) {
    // One tile per warp: the H100 study (docs/spmv-segsum.md) found S = 1 fastest on every f64
    // matrix and within 3% of the best S on f32; the kernel is bound by L2 (the x gather), not by
    // the per-tile work that longer warps would amortise.
    plan.params.tiles_per_warp = 1;
  }
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
  if (params.nnz_per_lane == 0 && plan.params.nnz_per_lane == 16 && plan.dirty_tiles * 8 > plan.tiles) {
    // Many dirty tiles (empty rows: R-MAT, long-row generators): half-size tiles were 2-7% faster
    // there in the study (fewer rows per lane slice to place by search); plan again with T = 8.
    SegsumSpmvParams smaller = params;
    smaller.nnz_per_lane = 8;
    return plan_segsum_spmv(ctx, dA, smaller);
  }
  if (params.complete_rows_up_to < 0) {
    plan.completes_rows = plan.warps <= kSegsumAutoCompletionWaves * resident_warp_slots(ctx);
    plan.completion_limit = kSegsumAutoCompletion;
  } else {
    plan.completes_rows = params.complete_rows_up_to > 0;
    plan.completion_limit = params.complete_rows_up_to;
  }
  plan.completes_rows = plan.completes_rows && !params.sync_on_host;
  // The clean synchronizer kernels load full tiles 16 bytes per lane (segsum_tile.cuh, kVectorTiles):
  // 16-byte aligned arrays and tiles (nnz_per_lane a multiple of the values per 16 bytes). The f64
  // synchronizer takes the clean kernel only then: without the vector loads it measured 3-7% slower
  // than the general kernel (ade52c8).
  const bool aligned = aligned_16(dA.values.data()) && aligned_16(dA.col_idx.data());
  const bool vectorizable = aligned && plan.params.nnz_per_lane % (16 / static_cast<int>(sizeof(T))) == 0;
  plan.clean_kernel =
      params.clean_kernel && plan.dirty_tiles == 0 && (plan.completes_rows || sizeof(T) == 4 || vectorizable);
  plan.staged_tiles = (params.stage_tiles < 0 ? plan.completes_rows : params.stage_tiles == 1) && aligned;
  plan.vector_loads = plan.clean_kernel && !plan.completes_rows && !plan.staged_tiles && vectorizable;
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
  if (params.sync_on_host) {
    plan.host_sync_row = PinnedBuffer<int32_t>(warps, "segsum host synchronizer rows");
    plan.host_sync_value = PinnedBuffer<double>(warps, "segsum host synchronizer values");
    plan.fixup_row = PinnedBuffer<int32_t>(warps, "segsum host fix-up rows");
    plan.fixup_value = PinnedBuffer<double>(warps, "segsum host fix-up values");
  } else if (!plan.completes_rows) {
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
  a.prefetch = plan.params.prefetch;
  a.stream = plan.params.stream_loads;
  a.wide_tiles = plan.wide_tile.data();
  a.wide_prefix = plan.wide_prefix.data();
  a.wide_count = plan.wide_tiles;
  a.wide_total = plan.wide_rows;
  a.clean = plan.clean_kernel;
  // The plan checked the alignment of the matrix it was made for (the same row_ptr, checked above;
  // values and col_idx are checked again, as a DeviceCsr's arrays could be swapped).
  const bool aligned = aligned_16(a.values) && aligned_16(a.col_idx);
  a.staged = plan.staged_tiles && aligned;
  a.vector_loads = plan.vector_loads && aligned;
  a.complete_rows = plan.completes_rows;
  a.complete_limit = static_cast<int>(std::min<int64_t>(plan.completion_limit, INT32_MAX));
  a.long_head = plan.long_head.data();
  a.arrivals = plan.long_head.empty() ? nullptr : ctx.zeroed_counters(static_cast<std::size_t>(plan.warps));
  if (!plan.params.sync_on_host) {
    a.sync_row = plan.sync_row.data();
    a.sync_value = reinterpret_cast<T*>(plan.sync_value.data());
    detail::launch_segsum_spmv(ctx, a);
    return;
  }
  // The host synchronizer (Liu & Vinter §3.4, on a discrete GPU): the tile kernel writes the open
  // partials straight into pinned host memory (mapped: unified addressing), the host adds each run
  // of warps sharing a row in warp order, and the device adds the sums to y.
  a.sync_row = plan.host_sync_row.data();
  a.sync_value = reinterpret_cast<T*>(plan.host_sync_value.data());
  a.sync_on_device = false;
  detail::launch_segsum_spmv(ctx, a);
  if (plan.warps <= 1) return;
  ctx.synchronize();
  const int32_t* rows_open = plan.host_sync_row.data();
  const T* partial = reinterpret_cast<const T*>(plan.host_sync_value.data());
  T* fix_value = reinterpret_cast<T*>(plan.fixup_value.data());
  int64_t fixups = 0;
  for (int64_t w = 1; w < plan.warps; ++w) {
    const int32_t row = rows_open[w];
    if (row < 0 || rows_open[w - 1] == row) continue;  // no open row, or not the start of its run
    T sum = partial[w];
    for (int64_t v = w + 1; v < plan.warps && rows_open[v] == row; ++v) sum += partial[v];
    plan.fixup_row.data()[fixups] = row;
    fix_value[fixups] = sum;
    ++fixups;
  }
  detail::launch_segsum_fixups(ctx, plan.fixup_row.data(), plan.fixup_value.data(), fixups, alpha, y.data());
}

#define SPX_INSTANTIATE_SEGSUM(T)                                                                            \
  template SegsumSpmvPlan plan_segsum_spmv(Context&, const DeviceCsr<T, int32_t>&, const SegsumSpmvParams&); \
  template void spmv_segsum(Context&, SegsumSpmvPlan&, const DeviceCsr<T, int32_t>&, std::span<const T>,     \
                            std::span<T>, T, T);
SPX_INSTANTIATE_SEGSUM(float)
SPX_INSTANTIATE_SEGSUM(double)
#undef SPX_INSTANTIATE_SEGSUM

}  // namespace spx::cuda
