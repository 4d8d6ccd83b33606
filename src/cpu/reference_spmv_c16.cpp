// Reference SpMV of CsrC16 (spx/csr_c16.hpp), the same contract as the other spx::ref kernels
// (reference_spmv.cpp): checks first, products and sums in double, each y rounded to T once.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cpu/kernel_checks.hpp"
#include "spx/csr_c16.hpp"

namespace spx::ref {

template <class T>
void spmv(const CsrC16<T>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.rows, A.cols, x, y);
  const auto rows = static_cast<std::size_t>(A.rows);
  if (alpha == T{0}) {
    for (std::size_t r = 0; r < rows; ++r) y[r] = cpu_detail::scaled(beta, y[r]);
    return;
  }
  A.validate();
  std::vector<double> acc(rows, 0.0);
  for (int32_t r = 0; r < A.rows; ++r) {
    if (A.base[r] == kC16Escape) continue;
    const T* xr = x.data() + A.base[r];
    for (int32_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      acc[r] += static_cast<double>(A.values[k]) * static_cast<double>(xr[A.offsets[k]]);
  }
  for (std::size_t e = 0; e < A.escape_rows.size(); ++e)
    for (int32_t k = A.escape.row_ptr[e]; k < A.escape.row_ptr[e + 1]; ++k)
      acc[A.escape_rows[e]] +=
          static_cast<double>(A.escape.values[k]) * static_cast<double>(x[A.escape.col_idx[k]]);
  for (std::size_t r = 0; r < rows; ++r) y[r] = cpu_detail::combine<T>(acc[r], alpha, beta, y[r]);
}

template void spmv(const CsrC16<float>&, std::span<const float>, std::span<float>, float, float);
template void spmv(const CsrC16<double>&, std::span<const double>, std::span<double>, double, double);

}  // namespace spx::ref
