// cuSPARSE's BSR SpMV (spx/cuda/spmv_bsr.hpp): the generic cusparseSpMV on a cusparseCreateConstBsr
// descriptor (row-major blocks, CUSPARSE_SPMV_BSR_ALG1), prepared once like CusparseSpmv. The
// legacy cusparse<t>bsrmv is left out: the generic API is the one CUDA 13 keeps developing.
#include <fmt/format.h>

#include <cstdint>
#include <utility>

#include "cuda/common/check.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "cuda/vendor/cusparse_types.hpp"
#include "plan/catalogue.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/spmv_bsr.hpp"

namespace spx::cuda {

namespace {
// The catalogue row's name (plan/catalogue.cpp: the only place it is written).
// Looked up on first use, not at static initialisation (the catalogue is another file's static).
const char* bsr_kernel_name() {
  static const char* const name = [] {
    for (const plan::KernelRow& r : plan::catalogue())
      if (r.vendor == plan::VendorAlg::BsrAlg1) return r.name;
    return "cusparse_bsr_alg1";
  }();
  return name;
}
}  // namespace

template <class T>
struct CusparseBsrSpmv<T>::Impl {
  Context* ctx = nullptr;
  int64_t rows = 0, cols = 0, blocks = 0;
  int64_t padded_rows = 0, padded_cols = 0;  // block_rows * b, block_cols * b
  T alpha{}, beta{};
  const T* x = nullptr;
  T* y = nullptr;
  cusparseConstSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vec_x = nullptr;
  cusparseDnVecDescr_t vec_y = nullptr;
  DeviceBuffer<std::byte> workspace;
  // Whole-block copies of x and y when cols or rows overhang the last block (else empty).
  DeviceBuffer<T> x_pad, y_pad;

  ~Impl() {
    if (mat != nullptr) cusparseDestroySpMat(mat);
    if (vec_x != nullptr) cusparseDestroyDnVec(vec_x);
    if (vec_y != nullptr) cusparseDestroyDnVec(vec_y);
  }
  bool degenerate() const { return rows == 0 || cols == 0 || blocks == 0; }
  bool pad_x() const { return padded_cols != cols; }
  bool pad_y() const { return padded_rows != rows; }

  // The vectors cuSPARSE sees: the caller's, or the padded copies.
  void point_vectors() {
    T* vx = pad_x() ? x_pad.data() : const_cast<T*>(x);  // cuSPARSE never writes x
    T* vy = pad_y() ? y_pad.data() : y;
    if (vec_x == nullptr) {
      SPX_CUSPARSE_CHECK(cusparseCreateDnVec(&vec_x, padded_cols, vx, cuda_data_type<T>()));
      SPX_CUSPARSE_CHECK(cusparseCreateDnVec(&vec_y, padded_rows, vy, cuda_data_type<T>()));
    } else {
      SPX_CUSPARSE_CHECK(cusparseDnVecSetValues(vec_x, vx));
      SPX_CUSPARSE_CHECK(cusparseDnVecSetValues(vec_y, vy));
    }
  }

