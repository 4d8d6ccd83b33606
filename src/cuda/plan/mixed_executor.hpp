// The planner's csr_param_mixed candidate (opt-in mixed precision, plan::Options::mixed_precision):
// the front door's double values rounded to float once (a copy on the device, 4 bytes a nonzero
// instead of 8), run by csr_param's kernel with x, y and every sum in double. The factory row in
// executor.cpp calls make_mixed_executor; docs/formats.md has the error bound.
#pragma once

#include <memory>

#include "cuda/plan/executor.hpp"
#include "plan/catalogue.hpp"

namespace spx::cuda::detail {

template <class T>
std::unique_ptr<Executor<T>> make_mixed_executor(Context& ctx, const MatrixParts<T>& m,
                                                 const plan::Problem& p, const plan::KernelRow& row,
                                                 const plan::Knobs& knobs);

}  // namespace spx::cuda::detail
