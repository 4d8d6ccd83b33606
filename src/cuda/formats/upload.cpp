// Host ⇄ device copies of every format. Uploads validate first, enqueue all copies, then wait
// once; downloads rebuild the host type field for field.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuda/formats/upload_valid.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"

namespace spx::cuda {
namespace {

template <class V>
DeviceBuffer<V> upload_array(Context& ctx, const std::vector<V>& host, const char* label) {
  DeviceBuffer<V> d(host.size(), label);
  copy_to_device_async(ctx, d.data(), host.data(), d.bytes());
  return d;
}

template <class V>
std::vector<V> download_array(Context& ctx, const DeviceBuffer<V>& device) {
  std::vector<V> h(device.size());
  copy_to_host_async(ctx, h.data(), device.data(), device.bytes());
  return h;
}

template <class T, class I>
DeviceCoo<T, I> upload_coo_unchecked(Context& ctx, const Coo<T, I>& A) {
  DeviceCoo<T, I> d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.nnz = A.nnz();
  d.row_idx = upload_array(ctx, A.row_idx, "COO row indices");
  d.col_idx = upload_array(ctx, A.col_idx, "COO column indices");
  d.values = upload_array(ctx, A.values, "COO values");
  return d;
}

template <class T, class I>
DeviceEll<T, I> upload_ell_unchecked(Context& ctx, const Ell<T, I>& A) {
  DeviceEll<T, I> d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.width = A.width;
  d.ld = A.ld;
  d.col_idx = upload_array(ctx, A.col_idx, "ELL column indices");
  d.values = upload_array(ctx, A.values, "ELL values");
  return d;
}

template <class T, class I>
Coo<T, I> download_coo_async(Context& ctx, const DeviceCoo<T, I>& d) {
  Coo<T, I> A;
  A.rows = d.rows;
  A.cols = d.cols;
  A.row_idx = download_array(ctx, d.row_idx);
  A.col_idx = download_array(ctx, d.col_idx);
  A.values = download_array(ctx, d.values);
  return A;
}

template <class T, class I>
Ell<T, I> download_ell_async(Context& ctx, const DeviceEll<T, I>& d) {
  Ell<T, I> A;
  A.rows = d.rows;
  A.cols = d.cols;
  A.width = d.width;
  A.ld = d.ld;
  A.col_idx = download_array(ctx, d.col_idx);
  A.values = download_array(ctx, d.values);
  return A;
}

}  // namespace

template <class T, class I>
DeviceCsr<T, I> upload(Context& ctx, const Csr<T, I>& A) {
  A.validate();
  return detail::upload_valid(ctx, A);
}

template <class T, class I>
DeviceCsr<T, I> detail::upload_valid(Context& ctx, const Csr<T, I>& A) {
  DeviceCsr<T, I> d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.nnz = A.nnz();
  d.row_ptr = upload_array(ctx, A.row_ptr, "CSR row pointers");
  d.col_idx = upload_array(ctx, A.col_idx, "CSR column indices");
  d.values = upload_array(ctx, A.values, "CSR values");
  ctx.synchronize();
  return d;
}

template <class T, class I>
DeviceCoo<T, I> upload(Context& ctx, const Coo<T, I>& A) {
  A.validate();
  auto d = upload_coo_unchecked(ctx, A);
  ctx.synchronize();
  return d;
}

template <class T, class I>
DeviceEll<T, I> upload(Context& ctx, const Ell<T, I>& A) {
  A.validate();
  auto d = upload_ell_unchecked(ctx, A);
  ctx.synchronize();
  return d;
}

template <class T, class I>
DeviceEllR<T, I> upload(Context& ctx, const EllR<T, I>& A) {
  A.validate();
  DeviceEllR<T, I> d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.width = A.width;
  d.rows_padded = A.rows_padded;
  d.col_idx = upload_array(ctx, A.col_idx, "ELL-R column indices");
  d.values = upload_array(ctx, A.values, "ELL-R values");
  d.row_len = upload_array(ctx, A.row_len, "ELL-R row lengths");
  ctx.synchronize();
  return d;
}

template <class T, class I>
DeviceHyb<T, I> upload(Context& ctx, const Hyb<T, I>& A) {
  A.validate();
  DeviceHyb<T, I> d;
  d.ell = upload_ell_unchecked(ctx, A.ell);
  d.coo = upload_coo_unchecked(ctx, A.coo);
  ctx.synchronize();
  return d;
}

template <class T>
DeviceDense<T> upload(Context& ctx, const Dense<T>& A) {
  A.validate();
  DeviceDense<T> d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.ld = A.ld;
  d.layout = A.layout;
  d.data = upload_array(ctx, A.data, "dense matrix");
  ctx.synchronize();
  return d;
}

template <class T, class I>
DeviceSell<T, I> upload_sell(Context& ctx, const Csr<T, I>& A, I slice_size) {
  A.validate();
  if (slice_size < 1) throw Error(fmt::format("SELL slice size must be at least 1, got {}", slice_size));
  const int64_t rows = A.rows, S = slice_size;
  const int64_t slices = (rows + S - 1) / S;
  std::vector<int64_t> offsets(static_cast<std::size_t>(slices) + 1, 0);
  for (int64_t s = 0; s < slices; ++s) {
    int64_t width = 0;
    for (int64_t r = s * S; r < std::min(rows, (s + 1) * S); ++r)
      width = std::max<int64_t>(width, A.row_length(static_cast<I>(r)));
    offsets[s + 1] = offsets[s] + width * S;
  }
  const int64_t total = offsets.back();
  if (total > static_cast<int64_t>(std::numeric_limits<I>::max()))
    throw Error(fmt::format(
        "SELL-{} of a {}x{} matrix needs {} slots, more than its index type holds; use 64-bit indices",
        slice_size, A.rows, A.cols, total));
  std::vector<I> slice_offsets(offsets.size()),
      col_idx(static_cast<std::size_t>(total), static_cast<I>(kPadding));
  std::vector<T> values(static_cast<std::size_t>(total), T{0});
  for (std::size_t s = 0; s < offsets.size(); ++s) slice_offsets[s] = static_cast<I>(offsets[s]);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = offsets[r / S] + r % S;
    for (I j = A.row_ptr[r], k = 0; j < A.row_ptr[r + 1]; ++j, ++k) {
      const auto slot = static_cast<std::size_t>(base + int64_t{k} * S);
      col_idx[slot] = A.col_idx[j];
      values[slot] = A.values[j];
    }
  }
  DeviceSell<T, I> d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.nnz = A.nnz();
  d.slice_size = slice_size;
  d.values_size = static_cast<I>(total);
  d.slice_offsets = upload_array(ctx, slice_offsets, "SELL slice offsets");
  d.col_idx = upload_array(ctx, col_idx, "SELL column indices");
  d.values = upload_array(ctx, values, "SELL values");
  ctx.synchronize();
  return d;
}

