// CSR → HYB on the device (Bell & Garland). The ELL width comes from a row-length histogram built on
// the device (warp-aggregated shared-memory atomics; only lengths up to 3·nnz/rows + 1 matter, see
// below), the ELL part is the slab fill of to_ell.cu, and the COO tail is placed by a device-wide
// exclusive scan of the per-row tail lengths (block scans of block.cuh: tile sums, one block scans
// the tile sums, tiles rescan with their offset) followed by one thread per tail entry that finds
// its row by binary search. The tail is sorted by (row, col) because the CSR rows are.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuda/common/block.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/warp.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/convert/convert_checks.hpp"
#include "cuda/convert/slab.hpp"
#include "cuda/spmv/coo_chunks.hpp"
#include "spx/cuda/convert.hpp"

namespace spx::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kScanBlock = 1024;  // rows per scan tile
// Below this many rows a COO pass costs no more than ELL (Bell & Garland; spx::hyb_ell_width).
constexpr int64_t kBreakevenRows = 4096;
// 48 KB of 32-bit counters: the default shared-memory limit of a block.
constexpr int64_t kSharedHistogramBins = 12288;

template <class I>
__global__ void __launch_bounds__(kBlock)
    row_length_histogram_kernel(I rows, const I* __restrict__ row_ptr, int64_t top_bin,
                                unsigned* __restrict__ hist, bool in_shared) {
  extern __shared__ unsigned local_hist[];
  unsigned* counts = in_shared ? local_hist : hist;
  if (in_shared) {
    for (int64_t b = threadIdx.x; b <= top_bin; b += kBlock) local_hist[b] = 0;
    __syncthreads();
  }
  for (int64_t base = int64_t{blockIdx.x} * kBlock; base < rows; base += int64_t{gridDim.x} * kBlock) {
    const int64_t r = base + threadIdx.x;
    int64_t bin = -1;
    if (r < rows) bin = min(static_cast<int64_t>(row_ptr[r + 1] - row_ptr[r]), top_bin);
    // Rows of a matrix share a few lengths: the lanes of one length add once, together.
    const unsigned peers = __match_any_sync(kFullWarpMask, bin);
    if (bin >= 0 && lane_id() == __ffs(static_cast<int>(peers)) - 1)
      atomicAdd(counts + bin, static_cast<unsigned>(__popc(peers)));
  }
  if (in_shared) {
    __syncthreads();
    for (int64_t b = threadIdx.x; b <= top_bin; b += kBlock)
      if (local_hist[b] != 0) atomicAdd(hist + b, local_hist[b]);
  }
}

template <class I>
__device__ __forceinline__ int64_t tail_length(I rows, const I* __restrict__ row_ptr, I width, int64_t r) {
  if (r >= rows) return 0;
  const int64_t len = row_ptr[r + 1] - row_ptr[r];
  return len > width ? len - width : 0;
}

template <class I>
__global__ void __launch_bounds__(kScanBlock)
    tail_tile_sums_kernel(I rows, const I* __restrict__ row_ptr, I width, int64_t* __restrict__ tile_sums) {
  __shared__ BlockScratch<int64_t, kScanBlock> scratch;
  const int64_t r = int64_t{blockIdx.x} * kScanBlock + threadIdx.x;
  const int64_t total = block_reduce_sum<kScanBlock>(tail_length(rows, row_ptr, width, r), scratch);
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = total;
}

// One block walks all tile sums (tiles = rows / 1024: two passes for 2M rows).
template <class I>
__global__ void __launch_bounds__(kScanBlock)
    scan_tile_sums_kernel(int64_t tiles, const int64_t* __restrict__ tile_sums,
                          int64_t* __restrict__ tile_offsets, I* __restrict__ total) {
  __shared__ BlockScratch<int64_t, kScanBlock> scratch;
  int64_t running = 0;
  for (int64_t base = 0; base < tiles; base += kScanBlock) {
    const int64_t t = base + threadIdx.x;
    int64_t pass_total = 0;
    const int64_t offset =
        block_exclusive_scan<kScanBlock>(t < tiles ? tile_sums[t] : int64_t{0}, scratch, &pass_total);
    if (t < tiles) tile_offsets[t] = running + offset;
    running += pass_total;
  }
  if (threadIdx.x == 0) *total = static_cast<I>(running);
}

