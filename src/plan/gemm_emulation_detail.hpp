// The per-thread report gemm() fills for gemm_emulation_last() (gemm_emulation.hpp).
#pragma once

#include "spx/cuda/gemm_emulation.hpp"

namespace spx::cuda::detail {

GemmEmulationReport& gemm_emulation_report();

}  // namespace spx::cuda::detail
