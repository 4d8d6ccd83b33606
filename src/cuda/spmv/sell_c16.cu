// SELL-C16 SpMV (spx/cuda/spmv_sell_c16.hpp): ELL's kernel (ell.cu) per slice of 32 rows over
// 16-bit column offsets. One thread per row, or 2-8 lanes per row where rows are few
// (sell_c16_lanes); the block is a multiple of 32 (spread_block_size), so each warp is one slice (or
// part of one) and its loads of a step are contiguous runs (64 bytes of offsets, 128 / 256 of values
// per slot of 32 rows). Slot 0 of a nonempty row is real; a later slot with offset 0 is padding and is
// predicated off (never gathers x). Padding is still loaded, as in ELL: the warp streams its slice
// up to the slice's width either way, so an early exit per thread would save no sectors.
#include <cstdint>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/spmv/sell_c16_launch.hpp"
#include "cuda/spmv/sell_c16_row.cuh"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_sell_c16.hpp"
#include "spx/plan/rules.hpp"

namespace spx::cuda {
namespace {

using sell_c16::kSlice;

template <class T, int Lanes>
__global__ void __launch_bounds__(1024)
    spmv_sell_c16_kernel(int32_t rows, const int64_t* __restrict__ slice_ptr,
                         const int32_t* __restrict__ base, const uint16_t* __restrict__ offsets,
                         const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y,
                         const int32_t* __restrict__ y_rows, T alpha, T beta) {
  sell_c16::product_row<T, Lanes>(sell_c16::DirectValues<T>{values}, rows, slice_ptr, base, offsets, x, y,
                                  y_rows, alpha, beta);
}

}  // namespace

template <class T>
DeviceSellC16<T> upload_sell_c16(Context& ctx, const SellC16<T>& A) {
  A.validate();
  DeviceSellC16<T> d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.nnz = A.nnz();
  d.slots = A.slots();
  d.slice_ptr = to_device(ctx, A.slice_ptr, "SELL-C16 slice pointers");
  d.base = to_device(ctx, A.base, "SELL-C16 row base columns");
  d.offsets = to_device(ctx, A.offsets, "SELL-C16 column offsets");
  d.values = to_device(ctx, A.values, "SELL-C16 values");
  return d;
}

template <class T>
void spmv_sell_c16(Context& ctx, const DeviceSellC16<T>& A, std::span<const T> x, std::span<T> y, T alpha,
                   T beta) {
  detail::spmv_sell_c16_rows(ctx, A, x, y, {}, alpha, beta);
}

template <class T>
void detail::spmv_sell_c16_rows(Context& ctx, const DeviceSellC16<T>& A, std::span<const T> x, std::span<T> y,
                                std::span<const int32_t> y_rows, T alpha, T beta, int lanes) {
  check_spmv_operands("spmv_sell_c16", A.rows, A.cols, x, y);
  sell_c16::check_row_map("spmv_sell_c16", A.rows, y_rows);
  if (A.rows == 0) return;
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), static_cast<std::size_t>(A.rows), beta);
  sell_c16::launch_with_lanes(ctx, A.rows, A.slots, lanes, [&](auto lanes_c, unsigned grid, int block) {
    spmv_sell_c16_kernel<T, decltype(lanes_c)::value><<<grid, block, 0, ctx.stream()>>>(
        A.rows, A.slice_ptr.data(), A.base.data(), A.offsets.data(), A.values.data(), x.data(), y.data(),
        y_rows.empty() ? nullptr : y_rows.data(), alpha, beta);
  });
  SPX_CHECK_LAUNCH("spmv_sell_c16_kernel", ctx.stream());
}

#define SPX_INSTANTIATE_SELL_C16(T)                                                                       \
  template DeviceSellC16<T> upload_sell_c16(Context&, const SellC16<T>&);                                 \
  template void spmv_sell_c16(Context&, const DeviceSellC16<T>&, std::span<const T>, std::span<T>, T, T); \
  template void detail::spmv_sell_c16_rows(Context&, const DeviceSellC16<T>&, std::span<const T>,         \
                                           std::span<T>, std::span<const int32_t>, T, T, int);
SPX_INSTANTIATE_SELL_C16(float)
SPX_INSTANTIATE_SELL_C16(double)
#undef SPX_INSTANTIATE_SELL_C16

}  // namespace spx::cuda
