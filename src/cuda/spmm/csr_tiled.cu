// Balanced CSR SpMM: one warp per tile of K consecutive items, where the items are the rows and the
// nonzeros in one order (csr_tiles.hpp), so every warp gets the same work whatever the row lengths.
//
// A warp finds the rows that start in its tile (two 16-ary searches, one per half-warp), walks the
// short ones whole — one row per group of G lanes, with the lane layout of the row-split kernel
// (csr.cu, csr_device.cuh) — and works its piece of at most two long rows (more than K nonzeros)
// with the whole warp. Long-row pieces go to a partial-sum slot of the tile (workspace); each piece
// then counts itself on its row's arrival counter, and the warp that completes the count adds the
// row's partials in tile order and writes C. So one launch does what the row-split kernel needs a
// memset, a second kernel and atomicAdd into C for, and every row is summed in a fixed order.
//
// Offsets of either width (O = int32_t, or int64_t for WideDeviceCsr): the items and tiles are
// int64 already, so 64-bit offsets change only the loads of row_ptr and the nonzero indices.
//
// The arrival counters (Context::zeroed_counters) start at zero and are left at zero: the last
// piece of a row resets its counter before it writes the row.
#include <algorithm>
#include <cstdint>

#include "cuda/common/arrival.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/warp.cuh"
#include "cuda/spmm/csr_device.cuh"
#include "cuda/spmm/csr_tiled.hpp"
#include "cuda/spmm/csr_tiles.hpp"

namespace spx::cuda::detail {
namespace {

// First r in [0, rows] whose start item r + row_ptr[r] is >= key (rows + 1 if none): each
// half-warp searches its own key, 16 probes per round, so a million rows take five rounds of one
// load instead of twenty. Every lane of the warp must call it; the rounds run until both halves
// are done (an interval of at most 16 rows), and the last round probes the whole interval.
template <class O>
__device__ __forceinline__ int64_t half_warp_first_row_from(const O* row_ptr, int64_t rows, int64_t key) {
  const int lane = lane_id();
  const int sub = lane & 15;
  const int half = lane & 16;
  int64_t lo = 0;         // every r < lo starts below key
  int64_t hi = rows + 1;  // hi == rows + 1, or row hi starts at or after key
  while (__any_sync(kFullWarpMask, hi - lo > 16)) {
    const bool active = hi - lo > 16;
    // Probes strictly inside (lo, hi) when active; any in-range row otherwise (result unused).
    const int64_t probe = active ? lo + (hi - lo) * (sub + 1) / 17 : (lo < rows ? lo : rows);
    const bool below = spmm_row_start_item(row_ptr, probe) < key;
    const int count = __popc((__ballot_sync(kFullWarpMask, below) >> half) & 0xffffu);
    const int64_t last_below = __shfl_sync(kFullWarpMask, probe, half + (count > 0 ? count - 1 : 0));
    const int64_t first_not = __shfl_sync(kFullWarpMask, probe, half + (count < 16 ? count : 15));
    if (active) {
      if (count > 0) lo = last_below + 1;
      if (count < 16) hi = first_not;
    }
  }
  const int64_t probe = lo + sub;
  const bool below = probe < hi && spmm_row_start_item(row_ptr, probe) < key;
  return lo + __popc((__ballot_sync(kFullWarpMask, below) >> half) & 0xffffu);
}

struct TileArgs {
  int64_t tile_items;  // K
  int64_t tiles;
  int64_t first_col;  // of the launch's first pass
  int pass_cols;      // L_c
  int ncols;          // columns in each pass of this launch (L_c, or fewer in a tail pass)
};

// The piece of long row r in tile t, by the whole warp (W column lanes, P = 32 / W lanes splitting
// the nonzeros): stored in the tile's slot; the warp that brings the row's count to its number of
// pieces adds them all and writes the row.
template <int V, bool Vec, class T, class I, class O>
__device__ __forceinline__ void long_row_piece(const CsrArg<T, I, O>& A, const DenseArg<const T>& B,
                                               const DenseArg<T>& C, const TileArgs& args, int p_log2,
                                               int64_t t, int slot, int64_t r, O row_begin, O row_end,
                                               T alpha, T beta, T* partials, unsigned* arrivals) {
  const int lane = lane_id();
  const int P = 1 << p_log2;
  const int p = lane & (P - 1);
  const int w = lane >> p_log2;
  const int64_t j0 = args.first_col + int64_t{blockIdx.y} * args.pass_cols + int64_t{w} * V;
  const int valid = args.ncols - w * V;
  const NonzeroRange piece = spmm_long_row_piece(r, row_begin, row_end, t, args.tile_items);
  T acc[V];
  zero(acc);
  if (valid > 0)
    accumulate<V, Vec>(A, B, j0, valid, static_cast<O>(piece.begin + p), static_cast<O>(piece.end), P, acc);
  group_reduce_all(acc, P);
  if (p == 0) {
    T* mine = partials + (2 * t + slot) * args.pass_cols + w * V;
#pragma unroll
    for (int j = 0; j < V; ++j) mine[j] = acc[j];
  }
  const TileSpan span = spmm_long_row_tiles(r, row_begin, row_end, args.tile_items);
  const int64_t pieces = span.last - span.first + 1;
  if (!warp_arrives_last(arrivals + span.first, static_cast<unsigned>(pieces))) return;
  zero(acc);
  for (int64_t q = p; q < pieces; q += P) {
    const T* part = partials + spmm_piece_slot(span.first, q) * args.pass_cols + w * V;
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] += __ldcg(part + j);
  }
  group_reduce_all(acc, P);
  if (p != 0) return;
  T* c_row = C.data + r * C.row_stride + j0 * C.col_stride;
#pragma unroll
  for (int j = 0; j < V; ++j)
    if (Vec || j < valid) write_scaled(c_row + j * C.col_stride, acc[j], alpha, beta);
}

// lanes: the groups that walk short rows; p_log2: log2 of the lanes splitting a long-row piece.
// Grid: one warp per tile (x), one pass of L_c columns per blockIdx.y. partials: 2 × tiles × L_c
// per pass; arrivals: tiles per pass.
template <int V, bool Vec, class T, class I, class O>
__global__ void __launch_bounds__(kSpmmMaxBlock)
    spmm_csr_tiles_kernel(CsrArg<T, I, O> A, DenseArg<const T> B, DenseArg<T> C, Lanes lanes, int p_log2,
                          TileArgs args, T alpha, T beta, T* partials, unsigned* arrivals) {
  const int64_t t = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) >> 5;
  if (t >= args.tiles) return;  // a whole warp (the block is a multiple of 32)
  const int lane = lane_id();
  const int64_t K = args.tile_items;
  // Lanes 0-15 find the first row starting in this tile, lanes 16-31 the first in the next.
  const int64_t first = half_warp_first_row_from(A.row_ptr, int64_t{A.rows}, (t + (lane >> 4)) * K);
  const TileRows rows = spmm_tile_rows(__shfl_sync(kFullWarpMask, first, 0),
                                       __shfl_sync(kFullWarpMask, first, 16), int64_t{A.rows});
  partials += int64_t{blockIdx.y} * 2 * args.tiles * args.pass_cols;
  arrivals += int64_t{blockIdx.y} * args.tiles;

