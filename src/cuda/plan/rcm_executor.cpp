// rcm_csr's executor (rcm_executor.hpp). Its knobs are csr_param's (coop, block_size, repeat) on
// the renumbered matrix.
#include "cuda/plan/rcm_executor.hpp"

#include <fmt/format.h>

#include <climits>
#include <optional>
#include <string>

#include "spx/cuda/reorder.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

int to_int(int64_t v) { return v < INT_MIN || v > INT_MAX ? -1 : static_cast<int>(v); }

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
    CsrSpmvParams p = A_.plan().params;
    p.repeat = to_int(plan::knob(k, "repeat", p.repeat));
    p.coop = to_int(plan::knob(k, "coop", p.coop));
    p.block_size = to_int(plan::knob(k, "block_size", p.block_size));
    if (!invalid_reason(p).empty()) return false;
    if (p == A_.plan().params) return true;
    A_.plan() = plan_csr_spmv(ctx, A_.permuted(), A_.host_permuted(), p);
    return true;
  }
  plan::Knobs knobs() const override {
    const CsrSpmvParams& p = A_.plan().params;
    return {{"repeat", p.repeat}, {"coop", p.coop}, {"block_size", p.block_size}};
  }
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
