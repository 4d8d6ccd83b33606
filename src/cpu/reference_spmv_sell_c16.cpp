// Reference SpMV of SellC16 (spx/sell_c16.hpp), the same contract as the other spx::ref kernels
// (reference_spmv.cpp): checks first, products and sums in double, each y rounded to T once.
// It walks the slots as the GPU kernel does (slot column by slot column, padding skipped by its
// offset), so it checks the layout, not only the conversion.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cpu/kernel_checks.hpp"
#include "spx/sell_c16.hpp"

namespace spx::ref {

template <class T>
void spmv(const SellC16<T>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.rows, A.cols, x, y);
  const auto rows = static_cast<std::size_t>(A.rows);
  if (alpha == T{0}) {
    for (std::size_t r = 0; r < rows; ++r) y[r] = cpu_detail::scaled(beta, y[r]);
    return;
  }
  A.validate();
  std::vector<double> acc(rows, 0.0);
  for (int64_t r = 0; r < A.rows; ++r) {
    const int32_t b = A.base[static_cast<std::size_t>(r)];
    if (b == kSellC16EmptyRow) continue;
    const int64_t s = r / kSellC16SliceRows;
    const int64_t first = A.slice_ptr[s] + r % kSellC16SliceRows;
    const int64_t width = (A.slice_ptr[s + 1] - A.slice_ptr[s]) / kSellC16SliceRows;
    for (int64_t j = 0; j < width; ++j) {
      const auto k = static_cast<std::size_t>(first + j * kSellC16SliceRows);
      if (j > 0 && A.offsets[k] == 0) continue;  // padding
      acc[r] += static_cast<double>(A.values[k]) * static_cast<double>(x[b + A.offsets[k]]);
    }
  }
  for (std::size_t r = 0; r < rows; ++r) y[r] = cpu_detail::combine<T>(acc[r], alpha, beta, y[r]);
}

template void spmv(const SellC16<float>&, std::span<const float>, std::span<float>, float, float);
template void spmv(const SellC16<double>&, std::span<const double>, std::span<double>, double, double);

}  // namespace spx::ref
