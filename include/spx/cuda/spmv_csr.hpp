// The parametrised CSR SpMV of Reguly & Giles (2012), re-derived for Hopper, with its fixed rule,
// CSR-vector as a named entry point, and a separate path for a few extremely long rows.
//
//   auto plan = spx::cuda::plan_csr_spmv(ctx, dA);         // once per matrix: fixed rule + long rows
//   spx::cuda::spmv_csr(ctx, plan, dA, x, y, alpha, beta);  // every call: one launch, nothing else
//
// Semantics as spmv_csr_scalar (spx/cuda/spmv.hpp): y = alpha*A*x + beta*y; beta == 0 never reads
// y; alpha == 0 reads neither A nor x; x and y are device spans, checked like every SpMV.
//
// The kernel (docs/spmv-csr.md): groups of `coop` consecutive threads share a row (their partial
// sums meet through warp shuffles); a block of `block_size` threads handles `repeat` batches of
// block_size/coop consecutive rows, so the grid is 1 + (rows*coop - 1)/(repeat*block_size) blocks
// (the paper's eq. 5). Rows longer than the plan's threshold are skipped by those groups and
// computed instead by extra blocks of the same launch, one warp per 512-nonzero chunk of a long
// row, whose partial sums are combined by the last chunk to finish in a fixed order
// (deterministic). A matrix without long rows pays one integer compare per row for this.
//
// The params (kernel_params.hpp), the fixed rule and the long-row threshold (spx/plan/rules.hpp) and the
// row analysis below are plain host code (every build, no GPU needed); the plan and the products
// need a CUDA build.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/kernel_params.hpp"  // CsrSpmvParams, kCsrVectorParams
#include "spx/plan/rules.hpp"          // csr_fixed_rule, csr_long_row_threshold
#include "spx/stats.hpp"

namespace spx::cuda {

// Row-length statistics from a row pointer alone (rows, cols, nnz, min/max/avg/stddev, empty
// rows; the column-dependent fields stay 0): what the plan knows about a device matrix.
MatrixStats csr_row_length_stats(int64_t rows, int64_t cols, std::span<const int32_t> row_ptr);
MatrixStats csr_row_length_stats(int64_t rows, int64_t cols, std::span<const int64_t> row_ptr);

// --- The long-row split (host code, every build) ---------------------------------------------

// Nonzeros per warp of the long-row path (16 per lane: four unrolled 4-load batches).
inline constexpr int64_t kCsrLongRowChunk = 512;

// Which rows take the long-row path and how their chunks map to warps: long row k is `rows[k]`,
// its chunks are warps chunk_begin[k] .. chunk_begin[k+1]-1, and chunk_owner[w] = k.
struct CsrLongRowSplit {
  int64_t threshold = 0;
  std::vector<int32_t> rows;         // ascending
  std::vector<int32_t> chunk_begin;  // rows.size() + 1 entries
  std::vector<int32_t> chunk_owner;  // one per chunk
  int64_t nnz = 0;                   // nonzeros in the long rows
  int64_t chunks() const { return static_cast<int64_t>(chunk_owner.size()); }
};

// Rows of row_ptr longer than `threshold` (>= 0), in order, cut into kCsrLongRowChunk chunks.
CsrLongRowSplit split_long_rows(std::span<const int32_t> row_ptr, int64_t threshold);
CsrLongRowSplit split_long_rows(std::span<const int64_t> row_ptr, int64_t threshold);

// --- Plans and products (CUDA builds) --------------------------------------------------------

// What spmv_csr needs besides the matrix, computed once per matrix (never per call): the params,
// the long-row split and its device copy, and the device scratch of the long-row path (partial
// sums, arrival counters; the counters reset themselves, so a call does no memset). A plan is
// state of one stream: do not run two products with the same plan concurrently.
//
// `params` may be changed after planning (the tuner does): the split stays valid, since the main
// kernel skips exactly the rows longer than long_row_threshold and the split holds exactly those.
struct CsrSpmvPlan {
  CsrSpmvParams params;
  int64_t long_row_threshold = 0;
  std::vector<int32_t> long_rows;  // host copy, ascending
  int64_t long_row_nnz = 0;
  int64_t long_row_chunks = 0;  // warps of the long-row path
  MatrixStats stats;            // row-length statistics of the planned matrix (csr_row_length_stats)