  // Short rows: group (lane >> g_log2) takes rows begin + group, + groups, ... A tile with fewer
  // rows than groups widens its groups (more lanes split each row's nonzeros, the same column
  // lanes), so a tile of one or two rows still keeps the whole warp busy.
  int g_log2 = lanes.g_log2;
  while (g_log2 < 5 && (int64_t{32} >> (g_log2 + 1)) >= rows.end - rows.begin) ++g_log2;
  const int s_log2 = lanes.s_log2 + (g_log2 - lanes.g_log2);
  const int g = lane & ((1 << g_log2) - 1);
  const int s = g & ((1 << s_log2) - 1);
  const int w = g >> s_log2;
  const int64_t j0 = args.first_col + int64_t{blockIdx.y} * args.pass_cols + int64_t{w} * V;
  const int valid = args.ncols - w * V;
  const int groups = 32 >> g_log2;
  for (int64_t base = rows.begin; base < rows.end; base += groups) {
    const int64_t r = base + (lane >> g_log2);
    T acc[V];
    zero(acc);
    bool short_row = false;
    if (r < rows.end) {
      const O begin = A.row_ptr[r];
      const O end = A.row_ptr[r + 1];
      short_row = !spmm_row_is_long(end - begin, K);
      if (short_row && valid > 0) accumulate<V, Vec>(A, B, j0, valid, begin + s, end, 1 << s_log2, acc);
    }
    // No early exit above: every lane of the warp reaches the reduction.
    if (s_log2 > 0) group_reduce_all(acc, 1 << s_log2);
    if (short_row && s == 0) {
      T* c_row = C.data + r * C.row_stride + j0 * C.col_stride;
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (Vec || j < valid) write_scaled(c_row + j * C.col_stride, acc[j], alpha, beta);
    }
  }

