// SpMV on SELL-32 with 16-bit column offsets (spx/sell_c16.hpp) on the device.
//
//   auto A16 = spx::cuda::upload_sell_c16(ctx, spx::to_sell_c16(A));
//   spx::cuda::spmv_sell_c16(ctx, A16, x, y, alpha, beta);
//
// Semantics as every SpMV (spmv_formats.hpp): y = alpha*A*x + beta*y; beta == 0 never reads y;
// alpha == 0 reads neither A nor x; x and y are device spans, checked like every SpMV.
//
// One launch (docs/formats.md, "SELL-C16"): ELL's kernel shape per slice, one thread per row, so a
// warp is one slice of 32 rows and reads slot j of its rows as one coalesced 64-byte offset load and
// one 128/256-byte value load; a thread sums its row's slots in slot order (deterministic, no
// atomics) and skips padding by its offset (0 past slot 0), so padding never gathers x.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/sell_c16.hpp"
#include "spx/sell_c16_dict.hpp"

namespace spx::cuda {

template <class T>
struct DeviceSellC16 {
  using value_type = T;
  int32_t rows = 0;
  int32_t cols = 0;
  int64_t nnz = 0;
  int64_t slots = 0;
  DeviceBuffer<int64_t> slice_ptr;  // slices + 1 slot positions
  DeviceBuffer<int32_t> base;       // rows; kSellC16EmptyRow marks an empty row
  DeviceBuffer<uint16_t> offsets;   // slots
  DeviceBuffer<T> values;           // slots

  std::size_t bytes() const { return slice_ptr.bytes() + base.bytes() + offsets.bytes() + values.bytes(); }
};

// Validates A, checks the device has room for it (an spx::Error naming the size and the memory
// free), copies it and waits. Instantiated for float and double.
template <class T>
DeviceSellC16<T> upload_sell_c16(Context& ctx, const SellC16<T>& A);

// y = alpha*A*x + beta*y: one launch, no allocation, no host synchronisation.
template <class T>
void spmv_sell_c16(Context& ctx, const DeviceSellC16<T>& A, std::span<const T> x, std::span<T> y,
                   T alpha = T{1}, T beta = T{0});

// SELL-C16 with a value dictionary (spx/sell_c16_dict.hpp): the same slices, bases and offsets,
// the values as a table (read into shared memory by each block) and a uint8 code a slot, or one
// value for the whole matrix (no codes). The same kernel body as SELL-C16's, so the two agree
// bitwise.
template <class T>
struct DeviceSellC16Dict {
  using value_type = T;
  int32_t rows = 0;
  int32_t cols = 0;
  int64_t nnz = 0;
  int64_t slots = 0;
  DeviceBuffer<int64_t> slice_ptr;
  DeviceBuffer<int32_t> base;
  DeviceBuffer<uint16_t> offsets;
  DeviceBuffer<T> table;        // 1..256 values
  DeviceBuffer<uint8_t> codes;  // slots; empty when the table holds one value
  T uniform_value = T{0};       // the table's value when it holds one

  std::size_t bytes() const {
    return slice_ptr.bytes() + base.bytes() + offsets.bytes() + table.bytes() + codes.bytes();
  }
};

template <class T>
DeviceSellC16Dict<T> upload_sell_c16_dict(Context& ctx, const SellC16Dict<T>& A);

template <class T>
void spmv_sell_c16_dict(Context& ctx, const DeviceSellC16Dict<T>& A, std::span<const T> x, std::span<T> y,
                        T alpha = T{1}, T beta = T{0});

}  // namespace spx::cuda
