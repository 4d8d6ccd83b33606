// CSR → SELL-C16 (and SELL-C16 with a value dictionary) on the device: the same arrays as the host
// conversions (spx/sell_c16.hpp, spx/sell_c16_dict.hpp), without the matrix going back to the host.
//
// 1. One thread a row, a warp a slice of 32 rows: each row's base column (its first) and length,
//    the slice's width by a warp max, and the first row whose columns span more than 65535 (an
//    atomic min: the error names the row the host conversion names).
// 2. The slices' slot counts scanned into slice_ptr (CUB), the total read back to size the slab.
// 3. The slab filled as ELL's (to_ell.cu): thread r writes slot j of its row for the j of its
//    blockIdx.y stride, consecutive threads consecutive addresses; padding (0, 0).
// 4. Dictionary: the codes from the slots' values by binary search in the table's bit patterns
//    (sorted on the host with their table indices), so a code is the value's index in the table
//    whatever the order of the table.
// The row offsets' type O is a template parameter (32 or 64 bits: WideDeviceCsr); lengths, columns
// and slots are computed as before.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/device_memory.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/warp.cuh"
#include "cuda/common/workspace.hpp"
#include "cuda/convert/convert_checks.hpp"
#include "cuda/convert/rows_to_slots.cuh"
#include "cuda/convert/slab.hpp"
#include "spx/column_spans.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/sell_c16_dict.hpp"

