// cuSPARSE SpMM baselines as prepared objects (see cusparse_spmv.cpp for the pattern).
#include <fmt/format.h>

#include <cstdint>
#include <type_traits>

#include "cuda/common/check.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/vendor/cusparse_types.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::cuda {

const char* kernel_name(CusparseSpmmAlg alg) {
  switch (alg) {
    case CusparseSpmmAlg::CsrAlg1:
      return "cusparse_spmm_csr_alg1";
    case CusparseSpmmAlg::CsrAlg2:
      return "cusparse_spmm_csr_alg2";
    case CusparseSpmmAlg::CsrAlg3:
      return "cusparse_spmm_csr_alg3";
    case CusparseSpmmAlg::CooAlg1:
      return "cusparse_spmm_coo_alg1";
    case CusparseSpmmAlg::CooAlg2:
      return "cusparse_spmm_coo_alg2";
    case CusparseSpmmAlg::CooAlg3:
      return "cusparse_spmm_coo_alg3";
    case CusparseSpmmAlg::CooAlg4:
      return "cusparse_spmm_coo_alg4";
  }
  return "cusparse_spmm_unknown";
}

// From the cusparseSpMM algorithm notes: COO_ALG2 and COO_ALG3 take column-major dense
// operands only, COO_ALG4 row-major only; the CSR algorithms and COO_ALG1 take either.
bool cusparse_spmm_supports(CusparseSpmmAlg alg, Layout layout) {
  switch (alg) {
    case CusparseSpmmAlg::CooAlg2:
    case CusparseSpmmAlg::CooAlg3:
      return layout == Layout::ColMajor;
    case CusparseSpmmAlg::CooAlg4:
      return layout == Layout::RowMajor;
    default:
      return true;
  }
}

namespace {

cusparseSpMMAlg_t to_cusparse(CusparseSpmmAlg alg) {
  switch (alg) {
    case CusparseSpmmAlg::CsrAlg1:
      return CUSPARSE_SPMM_CSR_ALG1;
    case CusparseSpmmAlg::CsrAlg2:
      return CUSPARSE_SPMM_CSR_ALG2;
    case CusparseSpmmAlg::CsrAlg3:
      return CUSPARSE_SPMM_CSR_ALG3;
    case CusparseSpmmAlg::CooAlg1:
      return CUSPARSE_SPMM_COO_ALG1;
    case CusparseSpmmAlg::CooAlg2:
      return CUSPARSE_SPMM_COO_ALG2;
    case CusparseSpmmAlg::CooAlg3:
      return CUSPARSE_SPMM_COO_ALG3;
    case CusparseSpmmAlg::CooAlg4:
      return CUSPARSE_SPMM_COO_ALG4;
  }
  return CUSPARSE_SPMM_ALG_DEFAULT;
}

bool is_csr_alg(CusparseSpmmAlg alg) {
  return alg == CusparseSpmmAlg::CsrAlg1 || alg == CusparseSpmmAlg::CsrAlg2 ||
         alg == CusparseSpmmAlg::CsrAlg3;
}

cusparseOrder_t to_cusparse(Layout layout) {
  return layout == Layout::ColMajor ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW;
}

}  // namespace

template <class T, class I>
struct CusparseSpmm<T, I>::Impl {
  Context* ctx = nullptr;
  CusparseSpmmAlg alg{};
  int64_t rows = 0, cols = 0, nnz = 0;
  T alpha{}, beta{};
  T* c_data = nullptr;
  int64_t c_inner = 0, c_outer = 0, c_ld = 0;  // C as strided runs, for the degenerate case
  cusparseConstSpMatDescr_t mat = nullptr;
  cusparseDnMatDescr_t mat_b = nullptr;  // non-const so set_operands can repoint it (never written)
  cusparseDnMatDescr_t mat_c = nullptr;
  DeviceBuffer<std::byte> workspace;

