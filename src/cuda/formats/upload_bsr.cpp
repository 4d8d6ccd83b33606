// Host <-> device copies of BSR (spx/cuda/spmv_bsr.hpp).
#include "spx/cuda/context.hpp"
#include "spx/cuda/spmv_bsr.hpp"

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

}  // namespace

template <class T, class I>
DeviceBsr<T, I> upload(Context& ctx, const Bsr<T, I>& A) {
  A.validate();
  DeviceBsr<T, I> d;
  d.rows = A.rows;
  d.cols = A.cols;
  d.block = A.block;
  d.block_rows = A.block_rows;
  d.block_cols = A.block_cols;
  d.blocks = A.blocks();
  d.row_ptr = upload_array(ctx, A.row_ptr, "BSR block-row pointers");
  d.col_idx = upload_array(ctx, A.col_idx, "BSR block columns");
  d.values = upload_array(ctx, A.values, "BSR values");
  ctx.synchronize();
  return d;
}

template <class T, class I>
Bsr<T, I> download(Context& ctx, const DeviceBsr<T, I>& d) {
  Bsr<T, I> A;
  A.rows = d.rows;
  A.cols = d.cols;
  A.block = d.block;
  A.block_rows = d.block_rows;
  A.block_cols = d.block_cols;
  A.row_ptr = download_array(ctx, d.row_ptr);
  A.col_idx = download_array(ctx, d.col_idx);
  A.values = download_array(ctx, d.values);
  ctx.synchronize();
  return A;
}

template DeviceBsr<float, int32_t> upload(Context&, const Bsr<float, int32_t>&);
template DeviceBsr<double, int32_t> upload(Context&, const Bsr<double, int32_t>&);
template Bsr<float, int32_t> download(Context&, const DeviceBsr<float, int32_t>&);
template Bsr<double, int32_t> download(Context&, const DeviceBsr<double, int32_t>&);

}  // namespace spx::cuda