template <class T, class I>
Csr<T, I> download(Context& ctx, const DeviceCsr<T, I>& d) {
  Csr<T, I> A;
  A.rows = d.rows;
  A.cols = d.cols;
  A.row_ptr = download_array(ctx, d.row_ptr);
  A.col_idx = download_array(ctx, d.col_idx);
  A.values = download_array(ctx, d.values);
  ctx.synchronize();
  return A;
}

template <class T, class I>
Coo<T, I> download(Context& ctx, const DeviceCoo<T, I>& d) {
  auto A = download_coo_async(ctx, d);
  ctx.synchronize();
  return A;
}

template <class T, class I>
Ell<T, I> download(Context& ctx, const DeviceEll<T, I>& d) {
  auto A = download_ell_async(ctx, d);
  ctx.synchronize();
  return A;
}

template <class T, class I>
EllR<T, I> download(Context& ctx, const DeviceEllR<T, I>& d) {
  EllR<T, I> A;
  A.rows = d.rows;
  A.cols = d.cols;
  A.width = d.width;
  A.rows_padded = d.rows_padded;
  A.col_idx = download_array(ctx, d.col_idx);
  A.values = download_array(ctx, d.values);
  A.row_len = download_array(ctx, d.row_len);
  ctx.synchronize();
  return A;
}

template <class T, class I>
Hyb<T, I> download(Context& ctx, const DeviceHyb<T, I>& d) {
  Hyb<T, I> A;
  A.ell = download_ell_async(ctx, d.ell);
  A.coo = download_coo_async(ctx, d.coo);
  ctx.synchronize();
  return A;
}

template <class T>
Dense<T> download(Context& ctx, const DeviceDense<T>& d) {
  Dense<T> A;
  A.rows = d.rows;
  A.cols = d.cols;
  A.ld = d.ld;
  A.layout = d.layout;
  A.data = download_array(ctx, d.data);
  ctx.synchronize();
  return A;
}

template <class T>
DeviceDense<T> make_device_dense(int64_t rows, int64_t cols, Layout layout) {
  if (rows < 0 || cols < 0)
    throw Error(fmt::format("dense matrix of {}x{}: sizes must be non-negative", rows, cols));
  DeviceDense<T> d;
  d.rows = rows;
  d.cols = cols;
  d.layout = layout;
  d.ld = std::max<int64_t>(1, layout == Layout::ColMajor ? rows : cols);
  d.data = DeviceBuffer<T>(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), "dense matrix");
  return d;
}

#define SPX_INSTANTIATE_SPARSE(T, I)                                         \
  template DeviceCsr<T, I> upload(Context&, const Csr<T, I>&);               \
  template DeviceCsr<T, I> detail::upload_valid(Context&, const Csr<T, I>&); \
  template DeviceCoo<T, I> upload(Context&, const Coo<T, I>&);               \
  template DeviceEll<T, I> upload(Context&, const Ell<T, I>&);               \
  template DeviceEllR<T, I> upload(Context&, const EllR<T, I>&);             \
  template DeviceHyb<T, I> upload(Context&, const Hyb<T, I>&);               \
  template DeviceSell<T, I> upload_sell(Context&, const Csr<T, I>&, I);      \
  template Csr<T, I> download(Context&, const DeviceCsr<T, I>&);             \
  template Coo<T, I> download(Context&, const DeviceCoo<T, I>&);             \
  template Ell<T, I> download(Context&, const DeviceEll<T, I>&);             \
  template EllR<T, I> download(Context&, const DeviceEllR<T, I>&);           \
  template Hyb<T, I> download(Context&, const DeviceHyb<T, I>&);

SPX_INSTANTIATE_SPARSE(float, int32_t)
SPX_INSTANTIATE_SPARSE(double, int32_t)
SPX_INSTANTIATE_SPARSE(float, int64_t)
SPX_INSTANTIATE_SPARSE(double, int64_t)
#undef SPX_INSTANTIATE_SPARSE

template DeviceDense<float> upload(Context&, const Dense<float>&);
template DeviceDense<double> upload(Context&, const Dense<double>&);
template Dense<float> download(Context&, const DeviceDense<float>&);
template Dense<double> download(Context&, const DeviceDense<double>&);
template DeviceDense<float> make_device_dense<float>(int64_t, int64_t, Layout);
template DeviceDense<double> make_device_dense<double>(int64_t, int64_t, Layout);

}  // namespace spx::cuda
