// COO SpMV by segmented reduction (Bell & Garland's COO kernel, re-done with warp shuffles).
//
// The nonzeros, sorted by row, are cut into chunks of nnz_per_warp; one warp takes one chunk, 32
// nonzeros per step (coalesced loads of row, column and value), and sums the runs of equal rows with
// a segmented inclusive scan (warp_inclusive_scan over (value, head flag) pairs, segmented.cuh). A
// run still open at lane 31 is carried into the next step. Rows that begin and end inside the chunk
// are written straight to y; only a chunk's first and last row can be shared with other chunks
// (coo_chunks.hpp has that bookkeeping, tested on the CPU). Those boundary partials go either
//   - to a small buffer, combined in chunk order by coo_boundary_kernel (deterministic mode), or
//   - straight into y with atomicAdd after y was scaled by beta (fast mode).
// In deterministic mode the first kernel also scales the empty rows by beta, so every row of y is
// written exactly once and no pre-pass over y is needed.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/run_sum.cuh"
#include "cuda/common/scale.hpp"
#include "cuda/common/segmented.cuh"
#include "cuda/common/warp.cuh"
#include "cuda/spmv/coo_chunks.hpp"
#include "cuda/spmv/format_launch.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_formats.hpp"

namespace spx::cuda {
namespace {

using detail::ChunkEnds;
using detail::SegmentKind;

constexpr int kFixupBlock = 256;
// A boundary row's partials are summed by its own thread while they are few (the common case: two,
// the tail of one chunk and the head of the next); a row that spans more chunks than this is
// summed by the whole warp (a row of 10^6 nonzeros spans ~4000 chunks of 256).
constexpr int kShortRun = 8;
constexpr int kRunBatch = 16;  // loads per lane in flight when a warp sums a long run

// Where the boundary partials go (deterministic mode); all null in fast mode or with one chunk.
template <class T, class I>
struct BoundarySlots {
  I* head_row = nullptr;
  T* head_value = nullptr;
  I* tail_row = nullptr;
  T* tail_value = nullptr;
};

// y[row] = alpha*sum + beta*y[row], never reading y when beta == 0.
template <class T>
__device__ __forceinline__ void write_row(T* y, int64_t row, T sum, T alpha, T beta) {
  y[row] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[row];
}

// Scales rows [lo, hi) by beta with the whole warp (all lanes call with the same lo, hi).
template <class T>
__device__ __forceinline__ void scale_rows(T* y, int64_t lo, int64_t hi, T beta) {
  for (int64_t r = lo + lane_id(); r < hi; r += 32) y[r] = beta == T{0} ? T{0} : beta * y[r];
}

// direct_beta: what rows written by this kernel combine with (beta; or, in fast mode where y was
// already scaled, 0 when beta == 0 and 1 otherwise). scale_gaps: scale empty rows by gap_beta
// (deterministic mode with beta != 1).
// At most 512 threads per block: with that bound ptxas keeps the f64 kernel at 40 registers without
// spilling (48 resident warps per SM); a 1024 bound squeezes it into 32 registers with spills.
constexpr int kMaxCooBlock = 512;

template <class T, class I>
__global__ void __launch_bounds__(kMaxCooBlock)
    spmv_coo_chunk_kernel(I rows, I nnz, int nnz_per_warp, const I* __restrict__ row_idx,
                          const I* __restrict__ col_idx, const T* __restrict__ values,
                          const T* __restrict__ x, T* __restrict__ y, T alpha, T direct_beta,
                          bool atomic_boundaries, bool scale_gaps, T gap_beta, BoundarySlots<T, I> slots) {
  const int64_t warp = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const int lane = lane_id();
  const detail::ChunkRange chunk = detail::coo_chunk(warp, nnz, nnz_per_warp);
  if (chunk.begin >= chunk.end) return;  // uniform across the warp
  const ChunkEnds<I> ends = detail::chunk_ends(row_idx, nnz, chunk);
  if (slots.head_row != nullptr && lane == 0) {
    slots.head_row[warp] = detail::head_slot_row(ends);
    slots.tail_row[warp] = detail::tail_slot_row(ends);
  }

  // Positions as unsigned I: nnz <= max(I), so step + lane + 1 cannot wrap; 32-bit counters for int32
  // indices save registers over 64-bit ones.
  using U = std::make_unsigned_t<I>;
  const auto end = static_cast<U>(chunk.end);
  I previous_row = chunk.begin > 0 ? row_idx[chunk.begin - 1] : I{-1};  // row before this step
  bool has_carry = false;  // the run open at lane 31 of the previous step, if any
  I carry_row = -1;
  T carry = 0;
  for (auto step = static_cast<U>(chunk.begin); step < end; step += 32) {
    const U i = step + static_cast<U>(lane);
    const bool valid = i < end;
    const I row = valid ? row_idx[i] : I{-1};  // -1: a segment of its own, never written
    T product = 0;
    if (valid) product = values[i] * x[col_idx[i]];

    I row_before = __shfl_up_sync(kFullWarpMask, row, 1);
    if (lane == 0) row_before = previous_row;
    I row_after = __shfl_down_sync(kFullWarpMask, row, 1);
    if (lane == 31) row_after = i + 1 < end ? row_idx[i + 1] : I{-1};

    T sum = warp_segmented_inclusive_sum(product, lane == 0 || row != row_before);
    if (has_carry && row == carry_row) sum = carry + sum;  // only the step's first run can match

    const bool run_ends = valid && row_after != row;
    const bool last_lane_valid = step + 31 < end;
    const bool last_lane_ends = (__ballot_sync(kFullWarpMask, run_ends) >> 31) != 0;
    has_carry = last_lane_valid && !last_lane_ends;
    carry_row = __shfl_sync(kFullWarpMask, row, 31);
    carry = __shfl_sync(kFullWarpMask, sum, 31);

    if (run_ends) {
      switch (detail::classify_segment(row, ends)) {
        case SegmentKind::Complete:
          write_row(y, row, sum, alpha, direct_beta);
          break;
        case SegmentKind::HeadPartial:
          if (atomic_boundaries)
            atomicAdd(y + row, alpha * sum);
          else
            slots.head_value[warp] = sum;
          break;
        case SegmentKind::TailPartial:
          if (atomic_boundaries)
            atomicAdd(y + row, alpha * sum);
          else
            slots.tail_value[warp] = sum;
          break;
      }
    }

    if (scale_gaps) {
      // Empty rows between the previous nonzero's row and this one's belong to this nonzero's lane;
      // the warp scales each such run together (usually there is none: the ballot is 0).
      unsigned gaps = __ballot_sync(kFullWarpMask, valid && detail::has_gap_before(row_before, row));
      while (gaps != 0) {
        const int owner = __ffs(static_cast<int>(gaps)) - 1;
        const I lo = __shfl_sync(kFullWarpMask, row_before, owner) + 1;
        const I hi = __shfl_sync(kFullWarpMask, row, owner);
        scale_rows(y, lo, hi, gap_beta);
        gaps &= gaps - 1;
      }
    }
    previous_row = __shfl_sync(kFullWarpMask, row, 31);  // only used if another step follows
  }
  if (scale_gaps && chunk.end == nnz) scale_rows(y, int64_t{ends.last_row} + 1, int64_t{rows}, gap_beta);
}

// One thread per chunk c: if c's tail slot holds a row, that row's partials are the tail slot of c
// and the head slots of the chunks after c that still hold it (coo_chunks.hpp, run_end). They are
// added in slot order: by the thread itself for the first kShortRun heads, by the whole warp for the
// rest (run_sum.cuh: lane-strided partial sums with batched loads, then warp_reduce_sum's fixed
// tree). Nothing depends on timing, so the sums are the same bits on every run.
template <class T, class I>
__global__ void __launch_bounds__(kFixupBlock)
    spmv_coo_boundary_kernel(int64_t chunks, BoundarySlots<T, I> slots, T* __restrict__ y, T alpha, T beta) {
  const int64_t c = int64_t{blockIdx.x} * kFixupBlock + threadIdx.x;
  I row = -1;
  T sum = 0;
  if (c < chunks) {
    row = slots.tail_row[c];
    if (row >= 0) sum = slots.tail_value[c];
  }
  sum = sum_run_after<kShortRun, kRunBatch>(slots.head_row, slots.head_value, chunks, row >= 0, row, c + 1,
                                            sum);
  if (row >= 0) write_row(y, row, sum, alpha, beta);
}

// Carves the four boundary arrays out of one workspace allocation, each 256-byte aligned.
template <class T, class I>
BoundarySlots<T, I> boundary_slots(Context& ctx, int64_t chunks) {
  const auto aligned = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
  const std::size_t rows_bytes = aligned(static_cast<std::size_t>(chunks) * sizeof(I));
  const std::size_t values_bytes = aligned(static_cast<std::size_t>(chunks) * sizeof(T));
  auto* base = static_cast<std::byte*>(ctx.workspace(2 * (rows_bytes + values_bytes)));
  BoundarySlots<T, I> s;
  s.head_row = reinterpret_cast<I*>(base);
  s.tail_row = reinterpret_cast<I*>(base + rows_bytes);
  s.head_value = reinterpret_cast<T*>(base + 2 * rows_bytes);
  s.tail_value = reinterpret_cast<T*>(base + 2 * rows_bytes + values_bytes);
  return s;
}

}  // namespace

namespace detail {

template <class T, class I>
void launch_spmv_coo(Context& ctx, const DeviceCoo<T, I>& A, const T* x, T* y, T alpha, T beta,
                     const CooParams& config) {
  if (A.rows == 0) return;
  const auto rows = static_cast<std::size_t>(A.rows);
  if (A.nnz == 0) return scale_in_place(ctx, y, rows, beta);
  const int64_t chunks = coo_chunk_count(A.nnz, config.nnz_per_warp);
  const unsigned grid = grid_for(chunks * 32, config.block_size);
  if (!config.deterministic) {
    scale_in_place(ctx, y, rows, beta);  // nothing for beta == 1, a memset for beta == 0
    const T direct_beta = beta == T{0} ? T{0} : T{1};
    spmv_coo_chunk_kernel<T, I><<<grid, config.block_size, 0, ctx.stream()>>>(
        A.rows, A.nnz, config.nnz_per_warp, A.row_idx.data(), A.col_idx.data(), A.values.data(), x, y, alpha,
        direct_beta, true, false, T{0}, BoundarySlots<T, I>{});
    SPX_CHECK_LAUNCH("spmv_coo_chunk_kernel", ctx.stream());
    return;
  }
  // One chunk has no boundary rows: a single launch (the lean path for small matrices).
  const BoundarySlots<T, I> slots = chunks > 1 ? boundary_slots<T, I>(ctx, chunks) : BoundarySlots<T, I>{};
  spmv_coo_chunk_kernel<T, I><<<grid, config.block_size, 0, ctx.stream()>>>(
      A.rows, A.nnz, config.nnz_per_warp, A.row_idx.data(), A.col_idx.data(), A.values.data(), x, y, alpha,
      beta, false, beta != T{1}, beta, slots);
  SPX_CHECK_LAUNCH("spmv_coo_chunk_kernel", ctx.stream());
  if (chunks > 1) {
    spmv_coo_boundary_kernel<T, I>
        <<<grid_for(chunks, kFixupBlock), kFixupBlock, 0, ctx.stream()>>>(chunks, slots, y, alpha, beta);
    SPX_CHECK_LAUNCH("spmv_coo_boundary_kernel", ctx.stream());
  }
}

template void launch_spmv_coo(Context&, const DeviceCoo<float, int32_t>&, const float*, float*, float, float,
                              const CooParams&);
template void launch_spmv_coo(Context&, const DeviceCoo<double, int32_t>&, const double*, double*, double,
                              double, const CooParams&);

}  // namespace detail

template <class T, class I>
void spmv_coo(Context& ctx, const DeviceCoo<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta,
              const CooParams& config) {
  check_spmv_operands("spmv_coo", A.rows, A.cols, x, y);
  validate(config);
  if (A.rows == 0) return;
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), static_cast<std::size_t>(A.rows), beta);
  detail::launch_spmv_coo(ctx, A, x.data(), y.data(), alpha, beta, config);
}

template void spmv_coo(Context&, const DeviceCoo<float, int32_t>&, std::span<const float>, std::span<float>,
                       float, float, const CooParams&);
template void spmv_coo(Context&, const DeviceCoo<double, int32_t>&, std::span<const double>,
                       std::span<double>, double, double, const CooParams&);

}  // namespace spx::cuda
