// CG's operator through the front door (spx/cuda/sparse_matrix.hpp): the matrix plans its own SpMV
// once, at construction, in Measure mode (the model's top candidates timed, the fastest kept), with
// only bitwise-reproducible candidates so CG's iterates do not change from run to run, and with
// expected_calls set for a solver (setup amortised over many products). After planning a product
// allocates nothing and never synchronises, so the CG batches can be captured into a graph.
//   "csr":  the CSR candidates only (csr_param, csr_vector, segmented sum, cuSPARSE CSR);
//   "auto": every candidate (ELL, ELLR-T, HYB, COO, SELL too).
// A matrix with 64-bit indices is held with the offset width asked for (plan::IndexWidth); with
// 64-bit offsets the candidates are the kernels with a 64-bit path, which the planner picks among.
#include <fmt/format.h>

#include <utility>

#include "spx/cuda/cg.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

template <class T>
class PlannedOperator final : public LinearOperator<T> {
 public:
  PlannedOperator(SparseMatrix<T> M, bool csr_only, int64_t expected_calls)
      : name_(csr_only ? "csr" : "auto"), M_(std::move(M)) {
    plan::Options o;
    o.mode = plan::Mode::Measure;
    o.deterministic_only = true;
    o.expected_calls = expected_calls;
    o.tuning_cache = "-";
    if (csr_only) o.formats = {"csr"};  // every CSR candidate of the catalogue, spx's and cuSPARSE's
    const plan::Report& r = M_.plan_spmv(o);
    details_ = fmt::format("front door, {} mode, {}-bit offsets: {} ({}) {}", plan::to_string(o.mode),
                           M_.offset_bits(), r.winner().kernel, r.winner().owner, r.winner().params);
  }
  int64_t size() const override { return M_.rows(); }
  void apply(Context& ctx, std::span<const T> x, std::span<T> y) override { spmv(ctx, M_, x, y); }
  std::string name() const override { return name_; }
  std::string details() const override { return details_; }
  // The CSR as held (32- or 64-bit offsets); a plan's own formats are not counted.
  std::size_t bytes() const override { return M_.device_bytes(); }
  double bytes_per_apply() const override {  // CSR's minimum traffic: matrix once, x once, y once
    return static_cast<double>(M_.device_bytes()) + 2.0 * static_cast<double>(M_.rows()) * sizeof(T);
  }

 private:
  std::string name_;
  std::string details_;
  SparseMatrix<T> M_;
};

void require_square(int64_t rows, int64_t cols, bool csr_only) {
  if (rows != cols)
    throw Error(
        fmt::format("{} operator: matrix is {} x {}, not square", csr_only ? "CSR" : "planned", rows, cols));
}

}  // namespace

template <class T>
std::unique_ptr<LinearOperator<T>> make_planned_operator(Context& ctx, const Csr<T, int32_t>& A,
                                                         bool csr_only, int64_t expected_calls) {
  require_square(A.rows, A.cols, csr_only);
  return std::make_unique<PlannedOperator<T>>(SparseMatrix<T>(ctx, A), csr_only, expected_calls);
}

template <class T>
std::unique_ptr<LinearOperator<T>> make_planned_operator(Context& ctx, Csr<T, int64_t> A,
                                                         plan::IndexWidth width, bool csr_only,
                                                         int64_t expected_calls) {
  require_square(A.rows, A.cols, csr_only);
  return std::make_unique<PlannedOperator<T>>(SparseMatrix<T>(ctx, std::move(A), width), csr_only,
                                              expected_calls);
}

template std::unique_ptr<LinearOperator<float>> make_planned_operator<float>(Context&,
                                                                             const Csr<float, int32_t>&, bool,
                                                                             int64_t);
template std::unique_ptr<LinearOperator<double>> make_planned_operator<double>(Context&,
                                                                               const Csr<double, int32_t>&,
                                                                               bool, int64_t);
template std::unique_ptr<LinearOperator<float>> make_planned_operator<float>(Context&, Csr<float, int64_t>,
                                                                             plan::IndexWidth, bool, int64_t);
template std::unique_ptr<LinearOperator<double>> make_planned_operator<double>(Context&, Csr<double, int64_t>,
                                                                               plan::IndexWidth, bool,
                                                                               int64_t);

}  // namespace spx::cuda