template <class I>
__global__ void __launch_bounds__(kScanBlock)
    tail_offsets_kernel(I rows, const I* __restrict__ row_ptr, I width,
                        const int64_t* __restrict__ tile_offsets, I* __restrict__ tail_ptr) {
  __shared__ BlockScratch<int64_t, kScanBlock> scratch;
  const int64_t r = int64_t{blockIdx.x} * kScanBlock + threadIdx.x;
  const int64_t offset = block_exclusive_scan<kScanBlock>(tail_length(rows, row_ptr, width, r), scratch);
  if (r < rows) tail_ptr[r] = static_cast<I>(tile_offsets[blockIdx.x] + offset);
}

// Entry t of the tail: its row by binary search in tail_ptr, then the (width + t - tail_ptr[row])-th
// entry of that CSR row. Consecutive t read and write consecutive addresses.
template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    hyb_tail_kernel(I rows, I width, int64_t tail_nnz, const I* __restrict__ row_ptr,
                    const I* __restrict__ col_idx, const T* __restrict__ values,
                    const I* __restrict__ tail_ptr, I* __restrict__ out_row, I* __restrict__ out_col,
                    T* __restrict__ out_val) {
  for (int64_t t = int64_t{blockIdx.x} * kBlock + threadIdx.x; t < tail_nnz;
       t += int64_t{gridDim.x} * kBlock) {
    const int64_t r = detail::row_of_entry(tail_ptr, rows, t);
    const int64_t src = row_ptr[r] + width + (t - tail_ptr[r]);
    out_row[t] = static_cast<I>(r);
    out_col[t] = col_idx[src];
    out_val[t] = values[src];
  }
}

// Bell & Garland's width from the device histogram (the host rule of spx::hyb_ell_width, on counts).
// A width K qualifies when at least max(4096, rows/3) rows have K or more nonzeros, so
// K·rows/3 <= nnz: no K above 3·nnz/rows qualifies, and lengths beyond top_bin = 3·nnz/rows + 1 can
// share the top bin without changing any count that matters.
template <class T, class I>
I bell_garland_width(Context& ctx, const DeviceCsr<T, I>& A) {
  const int64_t rows = A.rows;
  if (rows < kBreakevenRows) return I{0};
  const int64_t top_bin = 3 * int64_t{A.nnz} / rows + 1;
  // The histogram in the context's workspace: an allocation and a cudaFree (which waits for the
  // device) cost more than the pass itself.
  const std::size_t hist_bytes = static_cast<std::size_t>(top_bin + 1) * sizeof(unsigned);
  auto* hist = static_cast<unsigned*>(ctx.workspace(hist_bytes));
  SPX_CUDA_CHECK(cudaMemsetAsync(hist, 0, hist_bytes, ctx.stream()));
  const bool in_shared = top_bin + 1 <= kSharedHistogramBins;
  const std::size_t shared_bytes = in_shared ? hist_bytes : 0;
  row_length_histogram_kernel<I>
      <<<grid_for_resident(ctx, rows, kBlock, 4), kBlock, shared_bytes, ctx.stream()>>>(
          A.rows, A.row_ptr.data(), top_bin, hist, in_shared);
  SPX_CHECK_LAUNCH("row_length_histogram_kernel", ctx.stream());
  std::vector<unsigned> counts(static_cast<std::size_t>(top_bin + 1));
  copy_to_host_sync(ctx, counts.data(), hist, hist_bytes);
  int64_t at_least = 0;
  for (int64_t k = top_bin; k > 0; --k) {
    at_least += counts[static_cast<std::size_t>(k)];
    if (at_least >= kBreakevenRows && 3 * at_least >= rows) return static_cast<I>(k);
  }
  return I{0};
}

}  // namespace

template <class T, class I>
I hyb_ell_width(Context& ctx, const DeviceCsr<T, I>& A) {
  return bell_garland_width(ctx, A);
}

