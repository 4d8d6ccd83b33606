// The CSR plan's long-row split on the device (csr_long_rows.hpp).
#include <thrust/iterator/counting_iterator.h>

#include <cstddef>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <limits>
#include <string>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/spmv/csr_long_rows.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

constexpr int kBlock = 256;

template <class O>
struct IsLong {
  const O* row_ptr;
  int64_t threshold;
  __device__ __forceinline__ bool operator()(int32_t r) const {
    return int64_t{row_ptr[r + 1]} - int64_t{row_ptr[r]} > threshold;
  }
};

// Long row k's chunk count at counts[k] (counts[K] = 0: the scan's total), its length added to
// totals[0].
template <class O>
__global__ void __launch_bounds__(kBlock)
    chunk_counts_kernel(int32_t count, const int32_t* __restrict__ long_rows, const O* __restrict__ row_ptr,
                        int64_t* __restrict__ counts, unsigned long long* __restrict__ nnz) {
  const int64_t k = int64_t{blockIdx.x} * kBlock + threadIdx.x;
  if (k > count) return;
  if (k == count) {
    counts[k] = 0;
    return;
  }
  const int32_t r = long_rows[k];
  const int64_t len = int64_t{row_ptr[r + 1]} - int64_t{row_ptr[r]};
  counts[k] = (len + kCsrLongRowChunk - 1) / kCsrLongRowChunk;
  atomicAdd(nnz, static_cast<unsigned long long>(len));  // an integer sum: any order, same total
}

// chunk_begin (int32) from the scanned offsets, and owner k on long row k's chunks.
__global__ void __launch_bounds__(kBlock)
    chunk_owner_kernel(int32_t count, const int64_t* __restrict__ offsets, int32_t* __restrict__ chunk_begin,
                       int32_t* __restrict__ chunk_owner) {
  const int64_t k = int64_t{blockIdx.x} * kBlock + threadIdx.x;
  if (k > count) return;
  chunk_begin[k] = static_cast<int32_t>(offsets[k]);
  if (k == count) return;
  for (int64_t c = offsets[k]; c < offsets[k + 1]; ++c) chunk_owner[c] = static_cast<int32_t>(k);
}

}  // namespace