namespace spx::cuda {
namespace {

constexpr int kBlock = 256;                // a multiple of 32: whole slices per block
constexpr int kSlice = kSellC16SliceRows;  // 32 rows
constexpr int kFillBlocksPerSm = 16;       // the codes pass: blocks per SM its grid aims at
constexpr unsigned long long kNoRow = ~0ull;

static_assert(kSlice == 32, "a slice is one warp");
static_assert(kBlock % kSlice == 0, "blocks hold whole slices");

// Pass 1. padded_rows is a multiple of 32, so a warp is either wholly inside or wholly past it (the
// shuffles need all 32 lanes). A row's length fits int32 (at most the columns).
template <class O>
__global__ void __launch_bounds__(kBlock)
    sell_c16_rows_kernel(int32_t rows, int64_t padded_rows, const O* __restrict__ row_ptr,
                         const int32_t* __restrict__ col_idx, int32_t* __restrict__ base,
                         int64_t* __restrict__ slice_slots, unsigned long long* __restrict__ first_wide) {
  const int64_t r = int64_t{blockIdx.x} * kBlock + threadIdx.x;
  if (r >= padded_rows) return;
  int32_t len = 0;
  if (r < rows) {
    const O begin = row_ptr[r], end = row_ptr[r + 1];
    len = static_cast<int32_t>(end - begin);
    base[r] = len > 0 ? col_idx[begin] : kSellC16EmptyRow;
    if (len > 0 && int64_t{col_idx[end - 1]} - col_idx[begin] > kC16MaxSpan)
      atomicMin(first_wide, static_cast<unsigned long long>(r));
  }
  int32_t width = len;
#pragma unroll
  for (int lane_mask = 16; lane_mask > 0; lane_mask >>= 1)
    width = max(width, __shfl_xor_sync(0xffffffffu, width, lane_mask));
  if (threadIdx.x % kSlice == 0) slice_slots[r / kSlice] = int64_t{kSlice} * width;
}

// Pass 3. A warp per slice (32 rows; padded_rows is a multiple of 32): rows_to_slots.cuh's tile,
// slot k of the slice's row i at first + 32 k + i, its column as the offset from the row's first.
template <class T, class O>
__global__ void __launch_bounds__(detail::kRowTileThreads<T, int32_t>)
    sell_c16_fill_kernel(int32_t rows, int64_t padded_rows, const O* __restrict__ row_ptr,
                         const int32_t* __restrict__ col_idx, const T* __restrict__ values,
                         const int64_t* __restrict__ slice_ptr, uint16_t* __restrict__ offsets,
                         T* __restrict__ slot_values) {
  constexpr int kWarps = detail::kRowTileWarps<T, int32_t>;
  __shared__ detail::RowTile<T, int32_t> tiles[kWarps];
  const int warp = static_cast<int>(threadIdx.x / 32);
  const int64_t slice = int64_t{blockIdx.x} * kWarps + warp;
  if (slice * kSlice >= padded_rows) return;  // a whole warp
  const int64_t r = slice * kSlice + lane_id();
  const int64_t first = slice_ptr[slice];
  const int64_t width = (slice_ptr[slice + 1] - first) / kSlice;
  O begin = 0;
  int32_t len = 0;
  if (r < rows) {
    begin = row_ptr[r];
    len = static_cast<int32_t>(row_ptr[r + 1] - begin);
  }
  const int32_t b = len > 0 ? col_idx[begin] : 0;
  detail::move_rows_to_slots(tiles[warp], begin, int64_t{len}, width, col_idx, values,
                             [&](int64_t k, int32_t col, T value, bool in_row) {
                               const int64_t slot = first + k * kSlice + lane_id();
                               offsets[slot] = in_row ? static_cast<uint16_t>(col - b) : uint16_t{0};
                               slot_values[slot] = value;
                             });
}

template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <class T>
__device__ __forceinline__ Bits<T> device_bits(T v) {
  if constexpr (sizeof(T) == 4)
    return __float_as_uint(v);
  else
    return static_cast<uint64_t>(__double_as_longlong(v));
}

// Pass 4. Padding slots (value 0, which need not be in the table) get code 0, as on the host; a real
// slot's value must be in the table (`missing` counts those that are not). codes == nullptr: a
// one-value table, checked but not coded.
template <class T, class O>
__global__ void __launch_bounds__(kBlock)
    sell_c16_codes_kernel(int32_t rows, int64_t padded_rows, const O* __restrict__ row_ptr,
                          const int64_t* __restrict__ slice_ptr, const T* __restrict__ slot_values,
                          const Bits<T>* __restrict__ sorted_bits, const uint8_t* __restrict__ sorted_index,
                          int table_size, uint8_t* __restrict__ codes, unsigned* __restrict__ missing) {
  const int64_t r = int64_t{blockIdx.x} * kBlock + threadIdx.x;
  if (r >= padded_rows) return;
  const int64_t slice = r / kSlice, first = slice_ptr[slice];
  const int64_t width = (slice_ptr[slice + 1] - first) / kSlice;
  const int64_t len = r < rows ? int64_t{row_ptr[r + 1] - row_ptr[r]} : 0;
  for (int64_t j = blockIdx.y; j < width; j += gridDim.y) {
    const int64_t slot = first + j * kSlice + r % kSlice;
    uint8_t code = 0;
    if (j < len) {
      const Bits<T> key = device_bits(slot_values[slot]);
      int lo = 0, hi = table_size - 1;  // the key is present: lo == hi ends on it
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (sorted_bits[mid] < key)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (sorted_bits[lo] != key) atomicAdd(missing, 1u);  // not in the table: the caller's error
      code = sorted_index[lo];
    }
    if (codes != nullptr) codes[slot] = code;
  }
}

dim3 fill_grid(Context& ctx, int64_t padded_rows, int64_t max_width) {
  const unsigned row_blocks = grid_for(padded_rows, kBlock);
  const int64_t target = int64_t{ctx.props().sm_count} * kFillBlocksPerSm;
  const int64_t slot_blocks = std::clamp<int64_t>(target / std::max<unsigned>(row_blocks, 1u), 1,
                                                  std::clamp<int64_t>(max_width, 1, 65535));
  return {row_blocks, static_cast<unsigned>(slot_blocks)};
}

template <class T, class O>
DeviceSellC16<T> sell_c16_of(Context& ctx, const DeviceCsr<T, int32_t, O>& A) {
  DeviceSellC16<T> S;
  S.rows = A.rows;
  S.cols = A.cols;
  S.nnz = A.nnz;
  const int64_t slices = (int64_t{A.rows} + kSlice - 1) / kSlice, padded = slices * kSlice;
  S.slice_ptr = DeviceBuffer<int64_t>(static_cast<std::size_t>(slices) + 1, "SELL-C16 slice pointers");
  S.base = DeviceBuffer<int32_t>(static_cast<std::size_t>(A.rows), "SELL-C16 row base columns");
  if (slices == 0) {
    const int64_t zero = 0;
    copy_to_device_sync(ctx, S.slice_ptr.data(), &zero, sizeof zero);
    return S;
  }
  // Workspace: the slices' slot counts (slices + 1, the last 0 so that the exclusive scan ends on
  // the total), the first wide row and a copy of the total (read back together), CUB's temporary
  // storage.
  std::size_t scan_bytes = 0;
  SPX_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<const int64_t*>(nullptr),
                                               static_cast<int64_t*>(nullptr), slices + 1, ctx.stream()));
  const std::size_t counts_bytes =
      detail::workspace_aligned((static_cast<std::size_t>(slices) + 1) * sizeof(int64_t));
  auto* work =
      static_cast<std::byte*>(ctx.workspace(counts_bytes + detail::kWorkspaceAlignment + scan_bytes));
  auto* slice_slots = reinterpret_cast<int64_t*>(work);
  auto* first_wide = reinterpret_cast<unsigned long long*>(work + counts_bytes);  // then the total
  void* scan_temp = work + counts_bytes + detail::kWorkspaceAlignment;
  SPX_CUDA_CHECK(cudaMemsetAsync(slice_slots + slices, 0, sizeof(int64_t), ctx.stream()));
  SPX_CUDA_CHECK(cudaMemsetAsync(first_wide, 0xff, sizeof(unsigned long long), ctx.stream()));
  sell_c16_rows_kernel<O><<<grid_for(padded, kBlock), kBlock, 0, ctx.stream()>>>(
      A.rows, padded, A.row_ptr.data(), A.col_idx.data(), S.base.data(), slice_slots, first_wide);
  SPX_CHECK_LAUNCH("sell_c16_rows_kernel", ctx.stream());
  SPX_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, slice_slots, S.slice_ptr.data(),
                                               slices + 1, ctx.stream()));
  SPX_CUDA_CHECK(cudaMemcpyAsync(first_wide + 1, S.slice_ptr.data() + slices, sizeof(int64_t),
                                 cudaMemcpyDeviceToDevice, ctx.stream()));
  unsigned long long back[2] = {kNoRow, 0};  // the first wide row, the slots
  copy_to_host_sync(ctx, back, first_wide, sizeof back);
  const unsigned long long wide_row = back[0];
  if (wide_row != kNoRow) {
    const auto r = static_cast<int64_t>(wide_row);
    O ends[2] = {0, 0};
    int32_t cols[2] = {0, 0};
    copy_to_host_sync(ctx, ends, A.row_ptr.data() + r, sizeof ends);
    copy_to_host_sync(ctx, &cols[0], A.col_idx.data() + ends[0], sizeof(int32_t));
    copy_to_host_sync(ctx, &cols[1], A.col_idx.data() + ends[1] - 1, sizeof(int32_t));
    detail::throw_row_span_too_wide("cuda::to_sell_c16", r, cols[0], cols[1]);
  }
  S.slots = static_cast<int64_t>(back[1]);
  detail::require_device_memory(static_cast<std::size_t>(S.slots) * (sizeof(uint16_t) + sizeof(T)),
                                "cuda::to_sell_c16 (the slots' offsets and values)");
  S.offsets = DeviceBuffer<uint16_t>(static_cast<std::size_t>(S.slots), "SELL-C16 column offsets");
  S.values = DeviceBuffer<T>(static_cast<std::size_t>(S.slots), "SELL-C16 values");
  sell_c16_fill_kernel<T, O>
      <<<detail::row_tile_blocks<T, int32_t>(slices), detail::kRowTileThreads<T, int32_t>, 0, ctx.stream()>>>(
          A.rows, padded, A.row_ptr.data(), A.col_idx.data(), A.values.data(), S.slice_ptr.data(),
          S.offsets.data(), S.values.data());
  SPX_CHECK_LAUNCH("sell_c16_fill_kernel", ctx.stream());
  ctx.synchronize();
  return S;
}

