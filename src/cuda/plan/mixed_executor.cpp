// csr_param_mixed's executor (mixed_executor.hpp). Its knobs are csr_param's.
#include "cuda/plan/mixed_executor.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "cuda/spmv/csr_param_launch.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"
#include "spx/mixed_precision.hpp"

namespace spx::cuda::detail {
namespace {

class CsrParamMixed final : public Executor<double> {
 public:
  CsrParamMixed(Context& ctx, const MatrixParts<double>& m, const plan::Knobs& knobs)
      : m_(m),
        values_(to_device(ctx, round_values_to_float(m.host->values), "csr_param_mixed float values")) {
    this->bytes = values_.bytes();
    plan_ = plan_csr_spmv(ctx, *m.device, *m.host, *m.stats);
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("csr_param_mixed refuses {}", plan::to_string(knobs)));
  }
  void spmv(Context& ctx, std::span<const double> x, std::span<double> y, double alpha,
            double beta) override {
    spmv_csr_mixed(ctx, plan_, *m_.device, std::span<const float>(values_.span()), x, y, alpha, beta);
  }
  bool set_knobs(Context& ctx, const plan::Knobs& k) override {
    const auto p = with_csr_knobs(plan_.params, k);
    if (!p) return false;
    if (*p != plan_.params) plan_ = plan_csr_spmv(ctx, *m_.device, *m_.host, *m_.stats, *p);
    return true;
  }
  plan::Knobs knobs() const override { return csr_knobs(plan_.params); }
  std::string describe() const override {
    return "float values, double x, y and sums; " + to_string(plan_.params);
  }

 private:
  MatrixParts<double> m_;
  DeviceBuffer<float> values_;
  CsrSpmvPlan plan_;
};

}  // namespace

template <class T>
std::unique_ptr<Executor<T>> make_mixed_executor(Context& ctx, const MatrixParts<T>& m,
                                                 const plan::Problem& p, const plan::KernelRow&,
                                                 const plan::Knobs& knobs) {
  if (p.op != plan::Operation::Spmv) throw Error("csr_param_mixed is an SpMV candidate");
  if constexpr (std::is_same_v<T, double>) {
    return std::make_unique<CsrParamMixed>(ctx, m, knobs);
  } else {
    throw Error("csr_param_mixed rounds double values to float: an f32 matrix has nothing to round");
  }
}

template std::unique_ptr<Executor<float>> make_mixed_executor(Context&, const MatrixParts<float>&,
                                                              const plan::Problem&, const plan::KernelRow&,
                                                              const plan::Knobs&);
template std::unique_ptr<Executor<double>> make_mixed_executor(Context&, const MatrixParts<double>&,
                                                               const plan::Problem&, const plan::KernelRow&,
                                                               const plan::Knobs&);

}  // namespace spx::cuda::detail