template <class O>
DeviceLongRowSplit split_long_rows_on_device(Context& ctx, const O* row_ptr, int64_t rows,
                                             int64_t threshold) {
  if (threshold < 0) throw Error("long-row threshold " + std::to_string(threshold) + " is negative");
  if (rows < 0 || rows > std::numeric_limits<int32_t>::max())
    throw Error("long-row split: " + std::to_string(rows) + " rows do not fit 32-bit row indices");
  // No long row: no rows, no chunks, chunk_begin = {0}.
  const auto none = [&] {
    DeviceLongRowSplit split;
    split.d_chunk_begin = to_device(ctx, std::vector<int32_t>{0}, "long-row chunks of a CSR plan");
    return split;
  };
  if (rows == 0) return none();
  const auto n = static_cast<int32_t>(rows);
  // Workspace: the selected rows (at most all), the count, the nonzero total and a copy of the
  // chunk total (the last two read back together), CUB's temporary storage (the larger of the
  // selection's and the scan's: the scan's for n + 1 items bounds it for fewer). The chunk counts
  // and offsets are sized once the count is known.
  const thrust::counting_iterator<int32_t> all_rows(0);
  std::size_t select_bytes = 0, scan_bytes = 0;
  SPX_CUDA_CHECK(cub::DeviceSelect::If(nullptr, select_bytes, all_rows, static_cast<int32_t*>(nullptr),
                                       static_cast<int32_t*>(nullptr), n, IsLong<O>{row_ptr, threshold},
                                       ctx.stream()));
  SPX_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<const int64_t*>(nullptr),
                                               static_cast<int64_t*>(nullptr), n + 1, ctx.stream()));
  const std::size_t rows_bytes = detail::workspace_aligned(static_cast<std::size_t>(n) * sizeof(int32_t));
  auto* work = static_cast<std::byte*>(
      ctx.workspace(rows_bytes + kWorkspaceAlignment + std::max(select_bytes, scan_bytes)));
  auto* selected = reinterpret_cast<int32_t*>(work);
  auto* totals = reinterpret_cast<unsigned long long*>(work + rows_bytes);  // count, nnz, chunks
  void* temp = work + rows_bytes + kWorkspaceAlignment;
  SPX_CUDA_CHECK(cudaMemsetAsync(totals, 0, 3 * sizeof(unsigned long long), ctx.stream()));
  SPX_CUDA_CHECK(cub::DeviceSelect::If(temp, select_bytes, all_rows, selected,
                                       reinterpret_cast<int32_t*>(totals), n, IsLong<O>{row_ptr, threshold},
                                       ctx.stream()));
  int32_t count = 0;
  copy_to_host_sync(ctx, &count, totals, sizeof count);
  if (count == 0) return none();
  DeviceLongRowSplit split;
  DeviceBuffer<int64_t> counts(static_cast<std::size_t>(count) + 1, "long-row chunk counts");
  DeviceBuffer<int64_t> offsets(static_cast<std::size_t>(count) + 1, "long-row chunk offsets");
  chunk_counts_kernel<O><<<grid_for(int64_t{count} + 1, kBlock), kBlock, 0, ctx.stream()>>>(
      count, selected, row_ptr, counts.data(), totals + 1);
  SPX_CHECK_LAUNCH("chunk_counts_kernel", ctx.stream());
  SPX_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, scan_bytes, counts.data(), offsets.data(), count + 1,
                                               ctx.stream()));
  SPX_CUDA_CHECK(cudaMemcpyAsync(totals + 2, offsets.data() + count, sizeof(int64_t),
                                 cudaMemcpyDeviceToDevice, ctx.stream()));
  unsigned long long back[2] = {0, 0};  // nnz, chunks
  copy_to_host_sync(ctx, back, totals + 1, sizeof back);
  const unsigned long long nnz = back[0];
  const auto chunks = static_cast<int64_t>(back[1]);
  // Chunks are at most nnz / 512 + rows: int32 for any matrix of 32-bit rows below 2^40 nonzeros.
  if (chunks > std::numeric_limits<int32_t>::max()) throw Error("long-row split: more than 2^31-1 chunks");
  split.chunks = chunks;
  split.nnz = static_cast<int64_t>(nnz);
  split.d_rows = DeviceBuffer<int32_t>(static_cast<std::size_t>(count), "long rows of a CSR plan");
  SPX_CUDA_CHECK(cudaMemcpyAsync(split.d_rows.data(), selected, split.d_rows.bytes(),
                                 cudaMemcpyDeviceToDevice, ctx.stream()));
  split.d_chunk_begin =
      DeviceBuffer<int32_t>(static_cast<std::size_t>(count) + 1, "long-row chunks of a CSR plan");
  split.d_chunk_owner =
      DeviceBuffer<int32_t>(static_cast<std::size_t>(chunks), "long-row chunk owners of a CSR plan");
  chunk_owner_kernel<<<grid_for(int64_t{count} + 1, kBlock), kBlock, 0, ctx.stream()>>>(
      count, offsets.data(), split.d_chunk_begin.data(), split.d_chunk_owner.data());
  SPX_CHECK_LAUNCH("chunk_owner_kernel", ctx.stream());
  split.rows.resize(static_cast<std::size_t>(count));
  copy_to_host_sync(ctx, split.rows.data(), selected, split.rows.size() * sizeof(int32_t));
  return split;
}

template DeviceLongRowSplit split_long_rows_on_device(Context&, const int32_t*, int64_t, int64_t);
template DeviceLongRowSplit split_long_rows_on_device(Context&, const int64_t*, int64_t, int64_t);

}  // namespace spx::cuda::detail
