// The CSR plan's long rows on the device (csr_long_rows.hpp).
#include <algorithm>
#include <string>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/spmv/csr_long_rows.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

constexpr int kBlock = 256;

// Row r past the threshold takes the next entry of `out` (entries past `capacity` are only counted).
template <class O>
__global__ void __launch_bounds__(kBlock)
    long_rows_kernel(int64_t rows, const O* __restrict__ row_ptr, int64_t threshold,
                     LongRow* __restrict__ out, unsigned long long capacity,
                     unsigned long long* __restrict__ count) {
  for (int64_t r = int64_t{blockIdx.x} * kBlock + threadIdx.x; r < rows; r += int64_t{gridDim.x} * kBlock) {
    const int64_t len = int64_t{row_ptr[r + 1]} - int64_t{row_ptr[r]};
    if (len > threshold) {
      const unsigned long long i = atomicAdd(count, 1ull);
      if (i < capacity) out[i] = LongRow{r, len};
    }
  }
}

}  // namespace

template <class O>
std::vector<LongRow> long_rows_on_device(Context& ctx, const O* row_ptr, int64_t rows, int64_t nnz,
                                         int64_t threshold) {
  if (threshold < 0) throw Error("long-row threshold " + std::to_string(threshold) + " is negative");
  if (rows <= 0) return {};
  // Each long row holds more than `threshold` of the nnz nonzeros: the list's bound before the pass.
  const int64_t capacity = std::min(rows, nnz / (threshold + 1)) + 1;
  const std::size_t list_bytes = static_cast<std::size_t>(capacity) * sizeof(LongRow);
  auto* work = static_cast<std::byte*>(ctx.workspace(list_bytes + sizeof(unsigned long long)));
  auto* list = reinterpret_cast<LongRow*>(work);
  auto* count = reinterpret_cast<unsigned long long*>(work + list_bytes);
  SPX_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned long long), ctx.stream()));
  long_rows_kernel<O><<<grid_for_resident(ctx, rows, kBlock, 8), kBlock, 0, ctx.stream()>>>(
      rows, row_ptr, threshold, list, static_cast<unsigned long long>(capacity), count);
  SPX_CHECK_LAUNCH("long_rows_kernel", ctx.stream());
  unsigned long long found = 0;
  copy_to_host_sync(ctx, &found, count, sizeof found);
  if (found > static_cast<unsigned long long>(capacity))  // a row pointer whose last entry is not nnz
    throw Error("long-row search: " + std::to_string(found) + " rows longer than " +
                std::to_string(threshold) + " among " + std::to_string(nnz) +
                " nonzeros: the row pointer does not end at the nonzero count");
  std::vector<LongRow> out(static_cast<std::size_t>(found));
  if (found > 0) copy_to_host_sync(ctx, out.data(), list, out.size() * sizeof(LongRow));
  return out;
}

template std::vector<LongRow> long_rows_on_device(Context&, const int32_t*, int64_t, int64_t, int64_t);
template std::vector<LongRow> long_rows_on_device(Context&, const int64_t*, int64_t, int64_t, int64_t);

}  // namespace spx::cuda::detail