  ~Impl() {
    if (mat != nullptr) cusparseDestroySpMat(mat);
    if (mat_b != nullptr) cusparseDestroyDnMat(mat_b);
    if (mat_c != nullptr) cusparseDestroyDnMat(mat_c);
  }

  bool degenerate(int64_t l) const { return rows == 0 || cols == 0 || nnz == 0 || l == 0; }

  int64_t b_ld = 0, c_ld_planned = 0, planned_cols = 0;
  Layout planned_layout = Layout::RowMajor;

  void check(DenseView<const T> B, DenseView<T> C) const {
    const char* who = kernel_name(alg);
    if (B.rows != cols) throw Error(fmt::format("{}: B has {} rows but A has {} columns", who, B.rows, cols));
    if (C.rows != rows) throw Error(fmt::format("{}: C has {} rows but A has {} rows", who, C.rows, rows));
    if (B.cols != C.cols) throw Error(fmt::format("{}: B has {} columns but C has {}", who, B.cols, C.cols));
    if (B.layout != C.layout) throw Error(fmt::format("{}: B and C must have the same layout", who));
    if (!cusparse_spmm_supports(alg, B.layout))
      throw Error(fmt::format("{} does not take {} dense matrices", who,
                              B.layout == Layout::ColMajor ? "column-major" : "row-major"));
    if (static_cast<const void*>(B.data) == static_cast<const void*>(C.data))
      throw Error(fmt::format("{}: B and C are the same matrix", who));
    // Measured on H100 with cuSPARSE 12.6 (CUDA 13.0): CSR_ALG3 on row-major f32 operands whose
    // rows start 4 or 8 bytes off a 16-byte boundary (ld = 9 or 10 floats) dies with a sticky
    // "misaligned address" fault that kills the whole CUDA context; ld = 8 or 12 runs correctly,
    // and so do all other algorithms at any ld. Refuse it here with an error a caller can act on.
    if (alg == CusparseSpmmAlg::CsrAlg3 && B.layout == Layout::RowMajor)
      for (const auto& [name, ld] : {std::pair<const char*, int64_t>{"B", B.ld}, {"C", C.ld}})
        if ((static_cast<std::size_t>(ld) * sizeof(T)) % 16 != 0)
          throw Error(
              fmt::format("{}: row-major {} has ld = {} ({} bytes), but this algorithm needs rows that start "
                          "on 16-byte boundaries: pad ld to a multiple of {}",
                          who, name, ld, static_cast<std::size_t>(ld) * sizeof(T), 16 / sizeof(T)));
  }

  void prepare(DenseView<const T> B, DenseView<T> C) {
    check(B, C);
    b_ld = B.ld;
    c_ld_planned = C.ld;
    planned_cols = B.cols;
    planned_layout = B.layout;
    c_data = C.data;
    const bool col_major = C.layout == Layout::ColMajor;
    c_inner = col_major ? C.rows : C.cols;
    c_outer = col_major ? C.cols : C.rows;
    c_ld = C.ld;
    if (degenerate(B.cols)) return;
    SPX_CUSPARSE_CHECK(cusparseCreateDnMat(&mat_b, B.rows, B.cols, B.ld, const_cast<T*>(B.data),
                                           cuda_data_type<T>(), to_cusparse(B.layout)));
    SPX_CUSPARSE_CHECK(cusparseCreateDnMat(&mat_c, C.rows, C.cols, C.ld, C.data, cuda_data_type<T>(),
                                           to_cusparse(C.layout)));
    cusparseHandle_t h = ctx->cusparse();
    std::size_t bytes = 0;
    SPX_CUSPARSE_CHECK(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, mat_b, &beta,
                                               mat_c, cuda_data_type<T>(), to_cusparse(alg), &bytes));
    workspace = DeviceBuffer<std::byte>(bytes, kernel_name(alg));
    // Effective for CSR_ALG1/ALG3 per the cuSPARSE notes; harmless (or NOT_SUPPORTED) elsewhere.
    const cusparseStatus_t s = cusparseSpMM_preprocess(
        h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, mat_b, &beta,
        mat_c, cuda_data_type<T>(), to_cusparse(alg), workspace.data());
    if (s != CUSPARSE_STATUS_SUCCESS && s != CUSPARSE_STATUS_NOT_SUPPORTED)
      detail::throw_cusparse_error(s, "cusparseSpMM_preprocess", __FILE__, __LINE__);
  }

  void run() {
    if (mat_c == nullptr) return scale_in_place(*ctx, c_data, c_inner, c_outer, c_ld, beta);
    SPX_CUSPARSE_CHECK(cusparseSpMM(ctx->cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, mat_b, &beta, mat_c,
                                    cuda_data_type<T>(), to_cusparse(alg), workspace.data()));
  }
};