template <class T, class O>
DeviceSellC16Dict<T> sell_c16_dict_of(Context& ctx, const DeviceCsr<T, int32_t, O>& A,
                                      std::span<const T> table) {
  detail::check_dict_table("cuda::to_sell_c16_dict", table.size(), kSellC16DictMaxValues);
  DeviceSellC16<T> S = sell_c16_of(ctx, A);
  DeviceSellC16Dict<T> D;
  D.rows = S.rows;
  D.cols = S.cols;
  D.nnz = S.nnz;
  D.slots = S.slots;
  D.table = to_device(ctx, std::vector<T>(table.begin(), table.end()), "SELL-C16 dictionary");
  D.uniform_value = table.front();
  // Every real slot's value is looked up, also with a one-value table (no codes stored then): a
  // matrix of two values given one must be refused, not multiplied as if uniform.
  if (S.slots > 0) {
    // The table's bit patterns sorted, each with its index in the table.
    std::vector<std::pair<Bits<T>, uint8_t>> keyed(table.size());
    for (std::size_t i = 0; i < table.size(); ++i) {
      Bits<T> b;
      std::memcpy(&b, &table[i], sizeof b);
      keyed[i] = {b, static_cast<uint8_t>(i)};
    }
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t i = 1; i < keyed.size(); ++i)
      if (keyed[i].first == keyed[i - 1].first)
        detail::throw_dict_table_repeats("cuda::to_sell_c16_dict", keyed[i - 1].second, keyed[i].second);
    std::vector<Bits<T>> bits(keyed.size());
    std::vector<uint8_t> index(keyed.size());
    for (std::size_t i = 0; i < keyed.size(); ++i) std::tie(bits[i], index[i]) = keyed[i];
    if (table.size() > 1) {
      detail::require_device_memory(static_cast<std::size_t>(S.slots), "cuda::to_sell_c16_dict (the codes)");
      D.codes = DeviceBuffer<uint8_t>(static_cast<std::size_t>(S.slots), "SELL-C16 dictionary codes");
    }
    const int64_t slices = (int64_t{A.rows} + kSlice - 1) / kSlice;
    const int64_t max_width = detail::longest_row(ctx, A).length;  // uses the workspace: first
    // The miss counter, the sorted keys and their order in the workspace (at most 256 of each):
    // two allocations and two cudaFree, which wait for the device, cost more than the codes pass.
    const std::size_t bits_offset = detail::kWorkspaceAlignment;
    const std::size_t index_offset = bits_offset + detail::workspace_aligned(bits.size() * sizeof(Bits<T>));
    auto* work = static_cast<std::byte*>(ctx.workspace(index_offset + index.size()));
    auto* missing = reinterpret_cast<unsigned*>(work);
    auto* d_bits = reinterpret_cast<Bits<T>*>(work + bits_offset);
    auto* d_index = reinterpret_cast<uint8_t*>(work + index_offset);
    copy_to_device_async(ctx, d_bits, bits.data(), bits.size() * sizeof(Bits<T>));
    copy_to_device_async(ctx, d_index, index.data(), index.size());
    SPX_CUDA_CHECK(cudaMemsetAsync(missing, 0, sizeof(unsigned), ctx.stream()));
    sell_c16_codes_kernel<T, O><<<fill_grid(ctx, slices * kSlice, max_width), kBlock, 0, ctx.stream()>>>(
        A.rows, slices * kSlice, A.row_ptr.data(), S.slice_ptr.data(), S.values.data(), d_bits, d_index,
        static_cast<int>(table.size()), table.size() > 1 ? D.codes.data() : nullptr, missing);
    SPX_CHECK_LAUNCH("sell_c16_codes_kernel", ctx.stream());
    unsigned missing_count = 0;
    copy_to_host_sync(ctx, &missing_count, missing, sizeof missing_count);
    if (missing_count > 0)
      detail::throw_values_not_in_table("cuda::to_sell_c16_dict", missing_count, table.size());
  }
  D.slice_ptr = std::move(S.slice_ptr);
  D.base = std::move(S.base);
  D.offsets = std::move(S.offsets);
  return D;
}

}  // namespace

