// One row of a SELL-C16 slice summed by its thread (sell_c16.cu): shared by SELL-C16 and SELL-C16
// with a value dictionary (sell_c16_dict.cu), which differ only in where a slot's value comes from.
// Slot 0 of a nonempty row is real; a later slot with offset 0 is padding and is predicated off
// (never gathers x). kSlotsPerStep slots' offsets and values are loaded before the first gather.
// Lanes threads may share a row (SellRuleTable, sell_c16_lanes): few long rows then fill the GPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "cuda/common/launch.hpp"
#include "spx/cuda/context.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"
#include "spx/sell_c16.hpp"

namespace spx::cuda::sell_c16 {

inline constexpr int kSlotsPerStep = 8;
inline constexpr int64_t kSlice = kSellC16SliceRows;

// Value sources: a slot's value by its position k (slots of the whole matrix).
template <class T>
struct DirectValues {
  const T* __restrict__ values;
  __device__ __forceinline__ T operator()(int64_t k) const { return __ldcs(values + k); }  // read once
};
template <class T>
struct CodedValues {
  const uint8_t* __restrict__ codes;
  const T* table;  // shared memory
  __device__ __forceinline__ T operator()(int64_t k) const { return table[__ldcs(codes + k)]; }
};
template <class T>
struct UniformValue {
  T value;
  __device__ __forceinline__ T operator()(int64_t) const { return value; }
};

// Thread `thread`'s row and lane when Lanes threads share a row: a warp covers 32 / Lanes rows of
// one slice (32 divides by Lanes), lane h of a row takes its slots 1 + h, 1 + h + Lanes, ... (and
// lane 0 slot 0), so the warp's loads of one step stay Lanes runs of 32 / Lanes contiguous slots.
template <int Lanes>
struct LaneRow {
  int64_t row;
  int lane;
};
template <int Lanes>
__device__ __forceinline__ LaneRow<Lanes> lane_row(int64_t thread) {
  static_assert(Lanes >= 1 && Lanes <= 32 && 32 % Lanes == 0);
  constexpr int kRowsPerWarp = 32 / Lanes;
  const int lane = static_cast<int>(thread % 32);
  return {thread / 32 * kRowsPerWarp + lane % kRowsPerWarp, lane / kRowsPerWarp};
}

// Lane `lane`'s share of row `row` (whose base column b >= 0) over its slice's `width` slots starting
// at slot position `first` + row % 32; with Lanes == 1, the whole row.
template <class T, int Lanes, class Values>
__device__ __forceinline__ T row_sum(const Values& value_at, const uint16_t* __restrict__ offsets,
                                     int64_t first, int64_t width, int64_t row, const T* __restrict__ xr,
                                     int lane = 0) {
  const int64_t r = first + row % kSlice;  // slot j of the row is at r + j * kSlice
  // Slot 0 is the base column: its offset (0) is not loaded.
  T sum = lane == 0 ? value_at(r) * xr[0] : T{0};
  // kSlotsPerStep slots a step, the last step predicated (as ELL's kernel, ell.cu: a short row keeps
  // all its loads in flight instead of walking its remainder one dependent load at a time).
  for (int64_t j = 1 + lane; j < width; j += int64_t{kSlotsPerStep} * Lanes) {
    uint16_t os[kSlotsPerStep];
    T vs[kSlotsPerStep];
#pragma unroll
    for (int u = 0; u < kSlotsPerStep; ++u) {
      const int64_t slot = j + int64_t{u} * Lanes;
      const bool in_row = slot < width;
      os[u] = in_row ? __ldcs(offsets + r + slot * kSlice) : uint16_t{0};
      vs[u] = in_row ? value_at(r + slot * kSlice) : T{0};
    }
#pragma unroll
    for (int u = 0; u < kSlotsPerStep; ++u)
      if (os[u] != 0) sum += vs[u] * xr[os[u]];
  }
  return sum;
}

// The row's sum from its Lanes partial sums (lanes 32 / Lanes apart in the warp); every lane of the
// warp must call it. Lane 0 of the row holds the total (every lane does: a butterfly).
template <int Lanes, class T>
__device__ __forceinline__ T add_lanes(T sum) {
#pragma unroll
  for (int apart = 32 / Lanes; apart < 32; apart *= 2) sum += __shfl_xor_sync(0xffffffffu, sum, apart);
  return sum;
}

// Where row `row`'s result goes: y_rows[row] where a row map is given (sell_c16_launch.hpp). Read
// before the row's slots, so its latency hides behind theirs instead of adding to the row's.
__device__ __forceinline__ int64_t out_row(const int32_t* __restrict__ y_rows, int64_t row) {
  return y_rows != nullptr ? int64_t{__ldcs(y_rows + row)} : row;
}

// beta == 0 must not read y: NaN or garbage there may not leak into the result.
template <class T>
__device__ __forceinline__ void store_row(T* __restrict__ y, int64_t out, T sum, T alpha, T beta) {
  y[out] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[out];
}

// One thread's part of a SELL-C16 product: its row's share, the lanes added, lane 0 storing.
// `value_at` gives a slot's value. Every thread of the grid's warps must call it (the shuffles).
template <class T, int Lanes, class Values>
__device__ __forceinline__ void product_row(const Values& value_at, int32_t rows,
                                            const int64_t* __restrict__ slice_ptr,
                                            const int32_t* __restrict__ base,
                                            const uint16_t* __restrict__ offsets, const T* __restrict__ x,
                                            T* __restrict__ y, const int32_t* __restrict__ y_rows, T alpha,
                                            T beta) {
  const LaneRow<Lanes> me = lane_row<Lanes>(int64_t{blockIdx.x} * blockDim.x + threadIdx.x);
  const bool in_matrix = me.row < rows;
  T sum = T{0};
  int64_t out = 0;
  if (in_matrix) {
    const int64_t slice = me.row / kSlice;
    const int64_t first = slice_ptr[slice];
    const int64_t width = (slice_ptr[slice + 1] - first) / kSlice;
    const int32_t b = base[me.row];
    if (me.lane == 0) out = out_row(y_rows, me.row);
    // A nonempty row: width >= 1 and slot 0 real.
    if (b >= 0) sum = row_sum<T, Lanes>(value_at, offsets, first, width, me.row, x + b, me.lane);
  }
  if constexpr (Lanes > 1) sum = add_lanes<Lanes>(sum);
  if (in_matrix && me.lane == 0) store_row(y, out, sum, alpha, beta);
}

// The launch of a SELL-C16 product: `lanes` threads a row (0: sell_c16_lanes' choice; the compiled
// counts are 1, 2, 4, 8), its grid of whole warps of 32 / lanes rows each, the block size for that
// many threads; f(std::integral_constant<int, Lanes>, grid, block) launches the kernel.
template <class F>
void launch_with_lanes(const Context& ctx, int64_t rows, int64_t slots, int lanes, F&& f) {
  const int L = lanes > 0 ? lanes : plan::sell_c16_lanes(rows, slots, ctx.props());
  const int64_t rows_per_warp = 32 / std::max(1, L);
  const int64_t threads = (rows + rows_per_warp - 1) / rows_per_warp * 32;
  const int block = plan::spread_block_size(threads, ctx.props());
  const unsigned grid = grid_for(threads, block);
  switch (L) {
    case 1:
      return f(std::integral_constant<int, 1>{}, grid, block);
    case 2:
      return f(std::integral_constant<int, 2>{}, grid, block);
    case 4:
      return f(std::integral_constant<int, 4>{}, grid, block);
    case 8:
      return f(std::integral_constant<int, 8>{}, grid, block);
    default:
      throw Error("SELL-C16: lanes per row must be 1, 2, 4 or 8, not " + std::to_string(L));
  }
}

// A row map is empty or names every row.
inline void check_row_map(const char* who, int64_t rows, std::span<const int32_t> y_rows) {
  if (!y_rows.empty() && static_cast<int64_t>(y_rows.size()) != rows)
    throw Error(std::string(who) + ": the row map has " + std::to_string(y_rows.size()) +
                " entries, the matrix " + std::to_string(rows) + " rows");
}

}  // namespace spx::cuda::sell_c16
