// The CSR plan's long rows, found on the device: one pass over the row pointer there, only the few
// rows past the threshold copied back. The host's walk of a power-law graph's 2-3 million rows took
// 3.4-4.7 ms of csr_param's setup (H200), more than 25 of its products.
#pragma once

#include <cstdint>
#include <vector>

#include "spx/cuda/context.hpp"
#include "spx/cuda/spmv_csr.hpp"

namespace spx::cuda::detail {

// The rows of row_ptr (rows + 1 entries on the device, nnz its last) longer than threshold (>= 0),
// in no particular order. Synchronises the stream.
template <class O>
std::vector<LongRow> long_rows_on_device(Context& ctx, const O* row_ptr, int64_t rows, int64_t nnz,
                                         int64_t threshold);

}  // namespace spx::cuda::detail
