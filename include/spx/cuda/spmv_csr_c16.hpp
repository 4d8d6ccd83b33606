// SpMV on CSR with 16-bit column offsets (spx/csr_c16.hpp) on the device.
//
//   auto A16 = spx::cuda::upload_csr_c16(ctx, spx::to_csr_c16(A, spx::plan::csr_c16_escape_threshold(s,
//   props))); spx::cuda::spmv_csr_c16(ctx, A16, x, y, params, alpha, beta);   // params: csr_fixed_rule(s,
//   props)
//
// Semantics as spmv_csr (spmv_csr.hpp): y = alpha*A*x + beta*y; beta == 0 never reads y; alpha == 0
// reads neither A nor x; x and y are device spans, checked like every SpMV.
//
// One launch (docs/formats.md, "CSR-C16"): the 16-bit rows run csr_param's kernel shape (groups of
// `coop` lanes per row, `repeat` batches per block, CsrSpmvParams and its fixed rule), each lane
// loading uint16 offsets and gathering x at base + offset; the escape rows run in extra blocks of
// the same launch, one warp per 512-nonzero chunk of an escape row, chunk partials added in chunk
// order by the last warp to finish (deterministic, no atomics on y). The two parts write disjoint
// rows. The escape part's scratch lives in the matrix: do not run two products with the same
// DeviceCsrC16 concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "spx/csr_c16.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/kernel_params.hpp"  // CsrSpmvParams
#include "spx/plan/rules.hpp"          // csr_fixed_rule
#include "spx/stats.hpp"

namespace spx::cuda {

template <class T>
struct DeviceCsrC16 {
  using value_type = T;
  int32_t rows = 0;
  int32_t cols = 0;
  int64_t nnz = 0;
  DeviceBuffer<int32_t> row_ptr;   // rows + 1, over the 16-bit part
  DeviceBuffer<int32_t> base;      // rows; kC16Escape marks an escape row
  DeviceBuffer<uint16_t> offsets;  // 16-bit part
  DeviceBuffer<T> values;          // 16-bit part
  // Escape part: a 32-bit CSR over escape_count rows, their row indices, and its chunking
  // (CsrLongRowSplit with threshold 0: every escape row cut into 512-nonzero chunks).
  int32_t escape_count = 0;
  int64_t escape_chunks = 0;
  DeviceBuffer<int32_t> escape_rows;
  DeviceBuffer<int32_t> escape_row_ptr;
  DeviceBuffer<int32_t> escape_col_idx;
  DeviceBuffer<T> escape_values;
  DeviceBuffer<int32_t> chunk_begin;  // escape_count + 1
  DeviceBuffer<int32_t> chunk_owner;  // escape_chunks
  // Scratch of the escape path, written by every product (mutable: a product does not change the
  // matrix it reads).
  mutable DeviceBuffer<T> partials;         // escape_chunks
  mutable DeviceBuffer<uint32_t> arrivals;  // escape_count, zero between calls

  std::size_t bytes() const {
    return row_ptr.bytes() + base.bytes() + offsets.bytes() + values.bytes() + escape_rows.bytes() +
           escape_row_ptr.bytes() + escape_col_idx.bytes() + escape_values.bytes() + chunk_begin.bytes() +
           chunk_owner.bytes() + partials.bytes() + arrivals.bytes();
  }
};

// Validates A, checks the device has room for it (an spx::Error naming the size and the memory
// free), copies it and waits. Instantiated for float and double.
template <class T>
DeviceCsrC16<T> upload_csr_c16(Context& ctx, const CsrC16<T>& A);

// y = alpha*A*x + beta*y with params (validated; csr_fixed_rule gives them): one launch, no
// allocation, no host synchronisation.
template <class T>
void spmv_csr_c16(Context& ctx, const DeviceCsrC16<T>& A, std::span<const T> x, std::span<T> y,
                  const CsrSpmvParams& params, T alpha = T{1}, T beta = T{0});

}  // namespace spx::cuda
