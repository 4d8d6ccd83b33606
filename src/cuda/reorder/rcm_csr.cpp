// RcmCsr (spx/cuda/reorder.hpp): host RCM and permutation, upload, and the three-step product.
#include <fmt/format.h>

#include <chrono>
#include <utility>

#include "cuda/common/scale.hpp"
#include "cuda/reorder/permute_kernels.hpp"
#include "spx/cuda/reorder.hpp"
#include "spx/error.hpp"
#include "spx/reorder.hpp"

namespace spx::cuda {

template <class T>
void gather(Context& ctx, std::span<const int32_t> perm, std::span<const T> in, std::span<T> out) {
  if (in.size() != perm.size() || out.size() != perm.size())
    throw Error(fmt::format("gather: in has {} and out {} entries, the permutation {}", in.size(), out.size(),
                            perm.size()));
  detail::launch_gather<T>(ctx.stream(), static_cast<int64_t>(perm.size()), perm.data(), in.data(),
                           out.data());
}

template <class T>
void scatter_axpby(Context& ctx, std::span<const int32_t> perm, std::span<const T> y_permuted, std::span<T> y,
                   T alpha, T beta) {
  if (y_permuted.size() != perm.size() || y.size() != perm.size())
    throw Error(fmt::format("scatter: y' has {} and y {} entries, the permutation {}", y_permuted.size(),
                            y.size(), perm.size()));
  detail::launch_scatter_axpby<T>(ctx.stream(), static_cast<int64_t>(perm.size()), perm.data(),
                                  y_permuted.data(), y.data(), alpha, beta);
}

template <class T>
RcmCsr<T>::RcmCsr(Context& ctx, const Csr<T, int32_t>& A) : RcmCsr(ctx, A, reorder::rcm(A)) {}

template <class T>
RcmCsr<T>::RcmCsr(Context& ctx, const Csr<T, int32_t>& A, std::vector<int32_t> perm)
    : perm_(std::move(perm)) {
  const auto t0 = std::chrono::steady_clock::now();
  host_ = reorder::permute_symmetric(A, std::span<const int32_t>(perm_));  // checks square and perm
  host_reorder_us_ = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  device_ = upload(ctx, host_);
  perm_device_ = to_device(ctx, perm_, "rcm permutation");
  x_ = DeviceBuffer<T>(perm_.size(), "rcm x'");
  y_ = DeviceBuffer<T>(perm_.size(), "rcm y'");
  plan_ = plan_csr_spmv(ctx, device_, host_);
}

template <class T>
void RcmCsr<T>::spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  if (x.size() != perm_.size() || y.size() != perm_.size())
    throw Error(fmt::format("rcm spmv: x has {} and y {} entries; the matrix is {} x {}", x.size(), y.size(),
                            perm_.size(), perm_.size()));
  if (perm_.empty()) return;
  // BLAS convention, as every spx kernel: alpha == 0 reads neither A nor x.
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), y.size(), beta);
  const std::span<const int32_t> p = perm_device_.span();
  gather<T>(ctx, p, x, x_.span());
  spmv_csr(ctx, plan_, device_, std::span<const T>(x_.span()), y_.span(), T{1}, T{0});
  scatter_axpby<T>(ctx, p, std::span<const T>(y_.span()), y, alpha, beta);
}

template <class T>
std::size_t RcmCsr<T>::bytes() const {
  return device_.bytes() + perm_device_.bytes() + x_.bytes() + y_.bytes();
}

template class RcmCsr<float>;
template class RcmCsr<double>;
template void gather<float>(Context&, std::span<const int32_t>, std::span<const float>, std::span<float>);
template void gather<double>(Context&, std::span<const int32_t>, std::span<const double>, std::span<double>);
template void scatter_axpby<float>(Context&, std::span<const int32_t>, std::span<const float>,
                                   std::span<float>, float, float);
template void scatter_axpby<double>(Context&, std::span<const int32_t>, std::span<const double>,
                                    std::span<double>, double, double);

}  // namespace spx::cuda