template <class T, class I>
CusparseSpmm<T, I>::CusparseSpmm(Context& ctx, const DeviceCsr<T, I>& A, CusparseSpmmAlg alg,
                                 const DeviceDense<T>& B, DeviceDense<T>& C, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  if (!is_csr_alg(alg)) throw Error(fmt::format("{} does not run on a CSR matrix", kernel_name(alg)));
  impl_->ctx = &ctx;
  impl_->alg = alg;
  impl_->rows = A.rows;
  impl_->cols = A.cols;
  impl_->nnz = A.nnz;
  impl_->alpha = alpha;
  impl_->beta = beta;
  if (!impl_->degenerate(B.cols))
    SPX_CUSPARSE_CHECK(cusparseCreateConstCsr(
        &impl_->mat, A.rows, A.cols, A.nnz, A.row_ptr.data(), A.col_idx.data(), A.values.data(),
        cusparse_index_type<I>(), cusparse_index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<T>()));
  impl_->prepare(view(B), view(C));
}

template <class T, class I>
CusparseSpmm<T, I>::CusparseSpmm(Context& ctx, const DeviceCoo<T, I>& A, CusparseSpmmAlg alg,
                                 const DeviceDense<T>& B, DeviceDense<T>& C, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  if (is_csr_alg(alg)) throw Error(fmt::format("{} does not run on a COO matrix", kernel_name(alg)));
  impl_->ctx = &ctx;
  impl_->alg = alg;
  impl_->rows = A.rows;
  impl_->cols = A.cols;
  impl_->nnz = A.nnz;
  impl_->alpha = alpha;
  impl_->beta = beta;
  if (!impl_->degenerate(B.cols))
    SPX_CUSPARSE_CHECK(cusparseCreateConstCoo(&impl_->mat, A.rows, A.cols, A.nnz, A.row_idx.data(),
                                              A.col_idx.data(), A.values.data(), cusparse_index_type<I>(),
                                              CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<T>()));
  impl_->prepare(view(B), view(C));
}

template <class T, class I>
CusparseSpmm<T, I>::CusparseSpmm(Context& ctx, const DeviceCsr<T, I>& A, CusparseSpmmAlg alg,
                                 DenseView<const T> B, DenseView<T> C, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  if (!is_csr_alg(alg)) throw Error(fmt::format("{} does not run on a CSR matrix", kernel_name(alg)));
  impl_->ctx = &ctx;
  impl_->alg = alg;
  impl_->rows = A.rows;
  impl_->cols = A.cols;
  impl_->nnz = A.nnz;
  impl_->alpha = alpha;
  impl_->beta = beta;
  if (!impl_->degenerate(B.cols))
    SPX_CUSPARSE_CHECK(cusparseCreateConstCsr(
        &impl_->mat, A.rows, A.cols, A.nnz, A.row_ptr.data(), A.col_idx.data(), A.values.data(),
        cusparse_index_type<I>(), cusparse_index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<T>()));
  impl_->prepare(B, C);
}

