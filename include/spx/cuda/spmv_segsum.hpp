// Speculative segmented-sum CSR SpMV (Liu & Vinter 2015, "Speculative segmented sum for sparse
// matrix-vector multiplication on heterogeneous processors", §3 and Algorithm 1), for a discrete
// Hopper GPU: the nonzeros are split evenly into tiles, so every warp does the same work however
// irregular the rows are (power-law, long rows, empty rows).
//
//   auto plan = spx::cuda::plan_segsum_spmv(ctx, dA);          // once per matrix (GPU kernels)
//   spx::cuda::spmv_segsum(ctx, plan, dA, x, y, alpha, beta);  // every call: 1-3 launches
//
// Semantics as spmv_csr_scalar: y = alpha*A*x + beta*y; beta == 0 never reads y; alpha == 0 reads
// neither A nor x. Deterministic: equal inputs give equal bits. docs/spmv-segsum.md has the design.
#pragma once

#include <cstdint>
#include <string>

#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/kernel_params.hpp"  // SegsumSpmvParams
#include "spx/plan/rules.hpp"          // the segsum rule (T, S, row completion)

namespace spx::cuda {

// Made once per matrix on the device (no read-back of the matrix): the tile boundary rows found by
// binary search in row_ptr (one thread per boundary) and the dirty-tile flags (tiles with empty
// rows, the paper's speculator), plus the synchronizer buffers of the product. A plan is state of
// one stream: do not run two products with the same plan concurrently.
struct SegsumSpmvPlan {
  SegsumSpmvParams params;  // as run: T and S resolved
  int64_t rows = 0, cols = 0, nnz = 0;
  const void* row_ptr = nullptr;  // the matrix it was made for
  int64_t tiles = 0;
  int64_t warps = 0;
  int64_t dirty_tiles = 0;           // read back once at plan time (for reports)
  int64_t max_open_tail = 0;         // the longest open tail of a tile (read back once)
  bool completes_rows = false;       // one launch, no synchronizer; tiles staged in shared memory
  bool clean_kernel = false;         // no dirty tile: the kernel without the checking stage
  bool vector_loads = false;         // full tiles loaded 16 bytes per lane (clean synchronizer kernel)
  int64_t completion_limit = 0;      // tails longer than this are summed by arrival
  DeviceBuffer<uint8_t> long_head;   // warps: begins inside a long tail (only when there is one);
                                     // the arrival counters are the context's (zeroed_counters)
  DeviceBuffer<int32_t> tile_row;    // tiles + 1
  DeviceBuffer<uint8_t> tile_dirty;  // tiles
  DeviceBuffer<int32_t> sync_row;    // warps: the row open at the warp's start, or -1
  DeviceBuffer<double> sync_value;   // warps: its partial sum (used as T); 2 × warps for long tails
  // Wide tiles (row ranges of more than 2 × 32 × T + 2 rows: long runs of empty rows), whose
  // empty rows a separate grid-wide pass scales: tile ids, exclusive prefix of range lengths.
  int64_t wide_tiles = 0;
  int64_t wide_rows = 0;  // rows in their ranges together
  DeviceBuffer<int32_t> wide_tile;
  DeviceBuffer<int64_t> wide_prefix;
};

// Throws spx::Error for invalid params or a matrix past the int32 limits.
template <class T>
SegsumSpmvPlan plan_segsum_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA,
                                const SegsumSpmvParams& params = {});

// y = alpha*A*x + beta*y: the tile kernel, then the synchronizer fix-up (only when more than one
// warp and the plan does not complete rows). No allocation, no host synchronisation. float and
// double, int32 indices.
template <class T>
void spmv_segsum(Context& ctx, SegsumSpmvPlan& plan, const DeviceCsr<T, int32_t>& dA, std::span<const T> x,
                 std::span<T> y, T alpha = T{1}, T beta = T{0});

}  // namespace spx::cuda
