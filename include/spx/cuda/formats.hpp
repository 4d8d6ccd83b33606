// Device-side sparse and dense formats: the host layouts of spx/matrix.hpp, array for array, in
// device memory. upload() validates the host matrix first (A.validate(): a kernel must never see
// an out-of-range index) and waits for the copies; download() returns the host type.
// bytes() is the device footprint, the number the memory checks and the performance model use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "spx/cuda/buffer.hpp"
#include "spx/matrix.hpp"

namespace spx::cuda {

class Context;

/// I: the column indices' type (and the dimensions'); O: the row offsets' (and nnz's). O = I is the
/// host Csr<T, I> uploaded as it is; DeviceCsr<T, int32_t, int64_t> (WideDeviceCsr) has 64-bit row
/// offsets over 32-bit columns: more than 2^31 - 1 nonzeros at 4 index bytes a nonzero, not 8.
template <class T, class I = int32_t, class O = I>
struct DeviceCsr {
  using value_type = T;
  using index_type = I;
  using offset_type = O;
  I rows = 0;
  I cols = 0;
  O nnz = 0;
  DeviceBuffer<O> row_ptr;  ///< rows + 1
  DeviceBuffer<I> col_idx;  ///< nnz
  DeviceBuffer<T> values;   ///< nnz
  std::size_t bytes() const { return row_ptr.bytes() + col_idx.bytes() + values.bytes(); }
};

/// 64-bit row offsets, 32-bit column indices (rows and columns below 2^31): what the front door
/// holds for a matrix of more than 2^31 - 1 nonzeros, or when 64-bit indices are asked for.
/// cuSPARSE takes no such pair (13.0: "different index sizes ... not currently supported"), so its
/// 64-bit candidates run on a copy of the columns widened to 64 bits.
template <class T>
using WideDeviceCsr = DeviceCsr<T, int32_t, int64_t>;

template <class T, class I = int32_t>
struct DeviceCoo {
  using value_type = T;
  using index_type = I;
  I rows = 0;
  I cols = 0;
  I nnz = 0;
  DeviceBuffer<I> row_idx;
  DeviceBuffer<I> col_idx;
  DeviceBuffer<T> values;
  std::size_t bytes() const { return row_idx.bytes() + col_idx.bytes() + values.bytes(); }
};

/// Slot k of row r at [k * ld + r]; padding slots hold (kPadding, 0).
template <class T, class I = int32_t>
struct DeviceEll {
  using value_type = T;
  using index_type = I;
  I rows = 0;
  I cols = 0;
  I width = 0;
  I ld = 0;
  DeviceBuffer<I> col_idx;  ///< ld * width
  DeviceBuffer<T> values;   ///< ld * width
  std::size_t bytes() const { return col_idx.bytes() + values.bytes(); }
};

/// Slot k of row r at [k * rows_padded + r]; row_len[r] real entries per row.
template <class T, class I = int32_t>
struct DeviceEllR {
  using value_type = T;
  using index_type = I;
  I rows = 0;
  I cols = 0;
  I width = 0;
  I rows_padded = 0;
  DeviceBuffer<I> col_idx;  ///< rows_padded * width
  DeviceBuffer<T> values;   ///< rows_padded * width
  DeviceBuffer<I> row_len;  ///< rows_padded
  std::size_t bytes() const { return col_idx.bytes() + values.bytes() + row_len.bytes(); }
};

template <class T, class I = int32_t>
struct DeviceHyb {
  using value_type = T;
  using index_type = I;
  DeviceEll<T, I> ell;
  DeviceCoo<T, I> coo;
  I rows() const { return ell.rows; }
  I cols() const { return ell.cols; }
  std::size_t bytes() const { return ell.bytes() + coo.bytes(); }
};

/// cuSPARSE's sliced ELLPACK (SELL-C, no row sorting): rows in slices of `slice_size`; slice s
/// owns [slice_offsets[s], slice_offsets[s+1]) of col_idx/values, stored slot-major (entry of
/// row r of the slice in slot k at offset + k * slice_size + r), padded to the slice's longest row
/// with (kPadding, 0); the last slice is padded to a full slice. Built on the host from a Csr:
/// cuSPARSE has no CSR→SELL conversion. Used by the cuSPARSE SELL baseline (and later our own).
template <class T, class I = int32_t>
struct DeviceSell {
  using value_type = T;
  using index_type = I;
  I rows = 0;
  I cols = 0;
  I nnz = 0;  ///< real entries
  I slice_size = 0;
  I values_size = 0;              ///< real + padding entries
  DeviceBuffer<I> slice_offsets;  ///< ceil(rows / slice_size) + 1
  DeviceBuffer<I> col_idx;        ///< values_size
  DeviceBuffer<T> values;         ///< values_size
  std::size_t bytes() const { return slice_offsets.bytes() + col_idx.bytes() + values.bytes(); }
};

template <class T>
struct DeviceDense {
  using value_type = T;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
  Layout layout = Layout::ColMajor;
  DeviceBuffer<T> data;  ///< (ColMajor ? cols : rows) * ld
  std::size_t bytes() const { return data.bytes(); }
};

template <class T, class I>
DeviceCsr<T, I> upload(Context& ctx, const Csr<T, I>& A);
template <class T, class I>
DeviceCoo<T, I> upload(Context& ctx, const Coo<T, I>& A);
template <class T, class I>
DeviceEll<T, I> upload(Context& ctx, const Ell<T, I>& A);
template <class T, class I>
DeviceEllR<T, I> upload(Context& ctx, const EllR<T, I>& A);
template <class T, class I>
DeviceHyb<T, I> upload(Context& ctx, const Hyb<T, I>& A);
template <class T>
DeviceDense<T> upload(Context& ctx, const Dense<T>& A);
/// slice_size >= 1 (32 = one warp per slice). Throws when the padded size does not fit in I.
template <class T, class I>
DeviceSell<T, I> upload_sell(Context& ctx, const Csr<T, I>& A, I slice_size = 32);

/// 64-bit row offsets (docs/index-width.md). upload_wide validates A, refuses rows or columns past
/// 2^31 - 1 and checks the device has the bytes before allocating (an spx::Error with both numbers);
/// the columns are narrowed to 32 bits on the way through a bounded host staging buffer, so the host
/// never holds a second copy. From a 32-bit host matrix: its offsets widened (tests, IndexWidth::Bits64).
template <class T>
WideDeviceCsr<T> upload_wide(Context& ctx, const Csr<T, int64_t>& A);
template <class T>
WideDeviceCsr<T> upload_wide(Context& ctx, const Csr<T, int32_t>& A);
/// A rows x cols matrix of exactly nnz nonzeros assembled from consecutive row blocks: block(begin,
/// end) returns rows [begin, end) as a Csr of end - begin rows and `cols` columns (64-bit indices,
/// global columns), each validated and copied at the running offset before the next is asked for.
/// The device matrix is allocated once (its size checked first); a block of the wrong shape, nonzeros
/// past `nnz` or a total short of it is an spx::Error naming the block.
template <class T>
WideDeviceCsr<T> upload_row_blocks(Context& ctx, int64_t rows, int64_t cols, int64_t nnz,
                                   int64_t rows_per_block,
                                   const std::function<Csr<T, int64_t>(int64_t begin, int64_t end)>& block);
template <class T>
Csr<T, int64_t> download(Context& ctx, const WideDeviceCsr<T>& A);
/// A's columns as 64-bit indices in a new device buffer (cuSPARSE's 64-bit CSR needs them); the
/// device memory is checked first.
template <class T>
DeviceBuffer<int64_t> widen_columns(Context& ctx, const WideDeviceCsr<T>& A);

template <class T, class I>
Csr<T, I> download(Context& ctx, const DeviceCsr<T, I>& A);
template <class T, class I>
Coo<T, I> download(Context& ctx, const DeviceCoo<T, I>& A);
template <class T, class I>
Ell<T, I> download(Context& ctx, const DeviceEll<T, I>& A);
template <class T, class I>
EllR<T, I> download(Context& ctx, const DeviceEllR<T, I>& A);
template <class T, class I>
Hyb<T, I> download(Context& ctx, const DeviceHyb<T, I>& A);
template <class T>
Dense<T> download(Context& ctx, const DeviceDense<T>& A);

/// A rows × cols dense matrix in device memory that the view does not own. Element (i, j) is at
/// data[i * ld + j] (RowMajor) or data[i + j * ld] (ColMajor); ld >= cols (RowMajor) or >= rows.
template <class T>
struct DenseView {
  T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
  Layout layout = Layout::RowMajor;
};

template <class T>
DenseView<T> view(DeviceDense<T>& D) {
  return {D.data.data(), D.rows, D.cols, D.ld, D.layout};
}
template <class T>
DenseView<const T> view(const DeviceDense<T>& D) {
  return {D.data.data(), D.rows, D.cols, D.ld, D.layout};
}
/// A rows × cols dense matrix with the tightest leading dimension, contents uninitialised.
template <class T>
DeviceDense<T> make_device_dense(int64_t rows, int64_t cols, Layout layout);

}  // namespace spx::cuda
