// The executor factory against the kernel catalogue, without CUDA headers: the CPU tests of a CUDA
// build check that every catalogue row can be built (tests/cpu/catalogue_test.cpp).
#pragma once

#include <string>
#include <vector>

namespace spx::cuda::detail {

// One line per catalogue row without an executor ("name: why"), and per factory without a row.
std::vector<std::string> executor_factory_gaps();

}  // namespace spx::cuda::detail