template <class T>
DeviceSellC16<T> to_sell_c16(Context& ctx, const DeviceCsr<T, int32_t>& A) {
  return sell_c16_of(ctx, A);
}

template <class T>
DeviceSellC16<T> to_sell_c16(Context& ctx, const WideDeviceCsr<T>& A) {
  return sell_c16_of(ctx, A);
}

template <class T>
DeviceSellC16Dict<T> to_sell_c16_dict(Context& ctx, const DeviceCsr<T, int32_t>& A,
                                      std::span<const T> table) {
  return sell_c16_dict_of(ctx, A, table);
}

template <class T>
DeviceSellC16Dict<T> to_sell_c16_dict(Context& ctx, const WideDeviceCsr<T>& A, std::span<const T> table) {
  return sell_c16_dict_of(ctx, A, table);
}

template DeviceSellC16<float> to_sell_c16(Context&, const DeviceCsr<float, int32_t>&);
template DeviceSellC16<double> to_sell_c16(Context&, const DeviceCsr<double, int32_t>&);
template DeviceSellC16<float> to_sell_c16(Context&, const WideDeviceCsr<float>&);
template DeviceSellC16<double> to_sell_c16(Context&, const WideDeviceCsr<double>&);
template DeviceSellC16Dict<float> to_sell_c16_dict(Context&, const DeviceCsr<float, int32_t>&,
                                                   std::span<const float>);
template DeviceSellC16Dict<double> to_sell_c16_dict(Context&, const DeviceCsr<double, int32_t>&,
                                                    std::span<const double>);
template DeviceSellC16Dict<float> to_sell_c16_dict(Context&, const WideDeviceCsr<float>&,
                                                   std::span<const float>);
template DeviceSellC16Dict<double> to_sell_c16_dict(Context&, const WideDeviceCsr<double>&,
                                                    std::span<const double>);

}  // namespace spx::cuda
