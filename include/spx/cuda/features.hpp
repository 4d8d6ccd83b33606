// Matrix features (spx/features.hpp) computed on the device from a DeviceCsr, equal field for field
// to spx::features of the same matrix on the host.
#pragma once

#include <cstdint>

#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/features.hpp"

namespace spx::cuda {

// Computed on ctx's stream from the device matrix (a canonical CSR, as upload() gives; the matrix
// never goes to the host): one pass over row_ptr and col_idx, a warp per 32-row window, plus a
// second pass over the windows of more than 4096 nonzeros split into tiles. Reads back only small
// results (counters, the HYB histogram, the list of long windows), so the call synchronises the
// stream three to six times. Scratch: a column bitset of cols/8 bytes and small counters.
// gpu_ms (optional) gets the elapsed time on the stream from the first to the last operation,
// including the small transfers between them (docs/features.md). Throws spx::Error when dA's arrays
// are shorter than its sizes say or scratch memory cannot be allocated.
template <class T>
MatrixFeatures features(Context& ctx, const DeviceCsr<T, int32_t>& dA, double* gpu_ms = nullptr);

}  // namespace spx::cuda
