// One row of a SELL-C16 slice summed by its thread (sell_c16.cu): shared by SELL-C16 and SELL-C16
// with a value dictionary (sell_c16_dict.cu), which differ only in where a slot's value comes from.
// Slot 0 of a nonempty row is real; a later slot with offset 0 is padding and is predicated off
// (never gathers x). kSlotsPerStep slots' offsets and values are loaded before the first gather.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "spx/error.hpp"
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

// The sum of row `row` (whose base column is b >= 0) over its slice's `width` slots starting at
// slot position `first` + row % 32.
template <class T, class Values>
__device__ __forceinline__ T row_sum(const Values& value_at, const uint16_t* __restrict__ offsets,
                                     int64_t first, int64_t width, int64_t row, const T* __restrict__ xr) {
  int64_t k = first + row % kSlice;
  T sum = value_at(k) * xr[0];  // slot 0 is the base column: its offset (0) is not loaded
  k += kSlice;
  // kSlotsPerStep slots a step, the last step predicated (as ELL's kernel, ell.cu: a short row keeps
  // all its loads in flight instead of walking its remainder one dependent load at a time).
  for (int64_t j = 1; j < width; j += kSlotsPerStep, k += kSlotsPerStep * kSlice) {
    uint16_t os[kSlotsPerStep];
    T vs[kSlotsPerStep];
#pragma unroll
    for (int u = 0; u < kSlotsPerStep; ++u) {
      const bool in_row = j + u < width;
      os[u] = in_row ? __ldcs(offsets + k + u * kSlice) : uint16_t{0};
      vs[u] = in_row ? value_at(k + u * kSlice) : T{0};
    }
#pragma unroll
    for (int u = 0; u < kSlotsPerStep; ++u)
      if (os[u] != 0) sum += vs[u] * xr[os[u]];
  }
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

// A row map is empty or names every row.
inline void check_row_map(const char* who, int64_t rows, std::span<const int32_t> y_rows) {
  if (!y_rows.empty() && static_cast<int64_t>(y_rows.size()) != rows)
    throw Error(std::string(who) + ": the row map has " + std::to_string(y_rows.size()) +
                " entries, the matrix " + std::to_string(rows) + " rows");
}

}  // namespace spx::cuda::sell_c16
