// The planner's RCM candidates as Executors, built from the front door's host CSR (RCM on the host,
// the permuted matrix uploaded): rcm_csr (spx/cuda/reorder.hpp's RcmCsr: gather, csr_param,
// scatter) and rcm_sell_c16 (gather, then SELL-C16 or SELL-C16-dict writing y through the
// permutation). The factory rows in executor.cpp call these.
#pragma once

#include <memory>

#include "cuda/plan/executor.hpp"
#include "plan/catalogue.hpp"

namespace spx::cuda::detail {

template <class T>
std::unique_ptr<Executor<T>> make_rcm_executor(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                               const plan::KernelRow& row, const plan::Knobs& knobs);
template <class T>
std::unique_ptr<Executor<T>> make_rcm_sell_executor(Context& ctx, const MatrixParts<T>& m,
                                                    const plan::Problem& p, const plan::KernelRow& row,
                                                    const plan::Knobs& knobs);

}  // namespace spx::cuda::detail
