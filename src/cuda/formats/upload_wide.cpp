// CSR with 64-bit row offsets over 32-bit columns (WideDeviceCsr, spx/cuda/formats.hpp): upload from
// a 64- or 32-bit host matrix, assembly from row blocks, download, and the widened column copy that
// cuSPARSE's 64-bit CSR needs. Every size is checked against the device's free memory before the
// first allocation, so a matrix that cannot fit fails at once with the numbers, not half uploaded.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/device_memory.hpp"
#include "cuda/formats/row_blocks.hpp"
#include "cuda/formats/widen.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/error.hpp"
#include "spx/plan.hpp"

namespace spx::cuda {
namespace {

// Column indices narrowed per staging chunk: 64 Mi entries (256 MB of int32) bounds the host's extra
// memory whatever the matrix.
constexpr int64_t kStageEntries = int64_t{64} << 20;

template <class T>
std::size_t wide_bytes(int64_t rows, int64_t nnz) {
  return static_cast<std::size_t>(rows + 1) * sizeof(int64_t) +
         static_cast<std::size_t>(nnz) * (sizeof(int32_t) + sizeof(T));
}

template <class T>
WideDeviceCsr<T> allocate_wide(int64_t rows, int64_t cols, int64_t nnz, const char* what) {
  (void)plan::offset_bits(plan::IndexWidth::Bits64, rows, cols, nnz);  // rows, cols < 2^31; nnz >= 0
  detail::require_device_memory(wide_bytes<T>(rows, nnz), what);
  WideDeviceCsr<T> d;
  d.rows = static_cast<int32_t>(rows);
  d.cols = static_cast<int32_t>(cols);
  d.nnz = nnz;
  d.row_ptr = DeviceBuffer<int64_t>(static_cast<std::size_t>(rows) + 1, "64-bit CSR row offsets");
  d.col_idx = DeviceBuffer<int32_t>(static_cast<std::size_t>(nnz), "64-bit CSR column indices");
  d.values = DeviceBuffer<T>(static_cast<std::size_t>(nnz), "64-bit CSR values");
  return d;
}

// n column indices of a validated matrix (so each is in [0, cols) and cols < 2^31) copied to dst as
// int32: directly where they already are, else through the staging buffer one chunk at a time.
template <class I>
void copy_columns(Context& ctx, int32_t* dst, const I* src, int64_t n, std::vector<int32_t>& stage) {
  if constexpr (std::is_same_v<I, int32_t>) {
    (void)stage;
    if (n > 0) copy_to_device_sync(ctx, dst, src, static_cast<std::size_t>(n) * sizeof(int32_t));
  } else {
    for (int64_t done = 0; done < n; done += kStageEntries) {
      const int64_t m = std::min(kStageEntries, n - done);
      stage.resize(static_cast<std::size_t>(m));
      std::transform(src + done, src + done + m, stage.begin(), [](I c) { return static_cast<int32_t>(c); });
      copy_to_device_sync(ctx, dst + done, stage.data(), static_cast<std::size_t>(m) * sizeof(int32_t));
    }
  }
}

template <class T, class I>
WideDeviceCsr<T> upload_wide_from(Context& ctx, const Csr<T, I>& A) {
  A.validate();
  WideDeviceCsr<T> d = allocate_wide<T>(A.rows, A.cols, A.nnz(), "upload_wide");
  if constexpr (std::is_same_v<I, int64_t>) {
    copy_to_device_sync(ctx, d.row_ptr.data(), A.row_ptr.data(), d.row_ptr.bytes());
  } else {
    const std::vector<int64_t> offsets(A.row_ptr.begin(), A.row_ptr.end());
    copy_to_device_sync(ctx, d.row_ptr.data(), offsets.data(), d.row_ptr.bytes());
  }
  std::vector<int32_t> stage;
  copy_columns(ctx, d.col_idx.data(), A.col_idx.data(), A.nnz(), stage);
  if (A.nnz() > 0) copy_to_device_sync(ctx, d.values.data(), A.values.data(), d.values.bytes());
  return d;
}

}  // namespace

template <class T>
WideDeviceCsr<T> upload_wide(Context& ctx, const Csr<T, int64_t>& A) {
  return upload_wide_from(ctx, A);
}

template <class T>
WideDeviceCsr<T> upload_wide(Context& ctx, const Csr<T, int32_t>& A) {
  return upload_wide_from(ctx, A);
}

template <class T>
WideDeviceCsr<T> upload_row_blocks(Context& ctx, int64_t rows, int64_t cols, int64_t nnz,
                                   int64_t rows_per_block,
                                   const std::function<Csr<T, int64_t>(int64_t begin, int64_t end)>& block) {
  detail::check_rows_per_block(rows_per_block);
  WideDeviceCsr<T> d = allocate_wide<T>(rows, cols, nnz, "upload_row_blocks");
  const int64_t zero = 0;
  copy_to_device_sync(ctx, d.row_ptr.data(), &zero, sizeof(int64_t));
  std::vector<int32_t> stage;
  std::vector<int64_t> offsets;
  int64_t at = 0;  // nonzeros copied so far
  for (int64_t begin = 0; begin < rows; begin += rows_per_block) {
    const int64_t end = std::min(rows, begin + rows_per_block);
    const Csr<T, int64_t> B = block(begin, end);
    detail::check_row_block(B, begin, end, cols, at, nnz);
    offsets.resize(static_cast<std::size_t>(B.rows));
    for (int64_t r = 0; r < B.rows; ++r)
      offsets[static_cast<std::size_t>(r)] = at + B.row_ptr[static_cast<std::size_t>(r) + 1];
    copy_to_device_sync(ctx, d.row_ptr.data() + begin + 1, offsets.data(), offsets.size() * sizeof(int64_t));
    copy_columns(ctx, d.col_idx.data() + at, B.col_idx.data(), B.nnz(), stage);
    if (B.nnz() > 0)
      copy_to_device_sync(ctx, d.values.data() + at, B.values.data(),
                          static_cast<std::size_t>(B.nnz()) * sizeof(T));
    at += B.nnz();
  }
  detail::check_row_blocks_total(at, nnz);
  return d;
}

template <class T>
Csr<T, int64_t> download(Context& ctx, const WideDeviceCsr<T>& A) {
  Csr<T, int64_t> h(A.rows, A.cols);
  copy_to_host_sync(ctx, h.row_ptr.data(), A.row_ptr.data(), A.row_ptr.bytes());
  std::vector<int32_t> cols(A.col_idx.size());
  if (!cols.empty()) copy_to_host_sync(ctx, cols.data(), A.col_idx.data(), A.col_idx.bytes());
  h.col_idx.assign(cols.begin(), cols.end());
  h.values.resize(A.values.size());
  if (!h.values.empty()) copy_to_host_sync(ctx, h.values.data(), A.values.data(), A.values.bytes());
  return h;
}

template <class T>
DeviceBuffer<int64_t> widen_columns(Context& ctx, const WideDeviceCsr<T>& A) {
  detail::require_device_memory(static_cast<std::size_t>(A.nnz) * sizeof(int64_t),
                                "widen_columns (cuSPARSE's 64-bit columns)");
  DeviceBuffer<int64_t> out(static_cast<std::size_t>(A.nnz), "64-bit column indices for cuSPARSE");
  detail::widen_indices(ctx, A.col_idx.data(), out.data(), A.nnz);
  ctx.synchronize();
  return out;
}

#define SPX_INSTANTIATE_WIDE(T)                                                                         \
  template WideDeviceCsr<T> upload_wide(Context&, const Csr<T, int64_t>&);                              \
  template WideDeviceCsr<T> upload_wide(Context&, const Csr<T, int32_t>&);                              \
  template WideDeviceCsr<T> upload_row_blocks(Context&, int64_t, int64_t, int64_t, int64_t,             \
                                              const std::function<Csr<T, int64_t>(int64_t, int64_t)>&); \
  template Csr<T, int64_t> download(Context&, const WideDeviceCsr<T>&);                                 \
  template DeviceBuffer<int64_t> widen_columns(Context&, const WideDeviceCsr<T>&);
SPX_INSTANTIATE_WIDE(float)
SPX_INSTANTIATE_WIDE(double)
#undef SPX_INSTANTIATE_WIDE

}  // namespace spx::cuda
