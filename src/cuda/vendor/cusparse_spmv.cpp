// cuSPARSE SpMV baselines as prepared objects: descriptors, workspace and preprocessing once in
// the constructor; run() is the cusparseSpMV call alone.
#include <fmt/format.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "cuda/common/check.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "cuda/vendor/cusparse_types.hpp"
#include "plan/catalogue.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::cuda {

// The catalogue row's name of the algorithm (plan/catalogue.cpp: the only place it is written).
const char* kernel_name(CusparseSpmvAlg alg) {
  const plan::VendorAlg v = [&] {
    switch (alg) {
      case CusparseSpmvAlg::CsrAlg1:
        return plan::VendorAlg::CsrAlg1;
      case CusparseSpmvAlg::CsrAlg2:
        return plan::VendorAlg::CsrAlg2;
      case CusparseSpmvAlg::CooAlg1:
        return plan::VendorAlg::CooAlg1;
      case CusparseSpmvAlg::CooAlg2:
        return plan::VendorAlg::CooAlg2;
      case CusparseSpmvAlg::SellAlg1:
        return plan::VendorAlg::SellAlg1;
    }
    return plan::VendorAlg::None;
  }();
  for (const plan::KernelRow& r : plan::catalogue())
    if (!r.spmm() && r.vendor == v && v != plan::VendorAlg::None) return r.name;
  return "cusparse_unknown";
}

namespace {

cusparseSpMVAlg_t to_cusparse(CusparseSpmvAlg alg) {
  switch (alg) {
    case CusparseSpmvAlg::CsrAlg1:
      return CUSPARSE_SPMV_CSR_ALG1;
    case CusparseSpmvAlg::CsrAlg2:
      return CUSPARSE_SPMV_CSR_ALG2;
    case CusparseSpmvAlg::CooAlg1:
      return CUSPARSE_SPMV_COO_ALG1;
    case CusparseSpmvAlg::CooAlg2:
      return CUSPARSE_SPMV_COO_ALG2;
    case CusparseSpmvAlg::SellAlg1:
      return CUSPARSE_SPMV_SELL_ALG1;
  }
  return CUSPARSE_SPMV_ALG_DEFAULT;
}

void require_alg(CusparseSpmvAlg alg, bool fits, const char* format) {
  if (!fits) throw Error(fmt::format("{} does not run on a {} matrix", kernel_name(alg), format));
}

}  // namespace

template <class T, class I>
struct CusparseSpmv<T, I>::Impl {
  Context* ctx = nullptr;
  CusparseSpmvAlg alg{};
  int64_t rows = 0, cols = 0, nnz = 0;
  T alpha{}, beta{};
  T* y = nullptr;
  cusparseConstSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vec_x = nullptr;  // non-const descriptor so set_vectors can repoint it
  cusparseDnVecDescr_t vec_y = nullptr;
  DeviceBuffer<std::byte> workspace;

  ~Impl() {
    if (mat != nullptr) cusparseDestroySpMat(mat);
    if (vec_x != nullptr) cusparseDestroyDnVec(vec_x);
    if (vec_y != nullptr) cusparseDestroyDnVec(vec_y);
  }

  // cuSPARSE is asked only about products with at least one nonzero; the rest is y = beta*y.
  bool degenerate() const { return rows == 0 || cols == 0 || nnz == 0; }

  // Called once the matrix descriptor exists (or the product is degenerate).
  void prepare(std::span<const T> x, std::span<T> y_span) {
    check_spmv_operands(kernel_name(alg), rows, cols, x, y_span);
    y = y_span.data();
    if (degenerate()) return;
    // cuSPARSE never writes x; the const_cast only lets one descriptor type serve both vectors.
    SPX_CUSPARSE_CHECK(cusparseCreateDnVec(&vec_x, cols, const_cast<T*>(x.data()), cuda_data_type<T>()));
    SPX_CUSPARSE_CHECK(cusparseCreateDnVec(&vec_y, rows, y_span.data(), cuda_data_type<T>()));
    cusparseHandle_t h = ctx->cusparse();
    std::size_t bytes = 0;
    SPX_CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vec_x, &beta,
                                               vec_y, cuda_data_type<T>(), to_cusparse(alg), &bytes));
    workspace = DeviceBuffer<std::byte>(bytes, kernel_name(alg));
    // Preprocessing (where an algorithm has it) analyses the matrix once so run() does not; the
    // same buffer must then be passed to every cusparseSpMV. Algorithms without it say
    // NOT_SUPPORTED, which only means there is nothing to precompute.
    const cusparseStatus_t s =
        cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vec_x, &beta, vec_y,
                                cuda_data_type<T>(), to_cusparse(alg), workspace.data());
    if (s != CUSPARSE_STATUS_SUCCESS && s != CUSPARSE_STATUS_NOT_SUPPORTED)
      detail::throw_cusparse_error(s, "cusparseSpMV_preprocess", __FILE__, __LINE__);
  }

  void run() {
    if (rows == 0) return;
    if (degenerate()) return scale_in_place(*ctx, y, static_cast<std::size_t>(rows), beta);
    SPX_CUSPARSE_CHECK(cusparseSpMV(ctx->cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vec_x,
                                    &beta, vec_y, cuda_data_type<T>(), to_cusparse(alg), workspace.data()));
  }
};