template <class T, class I>
CusparseSpmm<T, I>::CusparseSpmm(Context& ctx, const WideDeviceCsr<T>& A,
                                 const DeviceBuffer<int64_t>& col_idx64, CusparseSpmmAlg alg,
                                 DenseView<const T> B, DenseView<T> C, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  if constexpr (!std::is_same_v<I, int64_t>)
    throw Error("cuSPARSE on 64-bit row offsets takes 64-bit columns: CusparseSpmm<T, int64_t>");
  if (!is_csr_alg(alg)) throw Error(fmt::format("{} does not run on a CSR matrix", kernel_name(alg)));
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
  if (!impl_->degenerate(B.cols))
    SPX_CUSPARSE_CHECK(cusparseCreateConstCsr(
        &impl_->mat, A.rows, A.cols, A.nnz, A.row_ptr.data(), col_idx64.data(), A.values.data(),
        CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<T>()));
  impl_->prepare(B, C);
}

template <class T, class I>
CusparseSpmm<T, I>::CusparseSpmm(Context& ctx, const DeviceCoo<T, I>& A, CusparseSpmmAlg alg,
                                 DenseView<const T> B, DenseView<T> C, T alpha, T beta)
    : impl_(std::make_unique<Impl>()) {
  if (is_csr_alg(alg)) throw Error(fmt::format("{} does not run on a COO matrix", kernel_name(alg)));
  impl_->ctx = &ctx;
  impl_->alg = alg;
  impl_->rows = A.rows;
  impl_->cols = A.cols;
  impl_->nnz = A.nnz;
  impl_->alpha = alpha;
  impl_->beta = beta;
  if (!impl_->degenerate(B.cols))
    SPX_CUSPARSE_CHECK(cusparseCreateConstCoo(&impl_->mat, A.rows, A.cols, A.nnz, A.row_idx.data(),
                                              A.col_idx.data(), A.values.data(), cusparse_index_type<I>(),
                                              CUSPARSE_INDEX_BASE_ZERO, cuda_data_type<T>()));
  impl_->prepare(B, C);
}

template <class T, class I>
void CusparseSpmm<T, I>::set_operands(DenseView<const T> B, DenseView<T> C, T alpha, T beta) {
  Impl& m = *impl_;
  m.check(B, C);
  if (B.cols != m.planned_cols || B.layout != m.planned_layout || B.ld != m.b_ld || C.ld != m.c_ld_planned)
    throw Error(fmt::format("{}: prepared for {} columns ({}, ld {} and {}), given {} ({}, ld {} and {})",
                            kernel_name(m.alg), m.planned_cols,
                            m.planned_layout == Layout::RowMajor ? "row" : "col", m.b_ld, m.c_ld_planned,
                            B.cols, B.layout == Layout::RowMajor ? "row" : "col", B.ld, C.ld));
  m.alpha = alpha;
  m.beta = beta;
  m.c_data = C.data;
  if (m.mat_c == nullptr) return;
  SPX_CUSPARSE_CHECK(cusparseDnMatSetValues(m.mat_b, const_cast<T*>(B.data)));
  SPX_CUSPARSE_CHECK(cusparseDnMatSetValues(m.mat_c, C.data));
}

template <class T, class I>
CusparseSpmm<T, I>::~CusparseSpmm() = default;
template <class T, class I>
CusparseSpmm<T, I>::CusparseSpmm(CusparseSpmm&&) noexcept = default;
template <class T, class I>
CusparseSpmm<T, I>& CusparseSpmm<T, I>::operator=(CusparseSpmm&&) noexcept = default;

template <class T, class I>
void CusparseSpmm<T, I>::run() {
  impl_->run();
}

template <class T, class I>
CusparseSpmmAlg CusparseSpmm<T, I>::alg() const {
  return impl_->alg;
}

template <class T, class I>
std::size_t CusparseSpmm<T, I>::workspace_bytes() const {
  return impl_->workspace.bytes();
}

template class CusparseSpmm<float, int32_t>;
template class CusparseSpmm<double, int32_t>;
template class CusparseSpmm<float, int64_t>;
template class CusparseSpmm<double, int64_t>;

}  // namespace spx::cuda