  // The matrix it was made for: spmv_csr refuses another shape or row_ptr buffer. Re-plan after
  // changing the structure in place (values may change freely).
  int64_t rows = 0, cols = 0, nnz = 0;
  const void* row_ptr = nullptr;

  // Device side of the long-row path (empty when there are no long rows).
  DeviceBuffer<int32_t> d_long_rows;
  DeviceBuffer<int32_t> d_chunk_begin;
  DeviceBuffer<int32_t> d_chunk_owner;
  DeviceBuffer<double> d_partials;    // one per chunk (used as T: a double slot fits either)
  DeviceBuffer<uint32_t> d_arrivals;  // one per long row, zero between calls

  bool has_long_rows() const { return !long_rows.empty(); }
};

// Plans y = A*x for dA: params from csr_fixed_rule unless given, long rows from
// csr_long_row_threshold unless `long_row_threshold` is given (>= 0; INT64_MAX disables the path,
// 0 sends every nonempty row to it). Reads dA's row pointer back once (synchronises).
template <class T>
CsrSpmvPlan plan_csr_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA,
                          std::optional<CsrSpmvParams> params = std::nullopt,
                          std::optional<int64_t> long_row_threshold = std::nullopt);
// The same from the host copy of dA (no read-back; A must be the matrix uploaded as dA).
template <class T>
CsrSpmvPlan plan_csr_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA, const Csr<T, int32_t>& A,
                          std::optional<CsrSpmvParams> params = std::nullopt,
                          std::optional<int64_t> long_row_threshold = std::nullopt);
// The same with A's row-length statistics already known (spx::stats of A, or
// csr_row_length_stats): no pass over the rows at all unless a row is longer than the long-row
// threshold (the planner's front door, whose statistics were taken at construction).
template <class T>
CsrSpmvPlan plan_csr_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA, const Csr<T, int32_t>& A,
                          const MatrixStats& row_stats, std::optional<CsrSpmvParams> params = std::nullopt,
                          std::optional<int64_t> long_row_threshold = std::nullopt);

// The same on 64-bit row offsets (WideDeviceCsr: more than 2^31 - 1 nonzeros, or asked for), from
// the host copy of its row pointer (what the front door keeps of such a matrix) and its row-length
// statistics: the same kernel with 64-bit offset arithmetic, the same rule and long-row split.
template <class T>
CsrSpmvPlan plan_csr_spmv(Context& ctx, const WideDeviceCsr<T>& dA, std::span<const int64_t> host_row_ptr,
                          const MatrixStats& row_stats, std::optional<CsrSpmvParams> params = std::nullopt,
                          std::optional<int64_t> long_row_threshold = std::nullopt);

// y = alpha*A*x + beta*y with the plan made for dA: one kernel launch (main rows and long rows
// together, beta applied in the kernel), no allocation, no host synchronisation. Instantiated for
// float and double with int32 indices.
template <class T>
void spmv_csr(Context& ctx, CsrSpmvPlan& plan, const DeviceCsr<T, int32_t>& dA, std::span<const T> x,
              std::span<T> y, T alpha = T{1}, T beta = T{0});
template <class T>
void spmv_csr(Context& ctx, CsrSpmvPlan& plan, const WideDeviceCsr<T>& dA, std::span<const T> x,
              std::span<T> y, T alpha = T{1}, T beta = T{0});

// The parametrised kernel with these params and no long-row path (every row in the main kernel):
// what `spx tune` and the tests sweep. One launch.
template <class T>
void spmv_csr_params(Context& ctx, const CsrSpmvParams& params, const DeviceCsr<T, int32_t>& dA,
                     std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});

// CSR-vector (Bell & Garland 2008): one warp per row — the parametrised kernel with
// kCsrVectorParams (coop = 32, repeat = 1, blocks of 256). Fast for rows of tens of nonzeros and more; wastes
// lanes on short rows. No long-row path (the textbook algorithm).
template <class T>
void spmv_csr_vector(Context& ctx, const DeviceCsr<T, int32_t>& dA, std::span<const T> x, std::span<T> y,
                     T alpha = T{1}, T beta = T{0});

}  // namespace spx::cuda
