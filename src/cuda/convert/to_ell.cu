// CSR → ELL and CSR → ELLPACK-R on the device. One reduction finds the longest row (the width; the
// host needs it to size the slab and to refuse huge padding before allocating), then one pass
// fills the slab: a warp per 32 rows, through a shared-memory tile (rows_to_slots.cuh), so that
// both the reads of the CSR rows and the writes of the slab's columns are coalesced.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "cuda/common/block.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/warp.cuh"
#include "cuda/convert/convert_checks.hpp"
#include "cuda/convert/rows_to_slots.cuh"
#include "cuda/convert/slab.hpp"
#include "spx/cuda/convert.hpp"

namespace spx::cuda {
namespace {

constexpr int kBlock = 256;

// Packs (length, row) so that a plain max picks the longest row and, among equal lengths, the
// smallest row index: length in the high word, ~row in the low word (lengths and rows < 2^31).
__device__ __forceinline__ unsigned long long longest_key(int64_t length, int64_t row) {
  return (static_cast<unsigned long long>(length) << 32) |
         (0xffffffffull - static_cast<unsigned long long>(row));
}

template <class I, class O>
__global__ void __launch_bounds__(kBlock)
    longest_row_kernel(I rows, const O* __restrict__ row_ptr, unsigned long long* __restrict__ best) {
  __shared__ BlockScratch<unsigned long long, kBlock> scratch;
  unsigned long long key = 0;
  for (int64_t r = int64_t{blockIdx.x} * kBlock + threadIdx.x; r < rows; r += int64_t{gridDim.x} * kBlock)
    key = max(key, longest_key(row_ptr[r + 1] - row_ptr[r], r));
  key = block_reduce<kBlock>(key, scratch, Max{});
  if (threadIdx.x == 0) atomicMax(best, key);
}

// A warp per 32 rows of the slab (ld is a multiple of 32): rows_to_slots.cuh's tile, slot k of row
// r at [k * ld + r].
template <class T, class I, class O>
__global__ void __launch_bounds__(detail::kRowTileThreads<T, I>)
    fill_slab_kernel(I rows, I ld, I width, const O* __restrict__ row_ptr, const I* __restrict__ col_idx,
                     const T* __restrict__ values, I* __restrict__ slab_col, T* __restrict__ slab_val,
                     I* __restrict__ row_len) {
  constexpr int kWarps = detail::kRowTileWarps<T, I>;
  __shared__ detail::RowTile<T, I> tiles[kWarps];
  const int warp = static_cast<int>(threadIdx.x / 32);
  const int64_t r0 = (int64_t{blockIdx.x} * kWarps + warp) * 32;
  if (r0 >= ld) return;  // a whole warp: ld is a multiple of 32
  const int64_t r = r0 + lane_id();
  O begin = 0;
  I len = 0;  // a row's length is below the column count (I)
  if (r < rows) {
    begin = row_ptr[r];
    len = static_cast<I>(row_ptr[r + 1] - begin);
  }
  if (row_len != nullptr) row_len[r] = len;
  detail::move_rows_to_slots(tiles[warp], begin, int64_t{len}, int64_t{width}, col_idx, values,
                             [&](int64_t k, I col, T value, bool in_row) {
                               const int64_t slot = k * ld + r;
                               slab_col[slot] = in_row ? col : static_cast<I>(kPadding);
                               slab_val[slot] = value;
                             });
}

// The most slots a slab may have. Every ELL kernel addresses slots in 64-bit arithmetic; a slab
// built from 32-bit offsets keeps the index type's cap all the same (the host conversions' rule,
// and the 32-bit path unchanged), one built from 64-bit offsets may pass 2^31 - 1 slots.
template <class I, class O>
constexpr int64_t slot_max() {
  return sizeof(O) > sizeof(I) ? std::numeric_limits<int64_t>::max() : int64_t{std::numeric_limits<I>::max()};
}

}  // namespace

namespace detail {

template <class T, class I, class O>
LongestRow longest_row(Context& ctx, const DeviceCsr<T, I, O>& A) {
  static_assert(sizeof(I) == 4, "the packed (length, row) key needs 32-bit indices");
  if (A.rows == 0) return {};
  auto* best = static_cast<unsigned long long*>(ctx.workspace(sizeof(unsigned long long)));
  SPX_CUDA_CHECK(cudaMemsetAsync(best, 0, sizeof(unsigned long long), ctx.stream()));
  longest_row_kernel<I, O><<<grid_for_resident(ctx, A.rows, kBlock, 8), kBlock, 0, ctx.stream()>>>(
      A.rows, A.row_ptr.data(), best);
  SPX_CHECK_LAUNCH("longest_row_kernel", ctx.stream());
  unsigned long long key = 0;
  copy_to_host_sync(ctx, &key, best, sizeof key);
  return {static_cast<int64_t>(key >> 32), static_cast<int64_t>(0xffffffffull - (key & 0xffffffffull))};
}

template <class T, class I, class O>
void fill_slab(Context& ctx, const DeviceCsr<T, I, O>& A, I ld, I width, I* col_idx, T* values, I* row_len) {
  if (ld == 0 || (width == 0 && row_len == nullptr)) return;  // nothing to write
  fill_slab_kernel<T, I, O>
      <<<detail::row_tile_blocks<T, I>(int64_t{ld} / 32), detail::kRowTileThreads<T, I>, 0, ctx.stream()>>>(
          A.rows, ld, width, A.row_ptr.data(), A.col_idx.data(), A.values.data(), col_idx, values, row_len);
  SPX_CHECK_LAUNCH("fill_slab_kernel", ctx.stream());
}

template LongestRow longest_row(Context&, const DeviceCsr<float, int32_t>&);
template LongestRow longest_row(Context&, const DeviceCsr<double, int32_t>&);
template void fill_slab(Context&, const DeviceCsr<float, int32_t>&, int32_t, int32_t, int32_t*, float*,
                        int32_t*);
template void fill_slab(Context&, const DeviceCsr<double, int32_t>&, int32_t, int32_t, int32_t*, double*,
                        int32_t*);
template LongestRow longest_row(Context&, const WideDeviceCsr<float>&);
template LongestRow longest_row(Context&, const WideDeviceCsr<double>&);
template void fill_slab(Context&, const WideDeviceCsr<float>&, int32_t, int32_t, int32_t*, float*, int32_t*);
template void fill_slab(Context&, const WideDeviceCsr<double>&, int32_t, int32_t, int32_t*, double*,
                        int32_t*);

}  // namespace detail

template <class T, class I, class O>
DeviceEll<T, I> to_ell(Context& ctx, const DeviceCsr<T, I, O>& A, I width, std::size_t max_slots) {
  constexpr int64_t kIndexMax = std::numeric_limits<I>::max();
  const detail::LongestRow longest = detail::longest_row(ctx, A);
  const int64_t ell_width = width < 0 ? longest.length : int64_t{width};
  if (longest.length > ell_width)
    detail::throw_row_longer_than_width("cuda::to_ell", longest.row, longest.length, ell_width);
  DeviceEll<T, I> E;
  E.rows = A.rows;
  E.cols = A.cols;
  E.width = static_cast<I>(ell_width);
  E.ld = static_cast<I>(detail::padded_rows("cuda::to_ell", A.rows, kIndexMax));
  const int64_t slots = detail::checked_device_slab("cuda::to_ell", E.ld, ell_width, A.nnz, max_slots,
                                                    slot_max<I, O>(), sizeof(I) + sizeof(T), 0);
  E.col_idx = DeviceBuffer<I>(static_cast<std::size_t>(slots), "ELL column indices");
  E.values = DeviceBuffer<T>(static_cast<std::size_t>(slots), "ELL values");
  detail::fill_slab(ctx, A, E.ld, E.width, E.col_idx.data(), E.values.data(), static_cast<I*>(nullptr));
  ctx.synchronize();
  return E;
}

template <class T, class I, class O>
DeviceEllR<T, I> to_ellr(Context& ctx, const DeviceCsr<T, I, O>& A, std::size_t max_slots) {
  constexpr int64_t kIndexMax = std::numeric_limits<I>::max();
  const detail::LongestRow longest = detail::longest_row(ctx, A);
  DeviceEllR<T, I> E;
  E.rows = A.rows;
  E.cols = A.cols;
  E.width = static_cast<I>(longest.length);
  E.rows_padded = static_cast<I>(detail::padded_rows("cuda::to_ellr", A.rows, kIndexMax));
  const int64_t slots = detail::checked_device_slab("cuda::to_ellr", E.rows_padded, longest.length, A.nnz,
                                                    max_slots, slot_max<I, O>(), sizeof(I) + sizeof(T),
                                                    static_cast<std::size_t>(E.rows_padded) * sizeof(I));
  E.col_idx = DeviceBuffer<I>(static_cast<std::size_t>(slots), "ELL-R column indices");
  E.values = DeviceBuffer<T>(static_cast<std::size_t>(slots), "ELL-R values");
  E.row_len = DeviceBuffer<I>(static_cast<std::size_t>(E.rows_padded), "ELL-R row lengths");
  detail::fill_slab(ctx, A, E.rows_padded, E.width, E.col_idx.data(), E.values.data(), E.row_len.data());
  ctx.synchronize();
  return E;
}

template DeviceEll<float, int32_t> to_ell(Context&, const DeviceCsr<float, int32_t>&, int32_t, std::size_t);
template DeviceEll<double, int32_t> to_ell(Context&, const DeviceCsr<double, int32_t>&, int32_t, std::size_t);
template DeviceEllR<float, int32_t> to_ellr(Context&, const DeviceCsr<float, int32_t>&, std::size_t);
template DeviceEllR<double, int32_t> to_ellr(Context&, const DeviceCsr<double, int32_t>&, std::size_t);
template DeviceEll<float, int32_t> to_ell(Context&, const WideDeviceCsr<float>&, int32_t, std::size_t);
template DeviceEll<double, int32_t> to_ell(Context&, const WideDeviceCsr<double>&, int32_t, std::size_t);
template DeviceEllR<float, int32_t> to_ellr(Context&, const WideDeviceCsr<float>&, std::size_t);
template DeviceEllR<double, int32_t> to_ellr(Context&, const WideDeviceCsr<double>&, std::size_t);

}  // namespace spx::cuda
