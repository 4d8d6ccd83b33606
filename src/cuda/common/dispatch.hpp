// Run-time tuning values to template arguments: the one way spx turns a plan's number (threads per
// row, columns per pass, a kernel variant's flag) into the compile-time constant a kernel is
// instantiated for. Only the listed values are instantiated, so the list is the kernel's whole
// compiled set (CI compiles CUDA on 2 cores: keep lists short). Host and device code.
#pragma once

#include <type_traits>

#include "cuda/common/host_device.hpp"

namespace spx::cuda::detail {

// Calls f(std::integral_constant<int, V>{}) for the first V of the list equal to v, or for the last
// one when none is (callers check v first and put their fallback last).
template <int First, int... Rest, class F>
SPX_HOST_DEVICE constexpr decltype(auto) dispatch_value(int v, F&& f) {
  if constexpr (sizeof...(Rest) == 0) {
    return f(std::integral_constant<int, First>{});
  } else {
    if (v == First) return f(std::integral_constant<int, First>{});
    return dispatch_value<Rest...>(v, static_cast<F&&>(f));
  }
}

// Calls f(std::true_type{}) or f(std::false_type{}).
template <class F>
SPX_HOST_DEVICE constexpr decltype(auto) dispatch_bool(bool v, F&& f) {
  if (v) return f(std::true_type{});
  return f(std::false_type{});
}

}  // namespace spx::cuda::detail
