// Sparse × dense products on the GPU (FastSpMM, Ortega et al.; docs/spmm.md): C = alpha*A*B + beta*C
// with A sparse (ELLPACK-R or CSR, on the device) and B, C dense. beta == 0 never reads C; alpha == 0
// reads neither A nor B. B and C may be row-major (the fast layout: a row of B is contiguous, so a
// thread group reads it with wide loads) or column-major; B and C need not share a layout.
// Calls only enqueue work on ctx.stream(). Instantiated for float/double with int32_t indices.
//
// The dense operands are passed as non-owning views, so the same kernels serve device-resident
// matrices (view(DeviceDense)) and the column chunks of the host-resident path (spmm_host.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/kernel_params.hpp"  // SpmmEllrParams, SpmmCsrParams, SpmmFormat
#include "spx/cuda/spmv_formats.hpp"
#include "spx/matrix.hpp"
#include "spx/plan/rules.hpp"  // spmm_format_rule, spmm_ellr_rule, spmm_csr_rule
#include "spx/stats.hpp"

namespace spx::cuda {

// DenseView and view() live in formats.hpp.
// Columns [first, first + count) of D as a view of its own (a column chunk).
template <class T>
DenseView<T> column_slice(DenseView<T> D, int64_t first, int64_t count);

// --- SSFastSpMM: ELLR-T SpMM (the paper's Algorithm 1) -----------------------------------------
// T consecutive threads share a row of A (slots p, p+T, ... below row_len); each thread keeps the
// partial sums of `cols_per_pass` (L_c) columns of C in registers and the group combines them with
// warp shuffles; the grid makes ceil(L / L_c) passes over A (blockIdx.y), so A is read
// ceil(L / L_c) times and B once.
// A pass with fewer than L_c columns left (L = 100, L_c = 32: the last 4) runs the same kernel with
// guarded scalar accesses; column-major or misaligned B uses that path for every pass.
// SpmmEllrParams is in kernel_params.hpp, its rule (spmm_ellr_rule) in spx/plan/rules.hpp.
template <class T, class I>
void spmm_ellr_t(Context& ctx, const DeviceEllR<T, I>& A, DenseView<const T> B, DenseView<T> C,
                 const SpmmEllrParams& config, T alpha = T{1}, T beta = T{0});

// --- CSR SpMM: for matrices whose ELLPACK-R padding is wasteful ---------------------------------
// A group of threads_per_row (G) lanes owns a row and a pass of cols_per_pass (L_c) columns of C:
// each lane owns V = cols_per_lane consecutive columns (by default max(1, L_c / G); vector loads of a
// row segment of B), the W = L_c / V column lanes cover the pass, and the G / W lanes that share a
// column split the row's nonzeros (summed with a shuffle reduction). So with the default V and
// L_c >= G a whole group reads one contiguous row segment of B per nonzero, with no reduction at
// all. Two ways to spread the rows:
//  * row-split (tile_items == 0): a group per row; rows longer than long_row_nnz are left to a second
//    kernel that spreads each of them over the whole grid (atomicAdd into C, so their summation
//    order varies from run to run; every other row is deterministic);
//  * balanced (tile_items > 0): a warp per tile of rows and nonzeros, one launch, deterministic.
// SpmmCsrParams is in kernel_params.hpp, its rule (spmm_csr_rule) in spx/plan/rules.hpp.
// Also on 64-bit row offsets (WideDeviceCsr, O = int64_t), in both modes.
template <class T, class I, class O>
void spmm_csr(Context& ctx, const DeviceCsr<T, I, O>& A, DenseView<const T> B, DenseView<T> C,
              const SpmmCsrParams& config, T alpha = T{1}, T beta = T{0});

// --- SetSpMVs: L ELLR-T SpMVs, one per column (the paper's baseline) ----------------------------
// B and C must be column-major (each column is a contiguous vector).
// The overload without a config uses the ELLR-T SpMV rule with the row statistics the EllR knows
// (width as the longest row); pass an EllrTParams (ellr_t_rule(stats, ...)) for the tuned one.
template <class T, class I>
void spmm_set_spmvs(Context& ctx, const DeviceEllR<T, I>& A, DenseView<const T> B, DenseView<T> C,
                    T alpha = T{1}, T beta = T{0});
template <class T, class I>
void spmm_set_spmvs(Context& ctx, const DeviceEllR<T, I>& A, DenseView<const T> B, DenseView<T> C,
                    const EllrTParams& config, T alpha = T{1}, T beta = T{0});

}  // namespace spx::cuda
