// cuSPARSE's CSR candidates on a matrix with 64-bit row offsets (executor.hpp, build_wide_vendor).
// cuSPARSE 13 refuses 64-bit offsets over 32-bit columns ("different index sizes ... not currently
// supported"), so each executor keeps a copy of the columns widened to 64 bits — 8 bytes a nonzero
// of device memory, and 4 more bytes a nonzero read per product than spx's kernels on the same
// matrix. The offsets and values are the front door's, not copied.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <span>
#include <string>

#include "cuda/plan/executor.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

template <class T>
class WideVendorSpmv final : public Executor<T> {
 public:
  WideVendorSpmv(Context& ctx, const WideDeviceCsr<T>& A, CusparseSpmvAlg alg)
      : A_(&A), cols64_(widen_columns(ctx, A)) {
    // The scratch vectors only serve the preparation; every call re-points the descriptors.
    DeviceBuffer<T> x(static_cast<std::size_t>(A.cols), "planner x"),
        y(static_cast<std::size_t>(A.rows), "planner y");
    op_.emplace(ctx, A, cols64_, alg, std::span<const T>(x.span()), y.span());
    this->bytes = cols64_.bytes() + op_->workspace_bytes();
  }
  void spmv(Context&, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    op_->set_vectors(x, y);
    op_->set_scalars(alpha, beta);
    op_->run();
  }
  std::string describe() const override {
    return fmt::format("64-bit indices, workspace {} bytes", op_->workspace_bytes());
  }

 private:
  const WideDeviceCsr<T>* A_;
  DeviceBuffer<int64_t> cols64_;
  std::optional<CusparseSpmv<T, int64_t>> op_;
};

// As VendorSpmm (executor.cpp): prepared on scratch B and C of the planned L, layout and leading
// dimensions; a call with other leading dimensions rebuilds.
template <class T>
class WideVendorSpmm final : public Executor<T> {
 public:
  WideVendorSpmm(Context& ctx, const WideDeviceCsr<T>& A, CusparseSpmmAlg alg, int64_t L, Layout layout)
      : A_(&A), cols64_(widen_columns(ctx, A)), alg_(alg) {
    const int64_t ldb = planned_ld(A.cols, L, layout), ldc = planned_ld(A.rows, L, layout);
    const auto elements = [&](int64_t rows, int64_t ld) {
      return static_cast<std::size_t>(layout == Layout::RowMajor ? rows * ld : ld * L);
    };
    DeviceBuffer<T> b(elements(A.cols, ldb), "planner B"), c(elements(A.rows, ldc), "planner C");
    build(ctx, {b.data(), A.cols, L, ldb, layout}, {c.data(), A.rows, L, ldc, layout}, T{1}, T{0});
  }
  void spmm(Context& ctx, DenseView<const T> B, DenseView<T> C, T alpha, T beta) override {
    if (B.ld == ldb_ && C.ld == ldc_ && B.cols == cols_ && B.layout == layout_)
      op_->set_operands(B, C, alpha, beta);
    else
      build(ctx, B, C, alpha, beta);
    op_->run();
  }
  std::string describe() const override {
    return fmt::format("64-bit indices, workspace {} bytes", op_->workspace_bytes());
  }

 private:
  void build(Context& ctx, DenseView<const T> B, DenseView<T> C, T alpha, T beta) {
    op_.reset();
    op_.emplace(ctx, *A_, cols64_, alg_, B, C, alpha, beta);
    ldb_ = B.ld;
    ldc_ = C.ld;
    cols_ = B.cols;
    layout_ = B.layout;
    this->bytes = cols64_.bytes() + op_->workspace_bytes();
  }
  const WideDeviceCsr<T>* A_;
  DeviceBuffer<int64_t> cols64_;
  CusparseSpmmAlg alg_;
  int64_t ldb_ = 0, ldc_ = 0, cols_ = 0;
  Layout layout_ = Layout::RowMajor;
  std::optional<CusparseSpmm<T, int64_t>> op_;
};

}  // namespace

template <class T>
std::unique_ptr<Executor<T>> build_wide_vendor(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                               const plan::KernelRow& row) {
  if (std::string_view(row.format) != "csr")
    throw Error(fmt::format("{}: cuSPARSE's {} is not built on 64-bit offsets here", row.name, row.format));
  if (row.op == plan::Operation::Spmv)
    return std::make_unique<WideVendorSpmv<T>>(ctx, *m.wide, *spmv_alg(row.vendor));
  return std::make_unique<WideVendorSpmm<T>>(ctx, *m.wide, *spmm_alg(row.vendor), p.cols_dense,
                                             layout_of(p.layout));
}

template std::unique_ptr<Executor<float>> build_wide_vendor(Context&, const MatrixParts<float>&,
                                                            const plan::Problem&, const plan::KernelRow&);
template std::unique_ptr<Executor<double>> build_wide_vendor(Context&, const MatrixParts<double>&,
                                                             const plan::Problem&, const plan::KernelRow&);

}  // namespace spx::cuda::detail
