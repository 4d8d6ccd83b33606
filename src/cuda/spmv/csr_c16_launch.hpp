// The one launch of the CSR-C16 SpMV (spx/cuda/spmv_csr_c16.hpp): its arguments (a plain struct
// passed by value) and the launcher, defined in csr_c16_f32.cu / csr_c16_f64.cu. No CUDA headers.
#pragma once

#include <cstdint>

#include "spx/cuda/context.hpp"
#include "spx/cuda/kernel_params.hpp"

namespace spx::cuda {

template <class T>
struct CsrC16Args {
  // 16-bit part: rows with base >= 0 (kC16Escape rows are left to the escape blocks).
  int32_t rows = 0;
  const int32_t* row_ptr = nullptr;
  const int32_t* base = nullptr;
  const uint16_t* offsets = nullptr;
  const T* values = nullptr;
  const T* x = nullptr;
  T* y = nullptr;
  T alpha = T{1};
  T beta = T{0};
  int32_t repeat = 1;
  // Escape part: blocks [0, escape_blocks) of the grid, one warp per 512-nonzero chunk.
  int32_t escape_blocks = 0;
  int32_t escape_chunks = 0;
  const int32_t* escape_rows = nullptr;
  const int32_t* escape_row_ptr = nullptr;
  const int32_t* escape_col_idx = nullptr;
  const T* escape_values = nullptr;
  const int32_t* chunk_begin = nullptr;
  const int32_t* chunk_owner = nullptr;
  T* partials = nullptr;
  uint32_t* arrivals = nullptr;
};

// Enqueues the kernel for params.coop on ctx.stream() with args.escape_blocks + csr_param's main
// blocks (csr_param_main_blocks) and checks the launch. params must be valid and args.rows > 0.
template <class T>
void launch_csr_c16(Context& ctx, const CsrSpmvParams& params, const CsrC16Args<T>& args);

}  // namespace spx::cuda