  // Long rows: the one crossing in from before the tile (the last row starting before it), and the
  // one starting in it (only the last row starting in a tile can be long).
  if (rows.begin > 0) {
    const int64_t r = rows.begin - 1;
    const O begin = A.row_ptr[r];
    const O end = A.row_ptr[r + 1];
    if (spmm_row_is_long(end - begin, K) && r + end > t * K)
      long_row_piece<V, Vec>(A, B, C, args, p_log2, t, 0, r, begin, end, alpha, beta, partials, arrivals);
  }
  if (rows.end > rows.begin) {
    const int64_t r = rows.end - 1;
    const O begin = A.row_ptr[r];
    const O end = A.row_ptr[r + 1];
    if (spmm_row_is_long(end - begin, K))
      long_row_piece<V, Vec>(A, B, C, args, p_log2, t, 1, r, begin, end, alpha, beta, partials, arrivals);
  }
}

// Passes per launch: bounded by the grid's y (65535) and by the partial slots' workspace.
constexpr std::size_t kMaxTileWorkspace = std::size_t{256} << 20;

template <int V, class T, class I, class O>
void launch_tiles(Context& ctx, const DeviceCsr<T, I, O>& A, DenseArg<const T> B, DenseArg<T> C,
                  const SpmmCsrParams& config, const CsrPassShape& shape, T alpha, T beta) {
  const CsrArg<T, I, O> a = csr_arg(A);
  const CsrLaneLayout layout = csr_lane_layout(config, shape, V);
  const Lanes lanes = layout.group;
  const int p_log2 = layout.warp.s_log2;
  const int64_t tiles = spmm_tile_count(A.rows, A.nnz, config.tile_items);
  const std::size_t slot_bytes = 2 * static_cast<std::size_t>(tiles) * shape.pass_cols * sizeof(T);
  const int64_t per_launch = std::clamp<int64_t>(
      static_cast<int64_t>(kMaxTileWorkspace / std::max<std::size_t>(1, slot_bytes)), 1, 65535);
  for (int64_t done = 0; done < shape.passes; done += per_launch) {
    const int64_t passes = std::min(per_launch, shape.passes - done);
    auto* partials = static_cast<T*>(ctx.workspace(slot_bytes * static_cast<std::size_t>(passes)));
    unsigned* arrivals = ctx.zeroed_counters(static_cast<std::size_t>(tiles * passes));
    const TileArgs args{config.tile_items, tiles, shape.first_col + done * shape.pass_cols, shape.pass_cols,
                        shape.ncols};
    const dim3 grid(grid_for(tiles * 32, config.block_size), static_cast<unsigned>(passes));
    if (shape.vec)
      spmm_csr_tiles_kernel<V, true, T, I, O><<<grid, config.block_size, 0, ctx.stream()>>>(
          a, B, C, lanes, p_log2, args, alpha, beta, partials, arrivals);
    else
      spmm_csr_tiles_kernel<V, false, T, I, O><<<grid, config.block_size, 0, ctx.stream()>>>(
          a, B, C, lanes, p_log2, args, alpha, beta, partials, arrivals);
    SPX_CHECK_LAUNCH("spmm_csr_tiles_kernel", ctx.stream());
  }
}

}  // namespace

template <class T, class I, class O>
void spmm_csr_tiled(Context& ctx, const DeviceCsr<T, I, O>& A, DenseArg<const T> B, DenseArg<T> C,
                    const SpmmCsrParams& config, const CsrPassShape& shape, T alpha, T beta) {
  dispatch_value<1, 2, 4, 8>(csr_cols_per_lane(config, shape), [&](auto V) {
    launch_tiles<V.value>(ctx, A, B, C, config, shape, alpha, beta);
  });
}

template void spmm_csr_tiled(Context&, const DeviceCsr<float, int32_t>&, DenseArg<const float>,
                             DenseArg<float>, const SpmmCsrParams&, const CsrPassShape&, float, float);
template void spmm_csr_tiled(Context&, const DeviceCsr<double, int32_t>&, DenseArg<const double>,
                             DenseArg<double>, const SpmmCsrParams&, const CsrPassShape&, double, double);
template void spmm_csr_tiled(Context&, const WideDeviceCsr<float>&, DenseArg<const float>, DenseArg<float>,
                             const SpmmCsrParams&, const CsrPassShape&, float, float);
template void spmm_csr_tiled(Context&, const WideDeviceCsr<double>&, DenseArg<const double>, DenseArg<double>,
                             const SpmmCsrParams&, const CsrPassShape&, double, double);

}  // namespace spx::cuda::detail
