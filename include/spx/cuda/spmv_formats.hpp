// SpMV on the non-CSR device formats: ELL, ELLPACK-R with T threads per row (ELLR-T), COO by
// segmented reduction, and HYB (ELL part + COO tail). Semantics as spmv_csr_scalar (spmv.hpp):
// y = alpha*A*x + beta*y; beta == 0 never reads y; alpha == 0 reads neither A nor x; x and y are
// device spans, checked (x.size() >= cols, y.size() >= rows, entries past them untouched, the used
// parts must not overlap); calls only enqueue work on ctx.stream(). Instantiated for float/double
// with int32_t indices. docs/spmv-formats.md has the design, the byte counts and the rules.
#pragma once

#include <cstdint>
#include <span>

#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/kernel_params.hpp"  // EllrTParams, CooParams
#include "spx/plan/rules.hpp"          // ellr_t_rule
#include "spx/stats.hpp"

namespace spx::cuda {

// --- ELL (Bell & Garland) -------------------------------------------------------------------
// One thread per row walks all `width` slots of its row (slot k of consecutive rows is contiguous,
// so every warp load is coalesced); padding slots (kPadding, 0) are recognised by their column and
// never multiply x. Reads the whole padded slab: cheap only when rows have similar lengths.
template <class T, class I>
void spmv_ell(Context& ctx, const DeviceEll<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1},
              T beta = T{0});

// --- ELLR-T (Vázquez et al.; FastSpMM paper §2) ---------------------------------------------
// T consecutive threads share a row: thread p of the group takes slots p, p+T, ... below
// row_len[r] (ELLPACK-R never reads padding), and the T partial sums meet through a warp shuffle
// reduction. block_size threads per block. EllrTParams is in kernel_params.hpp, its rule
// (ellr_t_rule) in spx/plan/rules.hpp.
template <class T, class I>
void spmv_ellr_t(Context& ctx, const DeviceEllR<T, I>& A, std::span<const T> x, std::span<T> y,
                 const EllrTParams& config, T alpha = T{1}, T beta = T{0});

// --- COO: segmented reduction over nonzeros sorted by row ------------------------------------
// Each warp takes a contiguous chunk of nnz_per_warp nonzeros, multiplies, and sums runs of equal
// rows with a segmented warp scan; rows that start and end inside the chunk are written directly.
// Rows that cross a chunk boundary are combined in one of two ways:
//   deterministic (default): each chunk stores the partial sums of its first and last row in a
//     small buffer (ctx.workspace()), and a second small kernel adds them in chunk order. The
//     result is the same bit for bit on every run; empty rows are scaled by the first kernel.
//   fast: y is scaled by beta first (memset for beta = 0), then boundary partials are added with
//     atomicAdd: no second kernel, but the summation order of boundary rows varies run to run.
// Deterministic is the default: it moves fewer bytes than pre-scaling y (two partials per chunk
// instead of one pass over y), costs the same number of launches, and gives solvers reproducible
// iterates (CooParams, kernel_params.hpp). The matrix must be sorted by row (spx::to_coo, to_hyb and the GPU
// conversions return it so); entries within a row may be in any order.
template <class T, class I>
void spmv_coo(Context& ctx, const DeviceCoo<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1},
              T beta = T{0}, const CooParams& config = {});

// --- HYB (Bell & Garland): ELL part, then the COO tail -----------------------------------------
// The ELL kernel writes every row with beta (y = alpha*A_ell*x + beta*y), then the COO kernel adds
// alpha*A_coo*x (beta = 1: rows without a tail are not touched again).
template <class T, class I>
void spmv_hyb(Context& ctx, const DeviceHyb<T, I>& A, std::span<const T> x, std::span<T> y, T alpha = T{1},
              T beta = T{0}, const CooParams& coo = {});

}  // namespace spx::cuda
