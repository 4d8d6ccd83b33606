// CSR SpMM for matrices whose ELLPACK-R slab would be mostly padding (power-law rows).
//
// A group of G lanes owns row i and a pass of L_c columns. Lane g = w·S + s owns the V = L_c / W
// consecutive columns j0 + w·V .. of the pass (W = L_c / V column lanes) and takes the nonzeros
// s, s+S, ... of the row (S = G / W). For a nonzero (col, a) the W lanes that share s read
// B[col, j0 .. j0+L_c) together, one contiguous row segment of row-major B, with V-wide vector loads
// (Yang, Buluç & Owens' row split); with S = 1 no reduction is needed. This is the access pattern
// the ELLR kernel gets from L_c-wide loads per thread, but over CSR, so a row costs its own length
// and not the longest row's of its warp.
//
// Rows longer than long_row_nnz are not walked by one group: the main kernel scales their C row by
// beta and lists their chunks of long_row_nnz nonzeros (workspace), and a second kernel hands the
// chunks to the groups of one resident wave, which add their partial sums with atomicAdd. That is the
// row-split mode; config.tile_items > 0 selects the balanced mode instead (csr_tiled.cu: one launch,
// tiles of rows and nonzeros, long rows summed in tile order).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/spmm/csr_device.cuh"
#include "cuda/spmm/csr_tiled.hpp"
#include "cuda/spmm/spmm_checks.hpp"
#include "spx/cuda/spmm.hpp"

