// Argument checks shared by the SpMM entry points (messages built in spmm_checks.cpp, so .cu files
// include this without fmt).
#pragma once

#include <cstddef>
#include <cstdint>

#include "spx/cuda/spmm.hpp"

namespace spx::cuda::detail {

// A view's shape without its element type.
struct DenseShape {
  const void* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
  Layout layout = Layout::RowMajor;
};

template <class T>
DenseShape shape_of(DenseView<T> D) {
  return {D.data, D.rows, D.cols, D.ld, D.layout};
}

// B is a_cols × L and C a_rows × L, leading dimensions valid, data present when there are elements,
// and the parts of B and C the product touches do not overlap; else spx::Error naming `who`.
void check_spmm_operands(const char* who, int64_t a_rows, int64_t a_cols, const DenseShape& B,
                         const DenseShape& C, std::size_t element_bytes);

// True when B's rows can be read with aligned vector loads of `bytes` (data and ld*element size
// multiples of it): the fast path of both kernels.
bool rows_aligned(const DenseShape& D, std::size_t element_bytes, std::size_t bytes);

}  // namespace spx::cuda::detail