template <class T, class I>
DeviceHyb<T, I> to_hyb(Context& ctx, const DeviceCsr<T, I>& A, I ell_width) {
  constexpr int64_t kIndexMax = std::numeric_limits<I>::max();
  const I width = ell_width < 0 ? bell_garland_width(ctx, A) : ell_width;
  DeviceHyb<T, I> H;
  DeviceEll<T, I>& E = H.ell;
  E.rows = A.rows;
  E.cols = A.cols;
  E.width = width;
  E.ld = static_cast<I>(detail::padded_rows("cuda::to_hyb", A.rows, kIndexMax));
  // No max_slots: the width is the rule's or the caller's choice, as in spx::to_hyb.
  const int64_t slots =
      detail::checked_device_slab("cuda::to_hyb", E.ld, width, A.nnz, std::numeric_limits<std::size_t>::max(),
                                  kIndexMax, sizeof(I) + sizeof(T), 0);
  E.col_idx = DeviceBuffer<I>(static_cast<std::size_t>(slots), "HYB ELL column indices");
  E.values = DeviceBuffer<T>(static_cast<std::size_t>(slots), "HYB ELL values");
  detail::fill_slab(ctx, A, E.ld, width, E.col_idx.data(), E.values.data(), static_cast<I*>(nullptr));

  DeviceCoo<T, I>& tail = H.coo;
  tail.rows = A.rows;
  tail.cols = A.cols;
  if (A.rows > 0 && A.nnz > 0) {
    const int64_t tiles = (int64_t{A.rows} + kScanBlock - 1) / kScanBlock;
    const std::size_t tile_bytes =
        detail::workspace_aligned(static_cast<std::size_t>(tiles) * sizeof(int64_t));
    auto* base = static_cast<std::byte*>(ctx.workspace(
        2 * tile_bytes + detail::workspace_aligned((static_cast<std::size_t>(A.rows) + 1) * sizeof(I))));
    auto* tile_sums = reinterpret_cast<int64_t*>(base);
    auto* tile_offsets = reinterpret_cast<int64_t*>(base + tile_bytes);
    auto* tail_ptr = reinterpret_cast<I*>(base + 2 * tile_bytes);
    const auto grid = static_cast<unsigned>(tiles);
    tail_tile_sums_kernel<I>
        <<<grid, kScanBlock, 0, ctx.stream()>>>(A.rows, A.row_ptr.data(), width, tile_sums);
    SPX_CHECK_LAUNCH("tail_tile_sums_kernel", ctx.stream());
    scan_tile_sums_kernel<I>
        <<<1, kScanBlock, 0, ctx.stream()>>>(tiles, tile_sums, tile_offsets, tail_ptr + A.rows);
    SPX_CHECK_LAUNCH("scan_tile_sums_kernel", ctx.stream());
    tail_offsets_kernel<I>
        <<<grid, kScanBlock, 0, ctx.stream()>>>(A.rows, A.row_ptr.data(), width, tile_offsets, tail_ptr);
    SPX_CHECK_LAUNCH("tail_offsets_kernel", ctx.stream());
    I tail_nnz = 0;
    copy_to_host_sync(ctx, &tail_nnz, tail_ptr + A.rows, sizeof tail_nnz);
    tail.nnz = tail_nnz;
    tail.row_idx = DeviceBuffer<I>(static_cast<std::size_t>(tail_nnz), "HYB COO row indices");
    tail.col_idx = DeviceBuffer<I>(static_cast<std::size_t>(tail_nnz), "HYB COO column indices");
    tail.values = DeviceBuffer<T>(static_cast<std::size_t>(tail_nnz), "HYB COO values");
    if (tail_nnz > 0) {
      hyb_tail_kernel<T, I><<<grid_for_resident(ctx, tail_nnz, kBlock, 8), kBlock, 0, ctx.stream()>>>(
          A.rows, width, tail_nnz, A.row_ptr.data(), A.col_idx.data(), A.values.data(), tail_ptr,
          tail.row_idx.data(), tail.col_idx.data(), tail.values.data());
      SPX_CHECK_LAUNCH("hyb_tail_kernel", ctx.stream());
    }
  }
  ctx.synchronize();
  return H;
}

template int32_t hyb_ell_width(Context&, const DeviceCsr<float, int32_t>&);
template int32_t hyb_ell_width(Context&, const DeviceCsr<double, int32_t>&);
template DeviceHyb<float, int32_t> to_hyb(Context&, const DeviceCsr<float, int32_t>&, int32_t);
template DeviceHyb<double, int32_t> to_hyb(Context&, const DeviceCsr<double, int32_t>&, int32_t);

}  // namespace spx::cuda
