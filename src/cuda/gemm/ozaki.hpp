// The emulated DGEMM's host side, as gemm.cpp calls it (docs/dgemm.md, "Emulated DGEMM").
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "spx/cpu.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/gemm_emulation.hpp"

namespace spx::cuda::detail {

// C = alpha op(A) op(B) + beta C emulated on the INT8 tensor cores (operands validated, m, n, k > 0,
// alpha != 0). Reads the inputs' statistics back to the host (one round trip, the stream waits),
// chooses the width and the moduli (ozaki::choose_emulation), and returns false — nothing written
// to C, report.reason saying why — where native must run instead: Inf/NaN, an uncertifiable
// element, the workspace past free memory, or `veto(moduli)` non-empty (the plan, told the count
// the inputs need, no longer predicts a win). `expected_moduli` sizes the first workspace request.
bool run_ozaki_gemm(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc, int expected_moduli, const std::function<std::string(int)>& veto,
                    GemmEmulationReport& report);

}  // namespace spx::cuda::detail
