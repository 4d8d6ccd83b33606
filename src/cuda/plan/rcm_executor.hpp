// The planner's rcm_csr candidate (spx/cuda/reorder.hpp's RcmCsr) as an Executor: built from the
// front door's host CSR (RCM on the host, the permuted CSR uploaded), run as gather, csr_param,
// scatter. The factory row in executor.cpp calls make_rcm_executor.
#pragma once

#include <memory>

#include "cuda/plan/executor.hpp"
#include "plan/catalogue.hpp"

namespace spx::cuda::detail {

template <class T>
std::unique_ptr<Executor<T>> make_rcm_executor(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                               const plan::KernelRow& row, const plan::Knobs& knobs);

}  // namespace spx::cuda::detail
