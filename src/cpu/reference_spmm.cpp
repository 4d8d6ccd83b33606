// Reference SpMM, C = alpha*A*B + beta*C, for Csr and EllR A and Dense B, C in any layout.
//
// Row by row: the L results of a row are summed in double in entry order, then rounded to T once
// (the same arithmetic as ref::spmv on each column of B). Entries are checked before C is written.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/kernel_checks.hpp"
#include "spx/cpu.hpp"

namespace spx::ref {
namespace {

using cpu_detail::combine;

template <class T>
void scale_only(Dense<T>& C, double beta) {
  for (int64_t i = 0; i < C.rows; ++i)
    for (int64_t j = 0; j < C.cols; ++j) C(i, j) = cpu_detail::scaled(beta, C(i, j));
}

// acc[j] += value * B(col, j) for j < L.
template <class T>
void add_scaled_row(std::vector<double>& acc, T value, int64_t col, const Dense<T>& B) {
  for (int64_t j = 0; j < B.cols; ++j) acc[j] += static_cast<double>(value) * static_cast<double>(B(col, j));
}

template <class T>
void write_row(const std::vector<double>& acc, int64_t row, Dense<T>& C, double alpha, double beta) {
  for (int64_t j = 0; j < C.cols; ++j) C(row, j) = combine(acc[j], alpha, beta, C(row, j));
}

}  // namespace

template <class T, class I>
void spmm(const Csr<T, I>& A, const Dense<T>& B, Dense<T>& C, T alpha, T beta) {
  cpu_detail::check_spmm_operands("spmm", A.rows, A.cols, B, C);
  cpu_detail::check_csr_arrays("spmm", A);
  if (alpha == T{0}) return scale_only(C, beta);
  cpu_detail::check_csr_entries("spmm", A);
  std::vector<double> acc(static_cast<std::size_t>(B.cols));
  for (I r = 0; r < A.rows; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) add_scaled_row(acc, A.values[k], A.col_idx[k], B);
    write_row(acc, r, C, alpha, beta);
  }
}

template <class T, class I>
void spmm(const EllR<T, I>& A, const Dense<T>& B, Dense<T>& C, T alpha, T beta) {
  cpu_detail::check_spmm_operands("spmm", A.rows, A.cols, B, C);
  if (alpha == T{0}) return scale_only(C, beta);
  cpu_detail::check_ellr("spmm", A);
  std::vector<double> acc(static_cast<std::size_t>(B.cols));
  for (I r = 0; r < A.rows; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (I k = 0; k < A.row_len[r]; ++k) {
      const std::size_t s = A.slot(r, k);
      add_scaled_row(acc, A.values[s], A.col_idx[s], B);
    }
    write_row(acc, r, C, alpha, beta);
  }
}

#define SPX_REF_SPMM(T, I)                                                      \
  template void spmm<T, I>(const Csr<T, I>&, const Dense<T>&, Dense<T>&, T, T); \
  template void spmm<T, I>(const EllR<T, I>&, const Dense<T>&, Dense<T>&, T, T);
SPX_REF_SPMM(float, int32_t)
SPX_REF_SPMM(float, int64_t)
SPX_REF_SPMM(double, int32_t)
SPX_REF_SPMM(double, int64_t)
#undef SPX_REF_SPMM

}  // namespace spx::ref
