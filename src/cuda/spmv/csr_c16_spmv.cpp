// CSR-C16 on the device (spx/cuda/spmv_csr_c16.hpp): the upload (with the escape part's chunking
// and scratch) and the product's host checks around its one launch.
#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "cuda/common/scale.hpp"
#include "cuda/spmv/csr_c16_launch.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/cuda/spmv_csr_c16.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

template <class T>
DeviceCsrC16<T> upload_csr_c16(Context& ctx, const CsrC16<T>& A) {
  A.validate();
  // Every escape row is nonempty (a span > 65535 needs two nonzeros; a long row is longer than a
  // threshold >= 0), so threshold 0 chunks every one of them, in order: chunk owner k is escape row k.
  const CsrLongRowSplit split = split_long_rows(A.escape.row_ptr, 0);
  if (split.rows.size() != A.escape_rows.size())
    throw Error(fmt::format("upload_csr_c16: {} of the {} escape rows are empty",
                            A.escape_rows.size() - split.rows.size(), A.escape_rows.size()));
  DeviceCsrC16<T> d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.nnz = A.nnz();
  d.row_ptr = to_device(ctx, A.row_ptr, "CSR-C16 row pointers");
  d.base = to_device(ctx, A.base, "CSR-C16 row base columns");
  d.offsets = to_device(ctx, A.offsets, "CSR-C16 column offsets");
  d.values = to_device(ctx, A.values, "CSR-C16 values");
  d.escape_count = static_cast<int32_t>(A.escape_rows.size());
  d.escape_chunks = split.chunks();
  if (d.escape_count > 0) {
    d.escape_rows = to_device(ctx, A.escape_rows, "CSR-C16 escape rows");
    d.escape_row_ptr = to_device(ctx, A.escape.row_ptr, "CSR-C16 escape row pointers");
    d.escape_col_idx = to_device(ctx, A.escape.col_idx, "CSR-C16 escape column indices");
    d.escape_values = to_device(ctx, A.escape.values, "CSR-C16 escape values");
    d.chunk_begin = to_device(ctx, split.chunk_begin, "CSR-C16 escape chunks");
    d.chunk_owner = to_device(ctx, split.chunk_owner, "CSR-C16 escape chunk owners");
    d.partials = DeviceBuffer<T>(split.chunk_owner.size(), "CSR-C16 escape partial sums");
    // Zero once here; the last chunk of each row resets its counter at the end of every call.
    d.arrivals = to_device(ctx, std::vector<uint32_t>(A.escape_rows.size(), 0u), "CSR-C16 escape counters");
  }
  return d;
}

template <class T>
void spmv_csr_c16(Context& ctx, const DeviceCsrC16<T>& A, std::span<const T> x, std::span<T> y,
                  const CsrSpmvParams& params, T alpha, T beta) {
  check_spmv_operands("spmv_csr_c16", A.rows, A.cols, x, y);
  validate(params, "spmv_csr_c16");
  if (A.rows == 0) return;
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), static_cast<std::size_t>(A.rows), beta);
  CsrC16Args<T> a;
  a.rows = A.rows;
  a.row_ptr = A.row_ptr.data();
  a.base = A.base.data();
  a.offsets = A.offsets.data();
  a.values = A.values.data();
  a.x = x.data();
  a.y = y.data();
  a.alpha = alpha;
  a.beta = beta;
  a.repeat = params.repeat;
  if (A.escape_chunks > 0) {
    const int64_t warps_per_block = params.block_size / 32;
    const int64_t blocks = (A.escape_chunks + warps_per_block - 1) / warps_per_block;
    if (A.escape_chunks > INT32_MAX || blocks > INT32_MAX)
      throw Error(fmt::format("spmv_csr_c16: {} escape chunks do not fit one launch", A.escape_chunks));
    a.escape_chunks = static_cast<int32_t>(A.escape_chunks);
    a.escape_blocks = static_cast<int32_t>(blocks);
    a.escape_rows = A.escape_rows.data();
    a.escape_row_ptr = A.escape_row_ptr.data();
    a.escape_col_idx = A.escape_col_idx.data();
    a.escape_values = A.escape_values.data();
    a.chunk_begin = A.chunk_begin.data();
    a.chunk_owner = A.chunk_owner.data();
    a.partials = A.partials.data();
    a.arrivals = A.arrivals.data();
  }
  launch_csr_c16(ctx, params, a);
}

#define SPX_INSTANTIATE_CSR_C16(T)                                                               \
  template DeviceCsrC16<T> upload_csr_c16(Context&, const CsrC16<T>&);                           \
  template void spmv_csr_c16(Context&, const DeviceCsrC16<T>&, std::span<const T>, std::span<T>, \
                             const CsrSpmvParams&, T, T);
SPX_INSTANTIATE_CSR_C16(float)
SPX_INSTANTIATE_CSR_C16(double)
#undef SPX_INSTANTIATE_CSR_C16

}  // namespace spx::cuda