template <class T, class I>
CusparseSpmv<T, I>::CusparseSpmv(Context& ctx, const DeviceCsr<T, I>& A, CusparseSpmvAlg alg,
                                 std::span<const T> x, std::span<T> y, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  require_alg(alg, alg == CusparseSpmvAlg::CsrAlg1 || alg == CusparseSpmvAlg::CsrAlg2, "CSR");
  impl_->ctx = &ctx;
  impl_->alg = alg;
  impl_->rows = A.rows;
  impl_->cols = A.cols;
  impl_->nnz = A.nnz;
  impl_->alpha = alpha;
  impl_->beta = beta;
  if (!impl_->degenerate())
    SPX_CUSPARSE_CHECK(cusparseCreateConstCsr(
        &impl_->mat, A.rows, A.cols, A.nnz, A.row_ptr.data(), A.col_idx.data(), A.values.data(),
        cusparse_index_type<I>(), cusparse_index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<T>()));
  impl_->prepare(x, y);
}

template <class T, class I>
CusparseSpmv<T, I>::CusparseSpmv(Context& ctx, const WideDeviceCsr<T>& A,
                                 const DeviceBuffer<int64_t>& col_idx64, CusparseSpmvAlg alg,
                                 std::span<const T> x, std::span<T> y, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  if constexpr (!std::is_same_v<I, int64_t>)
    throw Error("cuSPARSE on 64-bit row offsets takes 64-bit columns: CusparseSpmv<T, int64_t>");
  require_alg(alg, alg == CusparseSpmvAlg::CsrAlg1 || alg == CusparseSpmvAlg::CsrAlg2, "CSR");
  if (col_idx64.size() != static_cast<std::size_t>(A.nnz))
    throw Error(fmt::format("{}: {} widened columns for a matrix of {} nonzeros", kernel_name(alg),
                            col_idx64.size(), A.nnz));
  impl_->ctx = &ctx;
  impl_->alg = alg;
  impl_->rows = A.rows;
  impl_->cols = A.cols;
  impl_->nnz = A.nnz;
  impl_->alpha = alpha;
  impl_->beta = beta;
  if (!impl_->degenerate())
    SPX_CUSPARSE_CHECK(cusparseCreateConstCsr(
        &impl_->mat, A.rows, A.cols, A.nnz, A.row_ptr.data(), col_idx64.data(), A.values.data(),
        CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<T>()));
  impl_->prepare(x, y);
}

template <class T, class I>
CusparseSpmv<T, I>::CusparseSpmv(Context& ctx, const DeviceCoo<T, I>& A, CusparseSpmvAlg alg,
                                 std::span<const T> x, std::span<T> y, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  require_alg(alg, alg == CusparseSpmvAlg::CooAlg1 || alg == CusparseSpmvAlg::CooAlg2, "COO");
  impl_->ctx = &ctx;
  impl_->alg = alg;
  impl_->rows = A.rows;
  impl_->cols = A.cols;
  impl_->nnz = A.nnz;
  impl_->alpha = alpha;
  impl_->beta = beta;
  if (!impl_->degenerate())
    SPX_CUSPARSE_CHECK(cusparseCreateConstCoo(&impl_->mat, A.rows, A.cols, A.nnz, A.row_idx.data(),
                                              A.col_idx.data(), A.values.data(), cusparse_index_type<I>(),
                                              CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<T>()));
  impl_->prepare(x, y);
}

template <class T, class I>
CusparseSpmv<T, I>::CusparseSpmv(Context& ctx, const DeviceSell<T, I>& A, CusparseSpmvAlg alg,
                                 std::span<const T> x, std::span<T> y, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  require_alg(alg, alg == CusparseSpmvAlg::SellAlg1, "SELL");
  impl_->ctx = &ctx;
  impl_->alg = alg;
  impl_->rows = A.rows;
  impl_->cols = A.cols;
  impl_->nnz = A.nnz;
  impl_->alpha = alpha;
  impl_->beta = beta;
  if (!impl_->degenerate())
    SPX_CUSPARSE_CHECK(cusparseCreateConstSlicedEll(
        &impl_->mat, A.rows, A.cols, A.nnz, A.values_size, A.slice_size, A.slice_offsets.data(),
        A.col_idx.data(), A.values.data(), cusparse_index_type<I>(), cusparse_index_type<I>(),
        CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<T>()));
  impl_->prepare(x, y);
}

template <class T, class I>
CusparseSpmv<T, I>::~CusparseSpmv() = default;
template <class T, class I>
CusparseSpmv<T, I>::CusparseSpmv(CusparseSpmv&&) noexcept = default;
template <class T, class I>
CusparseSpmv<T, I>& CusparseSpmv<T, I>::operator=(CusparseSpmv&&) noexcept = default;

template <class T, class I>
void CusparseSpmv<T, I>::run() {
  impl_->run();
}

template <class T, class I>
void CusparseSpmv<T, I>::set_vectors(std::span<const T> x, std::span<T> y) {
  check_spmv_operands(kernel_name(impl_->alg), impl_->rows, impl_->cols, x, y);
  impl_->y = y.data();
  if (impl_->degenerate()) return;
  SPX_CUSPARSE_CHECK(cusparseDnVecSetValues(impl_->vec_x, const_cast<T*>(x.data())));
  SPX_CUSPARSE_CHECK(cusparseDnVecSetValues(impl_->vec_y, y.data()));
}

template <class T, class I>
void CusparseSpmv<T, I>::set_scalars(T alpha, T beta) {
  impl_->alpha = alpha;
  impl_->beta = beta;
}

template <class T, class I>
CusparseSpmvAlg CusparseSpmv<T, I>::alg() const {
  return impl_->alg;
}

template <class T, class I>
std::size_t CusparseSpmv<T, I>::workspace_bytes() const {
  return impl_->workspace.bytes();
}

template class CusparseSpmv<float, int32_t>;
template class CusparseSpmv<double, int32_t>;
template class CusparseSpmv<float, int64_t>;
template class CusparseSpmv<double, int64_t>;

}  // namespace spx::cuda
