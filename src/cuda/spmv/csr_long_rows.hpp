// The CSR plan's long-row split, made on the device: the rows past the threshold selected in order
// (CUB), their chunk offsets scanned and the chunks' owners filled there; only the counts and the
// long rows' indices come back. The host's walk of a power-law graph's 2-3 million rows took 3.4-4.7
// ms of csr_param's setup (H200), a device list sorted on the host still 1.6-2 ms (28k long rows).
#pragma once

#include <cstdint>
#include <vector>

#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"

namespace spx::cuda::detail {

// split_long_rows (spx/cuda/spmv_csr.hpp) of a device row pointer, with the arrays on the device.
struct DeviceLongRowSplit {
  std::vector<int32_t> rows;            // ascending (host copy)
  DeviceBuffer<int32_t> d_rows;         // the same on the device
  DeviceBuffer<int32_t> d_chunk_begin;  // rows.size() + 1 entries
  DeviceBuffer<int32_t> d_chunk_owner;  // one per chunk
  int64_t nnz = 0;                      // nonzeros in the long rows
  int64_t chunks = 0;
};

// The rows of row_ptr (rows + 1 entries on the device) longer than threshold (>= 0), cut into
// kCsrLongRowChunk chunks. Synchronises the stream three times (the count, the totals, the rows).
template <class O>
DeviceLongRowSplit split_long_rows_on_device(Context& ctx, const O* row_ptr, int64_t rows, int64_t threshold);

}  // namespace spx::cuda::detail
