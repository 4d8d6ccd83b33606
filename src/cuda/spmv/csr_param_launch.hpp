// The one launch of the parametrised CSR SpMV: its arguments (a plain struct passed by value) and
// the launcher, defined in csr_param_f32.cu / csr_param_f64.cu. Shared by the plan code
// (csr_param_plan.cpp) and CSR-vector (csr_vector.cpp). No CUDA headers, no fmt.
#pragma once

#include <cstdint>
#include <span>

#include "spx/cuda/context.hpp"
#include "spx/cuda/spmv_csr.hpp"

namespace spx::cuda {

// V: the stored values' type (T; or float under T = double for csr_param_mixed). O: the row
// offsets' type (int64_t for WideDeviceCsr); rows and columns are int32 either way.
template <class T, class V = T, class O = int32_t>
struct CsrParamArgs {
  // y = alpha*A*x + beta*y over the rows of A that are not long.
  int32_t rows = 0;
  const O* row_ptr = nullptr;
  const int32_t* col_idx = nullptr;
  const V* values = nullptr;
  const T* x = nullptr;
  T* y = nullptr;
  T alpha = T{1};
  T beta = T{0};
  int32_t repeat = 1;
  // Rows with more nonzeros are left to the long-row blocks (INT64_MAX: none).
  int64_t long_row_threshold = INT64_MAX;
  // Long-row path: blocks [0, long_blocks) of the grid, one warp per chunk (CsrLongRowSplit).
  int32_t long_blocks = 0;
  int32_t long_chunks = 0;
  const int32_t* long_rows = nullptr;
  const int32_t* chunk_begin = nullptr;
  const int32_t* chunk_owner = nullptr;
  T* partials = nullptr;
  uint32_t* arrivals = nullptr;
};

// Blocks of the main part (the paper's eq. 5): 1 + (rows*coop - 1) / (repeat*block_size).
inline int64_t csr_param_main_blocks(int64_t rows, const CsrSpmvParams& params) {
  if (rows <= 0) return 0;
  return 1 + (rows * params.coop - 1) / (int64_t{params.repeat} * params.block_size);
}

// Enqueues the kernel for params.coop on ctx.stream() with args.long_blocks + main blocks and checks
// the launch. params must be valid and args.rows > 0.
template <class T, class V = T, class O = int32_t>
void launch_csr_param(Context& ctx, const CsrSpmvParams& params, const CsrParamArgs<T, V, O>& args);

// csr_param_mixed (opt-in mixed precision): the plan's launch with dA's values replaced by `values`,
// their float rounding in the same order; x, y and the sums stay double. Checks as spmv_csr.
void spmv_csr_mixed(Context& ctx, CsrSpmvPlan& plan, const DeviceCsr<double, int32_t>& dA,
                    std::span<const float> values, std::span<const double> x, std::span<double> y,
                    double alpha, double beta);

}  // namespace spx::cuda
