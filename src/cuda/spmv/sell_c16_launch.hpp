// SELL-C16 and SELL-C16-dict products that write their rows through a row map: row i of A's
// product goes to y[y_rows[i]] (y = alpha*A*x + beta*y there). The RCM-renumbered candidate
// (rcm_sell_c16) computes in RCM's numbering and writes the caller's y this way, with no second
// pass over y. An empty y_rows is the identity (the public spmv_sell_c16 / spmv_sell_c16_dict).
// y_rows must be a permutation of 0..rows-1 in device memory (its owner checked it when it was
// built); only its length is checked here. `lanes` (1, 2, 4, 8) overrides sell_c16_lanes' choice of
// threads per row (tests: every lane count on the same matrix); 0 = the rule's.
#pragma once

#include <cstdint>
#include <span>

#include "spx/cuda/context.hpp"
#include "spx/cuda/spmv_sell_c16.hpp"

namespace spx::cuda::detail {

template <class T>
void spmv_sell_c16_rows(Context& ctx, const DeviceSellC16<T>& A, std::span<const T> x, std::span<T> y,
                        std::span<const int32_t> y_rows, T alpha, T beta, int lanes = 0);

template <class T>
void spmv_sell_c16_dict_rows(Context& ctx, const DeviceSellC16Dict<T>& A, std::span<const T> x,
                             std::span<T> y, std::span<const int32_t> y_rows, T alpha, T beta, int lanes = 0);

}  // namespace spx::cuda::detail
