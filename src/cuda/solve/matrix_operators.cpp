// CG's assembled-matrix operators: CSR through the parametrised CSR SpMV and its plan, ELLPACK-R
// through ELLR-T and its rule. Both only enqueue one launch per product (graph-capturable).
#include <fmt/format.h>

#include "plan/catalogue.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/cuda/spmv_formats.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"
#include "spx/stats.hpp"

namespace spx::cuda {
namespace {

template <class T>
void require_square(const Csr<T, int32_t>& A, const char* what) {
  if (A.rows != A.cols)
    throw Error(fmt::format("{} operator: matrix is {} x {}, not square", what, A.rows, A.cols));
}

template <class T>
class CsrOperator final : public LinearOperator<T> {
 public:
  CsrOperator(Context& ctx, const Csr<T, int32_t>& A)
      : dA_(upload(ctx, A)), plan_(plan_csr_spmv(ctx, dA_, A)) {}
  int64_t size() const override { return dA_.rows; }
  void apply(Context& ctx, std::span<const T> x, std::span<T> y) override { spmv_csr(ctx, plan_, dA_, x, y); }
  std::string name() const override { return plan::executor_row(plan::SpxExecutor::CsrParam).name; }
  std::string details() const override { return to_string(plan_.params); }
  std::size_t bytes() const override { return dA_.bytes(); }
  double bytes_per_apply() const override {  // matrix once, x once, y written once
    return static_cast<double>(dA_.bytes()) + 2.0 * static_cast<double>(dA_.rows) * sizeof(T);
  }

 private:
  DeviceCsr<T, int32_t> dA_;
  CsrSpmvPlan plan_;
};

template <class T>
class EllOperator final : public LinearOperator<T> {
 public:
  EllOperator(Context& ctx, const Csr<T, int32_t>& A) : nnz_(A.nnz()) {
    const DeviceCsr<T, int32_t> dA = upload(ctx, A);
    dA_ = to_ellr(ctx, dA);
    config_ = plan::ellr_t_rule(stats(A), ctx.props());
  }
  int64_t size() const override { return dA_.rows; }
  void apply(Context& ctx, std::span<const T> x, std::span<T> y) override {
    spmv_ellr_t(ctx, dA_, x, y, config_);
  }
  std::string name() const override { return "ell"; }
  std::string details() const override {
    return fmt::format("ELLR-T T={} BS={} width={}", config_.threads_per_row, config_.block_size, dA_.width);
  }
  std::size_t bytes() const override { return dA_.bytes(); }
  double bytes_per_apply() const override {  // real entries (padding is skipped), row lengths, x, y
    return static_cast<double>(nnz_) * (sizeof(T) + sizeof(int32_t)) +
           static_cast<double>(dA_.rows) * (sizeof(int32_t) + 2 * sizeof(T));
  }

 private:
  int64_t nnz_;
  DeviceEllR<T, int32_t> dA_;
  EllrTParams config_;
};

}  // namespace

template <class T>
std::unique_ptr<LinearOperator<T>> make_csr_operator(Context& ctx, const Csr<T, int32_t>& A) {
  require_square(A, "CSR");
  return std::make_unique<CsrOperator<T>>(ctx, A);
}

template <class T>
std::unique_ptr<LinearOperator<T>> make_ell_operator(Context& ctx, const Csr<T, int32_t>& A) {
  require_square(A, "ELL");
  return std::make_unique<EllOperator<T>>(ctx, A);
}

template std::unique_ptr<LinearOperator<float>> make_csr_operator<float>(Context&,
                                                                         const Csr<float, int32_t>&);
template std::unique_ptr<LinearOperator<double>> make_csr_operator<double>(Context&,
                                                                           const Csr<double, int32_t>&);
template std::unique_ptr<LinearOperator<float>> make_ell_operator<float>(Context&,
                                                                         const Csr<float, int32_t>&);
template std::unique_ptr<LinearOperator<double>> make_ell_operator<double>(Context&,
                                                                           const Csr<double, int32_t>&);

}  // namespace spx::cuda
