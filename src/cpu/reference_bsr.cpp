// Reference SpMV on BSR (spx/bsr.hpp), in the manner of reference_spmv.cpp: a double accumulator
// per row, y rounded to T once. Entries past cols are skipped (x is not read there), rows past
// `rows` are not written.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cpu/kernel_checks.hpp"
#include "spx/bsr.hpp"

namespace spx::ref {

template <class T, class I>
void spmv(const Bsr<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.rows, A.cols, x, y);
  const auto rows = static_cast<std::size_t>(A.rows);
  if (alpha == T{0}) {
    for (std::size_t r = 0; r < rows; ++r) y[r] = cpu_detail::scaled(beta, y[r]);
    return;
  }
  A.validate();
  const int b = A.block;
  const std::size_t bb = static_cast<std::size_t>(b) * static_cast<std::size_t>(b);
  std::vector<double> acc(rows, 0.0);
  for (int64_t br = 0; br < A.block_rows; ++br)
    for (I k = A.row_ptr[br]; k < A.row_ptr[br + 1]; ++k)
      for (int r = 0; r < b; ++r) {
        const int64_t row = br * b + r;
        if (row >= A.rows) break;
        for (int c = 0; c < b; ++c) {
          const int64_t col = int64_t{A.col_idx[k]} * b + c;
          if (col >= A.cols) break;
          acc[row] += static_cast<double>(A.values[static_cast<std::size_t>(k) * bb + r * b + c]) *
                      static_cast<double>(x[col]);
        }
      }
  for (std::size_t r = 0; r < rows; ++r) y[r] = cpu_detail::combine(acc[r], alpha, beta, y[r]);
}

#define SPX_INSTANTIATE(T, I) \
  template void spmv<T, I>(const Bsr<T, I>&, std::span<const T>, std::span<T>, T, T);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE

}  // namespace spx::ref
