// One row of a SELL-C16 slice summed by its thread (sell_c16.cu): shared by SELL-C16 and SELL-C16
// with a value dictionary (sell_c16_dict.cu), which differ only in where a slot's value comes from.
// Slot 0 of a nonempty row is real; a later slot with offset 0 is padding and is predicated off
// (never gathers x). kUnroll slots' offsets and values are loaded before the first gather.
#pragma once

#include <cstdint>

#include "spx/sell_c16.hpp"

namespace spx::cuda::sell_c16 {

inline constexpr int kUnroll = 4;
inline constexpr int64_t kSlice = kSellC16SliceRows;

// Value sources: a slot's value by its position k (slots of the whole matrix).
template <class T>
struct DirectValues {
  const T* __restrict__ values;
  __device__ __forceinline__ T operator()(int64_t k) const { return values[k]; }
};
template <class T>
struct CodedValues {
  const uint8_t* __restrict__ codes;
  const T* table;  // shared memory
  __device__ __forceinline__ T operator()(int64_t k) const { return table[codes[k]]; }
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
  int64_t j = 1;
  k += kSlice;
  for (; j + kUnroll <= width; j += kUnroll, k += kUnroll * kSlice) {
    uint16_t os[kUnroll];
    T vs[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      os[u] = offsets[k + u * kSlice];
      vs[u] = value_at(k + u * kSlice);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (os[u] != 0) sum += vs[u] * xr[os[u]];
  }
  for (; j < width; ++j, k += kSlice) {
    const uint16_t o = offsets[k];
    if (o != 0) sum += value_at(k) * xr[o];
  }
  return sum;
}

}  // namespace spx::cuda::sell_c16