namespace spx::cuda {
namespace {

using cuda::kSpmmMaxBlock;
using detail::accumulate;
using detail::CsrArg;
using detail::CsrPassShape;
using detail::dense_arg;
using detail::DenseArg;
using detail::Lanes;

// pass_cols: L_c; ncols: columns in each pass of this launch (L_c, or fewer in a tail pass).
template <int V, bool Vec, class T, class I, class O>
__global__ void __launch_bounds__(kSpmmMaxBlock)
    spmm_csr_kernel(CsrArg<T, I, O> A, DenseArg<const T> B, DenseArg<T> C, Lanes lanes, int64_t first_col,
                    int pass_cols, int ncols, T alpha, T beta, I long_row_nnz, I* long_rows,
                    int* long_count) {
  const int64_t thread = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int64_t row = thread >> lanes.g_log2;
  const int g = static_cast<int>(thread & ((1 << lanes.g_log2) - 1));
  const int s = g & ((1 << lanes.s_log2) - 1);
  const int w = g >> lanes.s_log2;
  const int64_t j0 = first_col + int64_t{blockIdx.y} * pass_cols + int64_t{w} * V;
  const int valid = ncols - w * V;  // columns of this lane that exist (<= 0: none)
  T acc[V];
  detail::zero(acc);
  bool long_row = false;
  if (row < A.rows) {
    const O begin = A.row_ptr[row];
    const O end = A.row_ptr[row + 1];
    long_row = end - begin > long_row_nnz;
    if (!long_row && valid > 0) accumulate<V, Vec>(A, B, j0, valid, begin + s, end, 1 << lanes.s_log2, acc);
  }
  // No early return above: every lane of the warp reaches the reduction.
  if (lanes.s_log2 > 0) detail::group_reduce_all(acc, 1 << lanes.s_log2);
  if (row >= A.rows || s != 0) return;
  T* c_row = C.data + row * C.row_stride + j0 * C.col_stride;
  if (long_row) {
    // The long-row kernel adds alpha·A·B; here only beta·C (zeros for beta = 0, never read).
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (j < valid) detail::write_scaled(c_row + j * C.col_stride, T{0}, T{0}, beta);
    if (long_rows != nullptr && blockIdx.y == 0 && g == 0) {
      // One list entry (row, chunk) per long_row_nnz nonzeros: the long-row kernel's work items.
      const O len = A.row_ptr[row + 1] - A.row_ptr[row];
      const int chunks = static_cast<int>((len + long_row_nnz - 1) / long_row_nnz);
      const int first = atomicAdd(long_count, chunks);
      for (int k = 0; k < chunks; ++k) {
        long_rows[2 * (first + k)] = static_cast<I>(row);
        long_rows[2 * (first + k) + 1] = static_cast<I>(k);
      }
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j)
    if (Vec || j < valid) detail::write_scaled(c_row + j * C.col_stride, acc[j], alpha, beta);
}

// Each group takes listed chunks (row, k): nonzeros [k·long_row_nnz, (k+1)·long_row_nnz) of the
// row, so a 10^6-nonzero row becomes ~1000 work items spread over the grid, and a few thousand
// rows just over the threshold cost one chunk each. The loop runs per warp (all of a warp's
// groups together), so every lane reaches the shuffles.
template <int V, bool Vec, class T, class I, class O>
__global__ void __launch_bounds__(kSpmmMaxBlock)
    spmm_csr_long_rows_kernel(CsrArg<T, I, O> A, DenseArg<const T> B, DenseArg<T> C, Lanes lanes,
                              int64_t first_col, int pass_cols, int ncols, T alpha, I long_row_nnz,
                              const I* long_rows, const int* long_count) {
  const int64_t thread = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int groups_per_warp = 32 >> lanes.g_log2;
  const int64_t warp = thread >> 5;
  const int64_t warps = (int64_t{gridDim.x} * blockDim.x) >> 5;
  const int g = static_cast<int>(thread & ((1 << lanes.g_log2) - 1));
  const int s = g & ((1 << lanes.s_log2) - 1);
  const int w = g >> lanes.s_log2;
  const int64_t j0 = first_col + int64_t{blockIdx.y} * pass_cols + int64_t{w} * V;
  const int valid = ncols - w * V;
  const int64_t n = *long_count;
  for (int64_t base = warp * groups_per_warp; base < n; base += warps * groups_per_warp) {
    const int64_t e = base + ((threadIdx.x & 31) >> lanes.g_log2);
    T acc[V];
    detail::zero(acc);
    I row = 0;
    if (e < n) {
      row = long_rows[2 * e];
      const O end = A.row_ptr[row + 1];
      const O begin = A.row_ptr[row] + static_cast<O>(long_rows[2 * e + 1]) * long_row_nnz;
      const O stop = end - begin > long_row_nnz ? begin + long_row_nnz : end;
      if (valid > 0) accumulate<V, Vec>(A, B, j0, valid, begin + s, stop, 1 << lanes.s_log2, acc);
    }
    if (lanes.s_log2 > 0) detail::group_reduce_all(acc, 1 << lanes.s_log2);
    if (e < n && s == 0) {
      T* c_row = C.data + int64_t{row} * C.row_stride + j0 * C.col_stride;
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (j < valid) atomicAdd(c_row + j * C.col_stride, alpha * acc[j]);
    }
  }
}

template <int V, class T, class I, class O>
void launch(Context& ctx, const DeviceCsr<T, I, O>& A, DenseArg<const T> B, DenseArg<T> C,
            const SpmmCsrParams& config, const CsrPassShape& shape, T alpha, T beta, I* long_rows,
            int* long_count) {
  const CsrArg<T, I, O> a = detail::csr_arg(A);
  const detail::CsrLaneLayout layout = detail::csr_lane_layout(config, shape, V);
  const Lanes lanes = layout.group;
  const int64_t threads = int64_t{A.rows} * config.threads_per_row;
  const I long_nnz = static_cast<I>(config.long_row_nnz);
  for (int64_t done = 0; done < shape.passes; done += 65535) {
    const unsigned passes = static_cast<unsigned>(std::min<int64_t>(65535, shape.passes - done));
    const int64_t first = shape.first_col + done * shape.pass_cols;
    const dim3 grid(grid_for(threads, config.block_size), passes);
    I* list = shape.record_long && done == 0 ? long_rows : nullptr;
    if (shape.vec)
      spmm_csr_kernel<V, true, T, I, O><<<grid, config.block_size, 0, ctx.stream()>>>(
          a, B, C, lanes, first, shape.pass_cols, shape.ncols, alpha, beta, long_nnz, list, long_count);
    else
      spmm_csr_kernel<V, false, T, I, O><<<grid, config.block_size, 0, ctx.stream()>>>(
          a, B, C, lanes, first, shape.pass_cols, shape.ncols, alpha, beta, long_nnz, list, long_count);
    SPX_CHECK_LAUNCH("spmm_csr_kernel", ctx.stream());
    if (long_rows == nullptr) continue;
    // One full wave of resident blocks takes the chunks (grid-stride). A chunk is worked by a whole
    // warp: the same column lanes, with 32 / column_lanes lanes splitting its nonzeros (instead of
    // the main kernel's G / column_lanes), so a chunk is a few dependent gathers per lane, not
    // long_row_nnz of them (H100, L = 8: memplus and the vsp_* matrices took 35-43 µs with the
    // group's split, cuSPARSE 12-25 µs).
    const Lanes warp_lanes = layout.warp;
    const int per_sm = std::max(1, ctx.props().max_threads_per_sm / config.block_size);
    const dim3 long_grid(static_cast<unsigned>(std::max(1, ctx.props().sm_count) * per_sm), passes);
    if (shape.vec)
      spmm_csr_long_rows_kernel<V, true, T, I, O><<<long_grid, config.block_size, 0, ctx.stream()>>>(
          a, B, C, warp_lanes, first, shape.pass_cols, shape.ncols, alpha, long_nnz, long_rows, long_count);
    else
      spmm_csr_long_rows_kernel<V, false, T, I, O><<<long_grid, config.block_size, 0, ctx.stream()>>>(
          a, B, C, warp_lanes, first, shape.pass_cols, shape.ncols, alpha, long_nnz, long_rows, long_count);
    SPX_CHECK_LAUNCH("spmm_csr_long_rows_kernel", ctx.stream());
  }
}

}  // namespace

template <class T, class I, class O>
void spmm_csr(Context& ctx, const DeviceCsr<T, I, O>& A, DenseView<const T> B, DenseView<T> C,
              const SpmmCsrParams& config, T alpha, T beta) {
  detail::check_spmm_operands("spmm_csr", A.rows, A.cols, detail::shape_of(B), detail::shape_of(C),
                              sizeof(T));
  validate(config);
  if (A.rows == 0 || C.cols == 0) return;
  if (alpha == T{0}) return detail::scale_view(ctx, C, beta);
  const int lc = config.cols_per_pass;
  const int64_t full = C.cols / lc;
  const int tail = static_cast<int>(C.cols % lc);
  // Vector loads of V columns need B's rows aligned to them.
  const std::size_t vec_bytes =
      std::min<std::size_t>(16, static_cast<std::size_t>(detail::csr_cols_per_lane(config, lc)) * sizeof(T));
  const bool vec = detail::rows_aligned(detail::shape_of(B), sizeof(T), vec_bytes);
  // The tail pass keeps the group and L_c (so V and the lanes stay the same), with guarded scalar
  // loads for the columns that exist; it lists the long rows only when it is the only launch.
  std::vector<CsrPassShape> shapes;
  if (full > 0) shapes.push_back({0, full, lc, lc, vec, true});
  if (tail > 0) shapes.push_back({full * lc, 1, lc, tail, false, full == 0});
  const auto b = dense_arg(B);
  const auto c = dense_arg(C);
  if (config.tile_items > 0) {
    for (const CsrPassShape& shape : shapes) detail::spmm_csr_tiled(ctx, A, b, c, config, shape, alpha, beta);
    return;
  }
  // The long-row list: at most nnz / long_row_nnz rows, in the context's workspace (it grows once).
  I* long_rows = nullptr;
  int* long_count = nullptr;
  if (A.nnz > config.long_row_nnz) {
    // Chunks: at most nnz / long_row_nnz full ones plus one partial per long row (fewer than that).
    const std::size_t max_chunks = 2 * static_cast<std::size_t>(A.nnz / config.long_row_nnz) + 2;
    auto* space = static_cast<int*>(ctx.workspace(16 + 2 * max_chunks * sizeof(I)));
    long_count = space;
    long_rows = reinterpret_cast<I*>(space + 4);  // 16-byte offset
    SPX_CUDA_CHECK(cudaMemsetAsync(long_count, 0, sizeof(int), ctx.stream()));
  }
  for (const CsrPassShape& shape : shapes) {
    detail::dispatch_value<1, 2, 4, 8>(detail::csr_cols_per_lane(config, shape), [&](auto V) {
      launch<V.value>(ctx, A, b, c, config, shape, alpha, beta, long_rows, long_count);
    });
  }
}

template void spmm_csr(Context&, const DeviceCsr<float, int32_t>&, DenseView<const float>, DenseView<float>,
                       const SpmmCsrParams&, float, float);
template void spmm_csr(Context&, const DeviceCsr<double, int32_t>&, DenseView<const double>,
                       DenseView<double>, const SpmmCsrParams&, double, double);
template void spmm_csr(Context&, const WideDeviceCsr<float>&, DenseView<const float>, DenseView<float>,
                       const SpmmCsrParams&, float, float);
template void spmm_csr(Context&, const WideDeviceCsr<double>&, DenseView<const double>, DenseView<double>,
                       const SpmmCsrParams&, double, double);

}  // namespace spx::cuda