  void run() {
    if (rows == 0) return;
    if (degenerate()) return scale_in_place(*ctx, y, static_cast<std::size_t>(rows), beta);
    if (pad_x())
      copy_device_to_device_async(*ctx, x_pad.data(), x, static_cast<std::size_t>(cols) * sizeof(T));
    if (pad_y() && beta != T{0})
      copy_device_to_device_async(*ctx, y_pad.data(), y, static_cast<std::size_t>(rows) * sizeof(T));
    SPX_CUSPARSE_CHECK(cusparseSpMV(ctx->cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vec_x,
                                    &beta, vec_y, cuda_data_type<T>(), CUSPARSE_SPMV_BSR_ALG1,
                                    workspace.data()));
    if (pad_y())
      copy_device_to_device_async(*ctx, y, y_pad.data(), static_cast<std::size_t>(rows) * sizeof(T));
  }
};

template <class T>
CusparseBsrSpmv<T>::CusparseBsrSpmv(Context& ctx, const DeviceBsr<T, int32_t>& A, std::span<const T> x,
                                    std::span<T> y, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  check_spmv_operands(bsr_kernel_name(), A.rows, A.cols, x, y);
  Impl& m = *impl_;
  m.ctx = &ctx;
  m.rows = A.rows;
  m.cols = A.cols;
  m.blocks = A.blocks;
  m.padded_rows = int64_t{A.block_rows} * A.block;
  m.padded_cols = int64_t{A.block_cols} * A.block;
  m.alpha = alpha;
  m.beta = beta;
  m.x = x.data();
  m.y = y.data();
  if (m.degenerate()) return;
  if (m.pad_x()) {
    m.x_pad = DeviceBuffer<T>(static_cast<std::size_t>(m.padded_cols), "cusparse_bsr padded x");
    // The overhang stays zero: the copies in run() fill the first cols entries only.
    scale_in_place(ctx, m.x_pad.data(), m.x_pad.size(), T{0});
  }
  if (m.pad_y()) {
    m.y_pad = DeviceBuffer<T>(static_cast<std::size_t>(m.padded_rows), "cusparse_bsr padded y");
    scale_in_place(ctx, m.y_pad.data(), m.y_pad.size(), T{0});
  }
  SPX_CUSPARSE_CHECK(cusparseCreateConstBsr(&m.mat, A.block_rows, A.block_cols, A.blocks, A.block, A.block,
                                            A.row_ptr.data(), A.col_idx.data(), A.values.data(),
                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                            cuda_data_type<T>(), CUSPARSE_ORDER_ROW));
  m.point_vectors();
  std::size_t bytes = 0;
  SPX_CUSPARSE_CHECK(cusparseSpMV_bufferSize(ctx.cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &m.alpha,
                                             m.mat, m.vec_x, &m.beta, m.vec_y, cuda_data_type<T>(),
                                             CUSPARSE_SPMV_BSR_ALG1, &bytes));
  m.workspace = DeviceBuffer<std::byte>(bytes, bsr_kernel_name());
  const cusparseStatus_t s = cusparseSpMV_preprocess(
      ctx.cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &m.alpha, m.mat, m.vec_x, &m.beta, m.vec_y,
      cuda_data_type<T>(), CUSPARSE_SPMV_BSR_ALG1, m.workspace.data());
  if (s != CUSPARSE_STATUS_SUCCESS && s != CUSPARSE_STATUS_NOT_SUPPORTED)
    detail::throw_cusparse_error(s, "cusparseSpMV_preprocess", __FILE__, __LINE__);
}

template <class T>
CusparseBsrSpmv<T>::~CusparseBsrSpmv() = default;
template <class T>
CusparseBsrSpmv<T>::CusparseBsrSpmv(CusparseBsrSpmv&&) noexcept = default;
template <class T>
CusparseBsrSpmv<T>& CusparseBsrSpmv<T>::operator=(CusparseBsrSpmv&&) noexcept = default;

template <class T>
void CusparseBsrSpmv<T>::run() {
  impl_->run();
}

template <class T>
void CusparseBsrSpmv<T>::set_vectors(std::span<const T> x, std::span<T> y) {
  check_spmv_operands(bsr_kernel_name(), impl_->rows, impl_->cols, x, y);
  impl_->x = x.data();
  impl_->y = y.data();
  if (!impl_->degenerate()) impl_->point_vectors();
}

template <class T>
void CusparseBsrSpmv<T>::set_scalars(T alpha, T beta) {
  impl_->alpha = alpha;
  impl_->beta = beta;
}

template <class T>
std::size_t CusparseBsrSpmv<T>::workspace_bytes() const {
  return impl_->workspace.bytes() + impl_->x_pad.bytes() + impl_->y_pad.bytes();
}

template class CusparseBsrSpmv<float>;
template class CusparseBsrSpmv<double>;

}  // namespace spx::cuda
