// rcm_csr's executor (rcm_executor.hpp). Its knobs are csr_param's (coop, block_size, repeat) on
// the renumbered matrix.
#include "cuda/plan/rcm_executor.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "spx/cuda/reorder.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

template <class T>
class RcmCsrExecutor final : public Executor<T> {
 public:
  RcmCsrExecutor(Context& ctx, const MatrixParts<T>& m, const plan::Knobs& knobs) : A_(ctx, *m.host) {
    this->bytes = A_.bytes();
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("rcm_csr refuses {}", plan::to_string(knobs)));
  }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    A_.spmv(ctx, x, y, alpha, beta);
  }
  bool set_knobs(Context& ctx, const plan::Knobs& k) override {
    const auto p = with_csr_knobs(A_.plan().params, k);
    if (!p) return false;
    if (*p != A_.plan().params) A_.plan() = plan_csr_spmv(ctx, A_.permuted(), A_.host_permuted(), *p);
    return true;
  }
  plan::Knobs knobs() const override { return csr_knobs(A_.plan().params); }
  std::string describe() const override {
    return fmt::format("RCM-renumbered ({:.0f} us on the host), {}", A_.host_reorder_us(),
                       to_string(A_.plan().params));
  }

 private:
  RcmCsr<T> A_;
};

}  // namespace

template <class T>
std::unique_ptr<Executor<T>> make_rcm_executor(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                               const plan::KernelRow&, const plan::Knobs& knobs) {
  if (p.op != plan::Operation::Spmv) throw Error("rcm_csr is an SpMV candidate");
  return std::make_unique<RcmCsrExecutor<T>>(ctx, m, knobs);
}

template std::unique_ptr<Executor<float>> make_rcm_executor(Context&, const MatrixParts<float>&,
                                                            const plan::Problem&, const plan::KernelRow&,
                                                            const plan::Knobs&);
template std::unique_ptr<Executor<double>> make_rcm_executor(Context&, const MatrixParts<double>&,
                                                             const plan::Problem&, const plan::KernelRow&,
                                                             const plan::Knobs&);

}  // namespace spx::cuda::detail
