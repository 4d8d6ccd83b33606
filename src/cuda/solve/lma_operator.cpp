// The LMA operator (spx/cuda/cg.hpp): element data on the device, y zeroed, then the element
// kernel (lma_kernels.cu) once with atomics or once per colour.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include "cuda/common/check.hpp"
#include "cuda/solve/lma_kernels.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

template <class T>
class LmaOperator final : public LinearOperator<T> {
 public:
  LmaOperator(Context& ctx, const fem::ElementData<T>& E, LmaScatter scatter)
      : p_(E.p),
        m_(E.m),
        elements_(E.elements),
        dofs_(E.dofs),
        colour_begin_(E.colour_begin),
        scatter_(scatter),
        nodes_(to_device(ctx, E.nodes, "lma connectivity")),
        local_(to_device(ctx, E.local, "lma local matrices")) {
    if (E.p < 1 || E.p > 4 || E.m != (E.p + 1) * (E.p + 1))
      throw Error(fmt::format(
          "LMA operator: degree {} with {} nodes per element (need p in 1..4, m = (p+1)^2)", E.p, E.m));
    if (E.nodes.size() != static_cast<std::size_t>(E.m * E.elements) ||
        E.local.size() != static_cast<std::size_t>(fem::packed_size(E.m) * E.elements) ||
        colour_begin_.size() != 5)
      throw Error("LMA operator: element data sizes do not match the element count");
  }
  int64_t size() const override { return dofs_; }
  void apply(Context& ctx, std::span<const T> x, std::span<T> y) override {
    if (static_cast<int64_t>(x.size()) < dofs_ || static_cast<int64_t>(y.size()) < dofs_)
      throw Error(fmt::format("LMA operator: x has {} and y {} entries, need {}", x.size(), y.size(), dofs_));
    cudaStream_t stream = ctx.stream();
    SPX_CUDA_CHECK(cudaMemsetAsync(y.data(), 0, static_cast<std::size_t>(dofs_) * sizeof(T), stream));
    if (scatter_ == LmaScatter::Atomic)
      dispatch<true>(stream, 0, elements_, x.data(), y.data());
    else
      for (std::size_t c = 0; c + 1 < colour_begin_.size(); ++c)
        dispatch<false>(stream, colour_begin_[c], colour_begin_[c + 1], x.data(), y.data());
  }
  std::string name() const override { return scatter_ == LmaScatter::Atomic ? "lma_atomic" : "lma_colour"; }
  std::string details() const override {
    return fmt::format("Q{} elements={} m={} packed symmetric local matrices", p_, elements_, m_);
  }
  std::size_t bytes() const override { return nodes_.bytes() + local_.bytes(); }
  double bytes_per_apply() const override {  // element data once, x gathered once, y zeroed + added once
    return static_cast<double>(bytes()) + 3.0 * static_cast<double>(dofs_) * sizeof(T);
  }

 private:
  template <bool Atomic>
  void dispatch(cudaStream_t stream, int64_t begin, int64_t end, const T* x, T* y) {
    detail::launch_lma<T>(stream, p_, Atomic, elements_, begin, end, nodes_.data(), local_.data(), x, y);
  }

  int p_, m_;
  int64_t elements_, dofs_;
  std::vector<int64_t> colour_begin_;
  LmaScatter scatter_;
  DeviceBuffer<int32_t> nodes_;
  DeviceBuffer<T> local_;
};

}  // namespace

template <class T>
std::unique_ptr<LinearOperator<T>> make_lma_operator(Context& ctx, const fem::ElementData<T>& E,
                                                     LmaScatter scatter) {
  return std::make_unique<LmaOperator<T>>(ctx, E, scatter);
}

template std::unique_ptr<LinearOperator<float>> make_lma_operator<float>(Context&,
                                                                         const fem::ElementData<float>&,
                                                                         LmaScatter);
template std::unique_ptr<LinearOperator<double>> make_lma_operator<double>(Context&,
                                                                           const fem::ElementData<double>&,
                                                                           LmaScatter);

}  // namespace spx::cuda
