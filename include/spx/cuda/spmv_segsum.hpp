// Speculative segmented-sum CSR SpMV (Liu & Vinter 2015, "Speculative segmented sum for sparse
// matrix-vector multiplication on heterogeneous processors", §3 and Algorithm 1), for a discrete
// Hopper GPU: the nonzeros are split evenly into tiles, so every warp does the same work however
// irregular the rows are (power-law, long rows, empty rows).
//
//   auto plan = spx::cuda::plan_segsum_spmv(ctx, dA);          // once per matrix (GPU kernels)
//   spx::cuda::spmv_segsum(ctx, plan, dA, x, y, alpha, beta);  // every call: two launches
//
// Semantics as spmv_csr_scalar: y = alpha*A*x + beta*y; beta == 0 never reads y; alpha == 0 reads
// neither A nor x. Deterministic: equal inputs give equal bits. docs/spmv-segsum.md has the design.
#pragma once

#include <cstdint>
#include <string>

#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"

namespace spx::cuda {

// Tuning knobs (data, not code): a tile is 32 lanes × nnz_per_lane nonzeros; a warp takes
// tiles_per_warp consecutive tiles. Defaults for the H100 (docs/spmv-segsum.md): a 512-nonzero tile
// moves 6 KB (f64) of values and indices, and 4 tiles a warp keep a 32M-nonzero matrix at about
// two waves of 132 SMs × 64 warps.
struct SegsumSpmvParams {
  int nnz_per_lane = 16;  // T: a multiple of 4 in 4..32
  // S: 1..4096, or 0 = from the tile count (plan_segsum_spmv: up to 4 while the grid keeps at least
  // two waves of 32 warps per SM; 1 below that). Measured on the H100 (bench/results/h100/segsum):
  // a fixed S = 4 made matrices of 0.1-0.8M nonzeros 2.5x slower than S = 1 (too few warps).
  int tiles_per_warp = 0;
  int block_size = 256;  // a multiple of 32 in 32..512
};

// Empty when p is valid, else one line saying what is wrong.
std::string invalid_reason(const SegsumSpmvParams& p);
// "nnz_per_lane=16 tiles_per_warp=4 block_size=256"
std::string to_string(const SegsumSpmvParams& p);

// Made once per matrix on the device (no read-back of the matrix): the tile boundary rows found by
// binary search in row_ptr (one thread per boundary) and the dirty-tile flags (tiles with empty
// rows, the paper's speculator), plus the synchronizer buffers of the product. A plan is state of
// one stream: do not run two products with the same plan concurrently.
struct SegsumSpmvPlan {
  SegsumSpmvParams params;
  int64_t rows = 0, cols = 0, nnz = 0;
  const void* row_ptr = nullptr;  // the matrix it was made for
  int64_t tiles = 0;
  int64_t warps = 0;
  int64_t dirty_tiles = 0;           // read back once at plan time (for reports)
  DeviceBuffer<int32_t> tile_row;    // tiles + 1
  DeviceBuffer<uint8_t> tile_dirty;  // tiles
  DeviceBuffer<int32_t> sync_row;    // warps: the row open at the warp's start, or -1
  DeviceBuffer<double> sync_value;   // warps: its partial sum (used as T)
};

// Throws spx::Error for invalid params or a matrix past the int32 limits.
template <class T>
SegsumSpmvPlan plan_segsum_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA,
                                const SegsumSpmvParams& params = {});

// y = alpha*A*x + beta*y: the tile kernel, then the synchronizer fix-up (only when more than one
// warp). No allocation, no host synchronisation. float and double, int32 indices.
template <class T>
void spmv_segsum(Context& ctx, SegsumSpmvPlan& plan, const DeviceCsr<T, int32_t>& dA, std::span<const T> x,
                 std::span<T> y, T alpha = T{1}, T beta = T{0});

}  // namespace spx::cuda
