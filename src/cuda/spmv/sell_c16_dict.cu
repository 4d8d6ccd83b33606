// SELL-C16 with a value dictionary (spx/cuda/spmv_sell_c16.hpp): SELL-C16's kernel body
// (sell_c16_row.cuh) reading each slot's value through its uint8 code from the table, which every
// block first copies into shared memory (<= 256 values: 2 KB in f64; a warp's 32 codes of one slot
// mostly name the same stencil coefficient, a broadcast), or one value for the whole matrix.
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/spmv/sell_c16_launch.hpp"
#include "cuda/spmv/sell_c16_row.cuh"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_sell_c16.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"

namespace spx::cuda {
namespace {

using sell_c16::kSlice;

template <class T, bool Uniform, int Lanes>
__global__ void __launch_bounds__(1024)
    spmv_sell_c16_dict_kernel(int32_t rows, const int64_t* __restrict__ slice_ptr,
                              const int32_t* __restrict__ base, const uint16_t* __restrict__ offsets,
                              const uint8_t* __restrict__ codes, const T* __restrict__ table, int table_size,
                              T uniform_value, const T* __restrict__ x, T* __restrict__ y,
                              const int32_t* __restrict__ y_rows, T alpha, T beta) {
  __shared__ T shared_table[kSellC16DictMaxValues];
  if constexpr (Uniform) {
    sell_c16::product_row<T, Lanes>(sell_c16::UniformValue<T>{uniform_value}, rows, slice_ptr, base, offsets,
                                    x, y, y_rows, alpha, beta);
  } else {
    for (int i = static_cast<int>(threadIdx.x); i < table_size; i += static_cast<int>(blockDim.x))
      shared_table[i] = table[i];
    __syncthreads();
    sell_c16::product_row<T, Lanes>(sell_c16::CodedValues<T>{codes, shared_table}, rows, slice_ptr, base,
                                    offsets, x, y, y_rows, alpha, beta);
  }
}

}  // namespace

template <class T>
DeviceSellC16Dict<T> upload_sell_c16_dict(Context& ctx, const SellC16Dict<T>& A) {
  A.validate();
  DeviceSellC16Dict<T> d;
  d.rows = A.sell.rows;
  d.cols = A.sell.cols;
  d.nnz = A.sell.nnz();
  d.slots = A.sell.slots();
  d.slice_ptr = to_device(ctx, A.sell.slice_ptr, "SELL-C16-dict slice pointers");
  d.base = to_device(ctx, A.sell.base, "SELL-C16-dict row base columns");
  d.offsets = to_device(ctx, A.sell.offsets, "SELL-C16-dict column offsets");
  d.table = to_device(ctx, A.table, "SELL-C16-dict value table");
  if (!A.uniform()) d.codes = to_device(ctx, A.codes, "SELL-C16-dict value codes");
  d.uniform_value = A.table.front();
  return d;
}

template <class T>
void spmv_sell_c16_dict(Context& ctx, const DeviceSellC16Dict<T>& A, std::span<const T> x, std::span<T> y,
                        T alpha, T beta) {
  detail::spmv_sell_c16_dict_rows(ctx, A, x, y, {}, alpha, beta);
}

template <class T>
void detail::spmv_sell_c16_dict_rows(Context& ctx, const DeviceSellC16Dict<T>& A, std::span<const T> x,
                                     std::span<T> y, std::span<const int32_t> y_rows, T alpha, T beta,
                                     int lanes) {
  check_spmv_operands("spmv_sell_c16_dict", A.rows, A.cols, x, y);
  sell_c16::check_row_map("spmv_sell_c16_dict", A.rows, y_rows);
  const auto n = static_cast<int64_t>(A.table.size());
  if (n < 1 || n > kSellC16DictMaxValues || (n > 1) != (A.codes.size() > 0))
    throw Error(
        "spmv_sell_c16_dict: the value table must hold 1..256 values, with codes exactly when it "
        "holds more than one");
  if (A.rows == 0) return;
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), static_cast<std::size_t>(A.rows), beta);
  const int32_t* rows_map = y_rows.empty() ? nullptr : y_rows.data();
  sell_c16::launch_with_lanes(ctx, A.rows, A.slots, lanes, [&](auto lanes_c, unsigned grid, int block) {
    constexpr int kLanes = decltype(lanes_c)::value;
    if (n == 1)
      spmv_sell_c16_dict_kernel<T, true, kLanes><<<grid, block, 0, ctx.stream()>>>(
          A.rows, A.slice_ptr.data(), A.base.data(), A.offsets.data(), nullptr, nullptr, 1, A.uniform_value,
          x.data(), y.data(), rows_map, alpha, beta);
    else
      spmv_sell_c16_dict_kernel<T, false, kLanes><<<grid, block, 0, ctx.stream()>>>(
          A.rows, A.slice_ptr.data(), A.base.data(), A.offsets.data(), A.codes.data(), A.table.data(),
          static_cast<int>(n), T{0}, x.data(), y.data(), rows_map, alpha, beta);
  });
  SPX_CHECK_LAUNCH("spmv_sell_c16_dict_kernel", ctx.stream());
}

#define SPX_INSTANTIATE_SELL_C16_DICT(T)                                                                    \
  template DeviceSellC16Dict<T> upload_sell_c16_dict(Context&, const SellC16Dict<T>&);                      \
  template void spmv_sell_c16_dict(Context&, const DeviceSellC16Dict<T>&, std::span<const T>, std::span<T>, \
                                   T, T);                                                                   \
  template void detail::spmv_sell_c16_dict_rows(Context&, const DeviceSellC16Dict<T>&, std::span<const T>,  \
                                                std::span<T>, std::span<const int32_t>, T, T, int);
SPX_INSTANTIATE_SELL_C16_DICT(float)
SPX_INSTANTIATE_SELL_C16_DICT(double)
#undef SPX_INSTANTIATE_SELL_C16_DICT

}  // namespace spx::cuda
