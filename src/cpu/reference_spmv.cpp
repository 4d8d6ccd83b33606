// Reference SpMV for every host format: the oracle other kernels are tested against.
//
// Each format first computes A*x into a double accumulator per row (products and sums in double,
// entries in storage order), then y = alpha*acc + beta*y is rounded to T once. So for float the
// result is the correctly rounded float of a double-precision sum, whatever the row length; for
// double it is an ordinary sequential sum. Entries are checked before anything is written, so on
// an error y is unchanged.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cpu/kernel_checks.hpp"
#include "spx/cpu.hpp"

namespace spx::ref {
namespace {

using cpu_detail::combine;
using cpu_detail::scaled;

template <class T>
void scale_only(std::span<T> y, std::size_t rows, double beta) {
  for (std::size_t r = 0; r < rows; ++r) y[r] = scaled(beta, y[r]);
}

template <class T>
void write_result(const std::vector<double>& acc, std::span<T> y, double alpha, double beta) {
  for (std::size_t r = 0; r < acc.size(); ++r) y[r] = combine(acc[r], alpha, beta, y[r]);
}

// acc[r] += sum over row r of the Ell part (padding slots skipped, never multiplied).
template <class T, class I>
void accumulate(const Ell<T, I>& A, std::span<const T> x, std::vector<double>& acc) {
  for (I r = 0; r < A.rows; ++r)
    for (I k = 0; k < A.width; ++k) {
      const std::size_t s = A.slot(r, k);
      if (A.col_idx[s] == static_cast<I>(kPadding)) continue;
      acc[r] += static_cast<double>(A.values[s]) * static_cast<double>(x[A.col_idx[s]]);
    }
}

// acc[row] += value * x[col] for every entry, in storage order (any order, duplicates added).
template <class T, class I>
void accumulate(const Coo<T, I>& A, std::span<const T> x, std::vector<double>& acc) {
  for (std::size_t k = 0; k < A.values.size(); ++k)
    acc[A.row_idx[k]] += static_cast<double>(A.values[k]) * static_cast<double>(x[A.col_idx[k]]);
}

}  // namespace

template <class T, class I>
void spmv(const Csr<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.rows, A.cols, x, y);
  cpu_detail::check_csr_arrays("spmv", A);
  const auto rows = static_cast<std::size_t>(A.rows);
  if (alpha == T{0}) return scale_only(y, rows, beta);
  cpu_detail::check_csr_entries("spmv", A);
  std::vector<double> acc(rows, 0.0);
  for (I r = 0; r < A.rows; ++r)
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      acc[r] += static_cast<double>(A.values[k]) * static_cast<double>(x[A.col_idx[k]]);
  write_result(acc, y, alpha, beta);
}

template <class T, class I>
void spmv(const Coo<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.rows, A.cols, x, y);
  const auto rows = static_cast<std::size_t>(A.rows);
  if (alpha == T{0}) return scale_only(y, rows, beta);
  cpu_detail::check_coo("spmv", A);
  std::vector<double> acc(rows, 0.0);
  accumulate(A, x, acc);
  write_result(acc, y, alpha, beta);
}

template <class T, class I>
void spmv(const Ell<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.rows, A.cols, x, y);
  const auto rows = static_cast<std::size_t>(A.rows);
  if (alpha == T{0}) return scale_only(y, rows, beta);
  cpu_detail::check_ell("spmv", A);
  std::vector<double> acc(rows, 0.0);
  accumulate(A, x, acc);
  write_result(acc, y, alpha, beta);
}

template <class T, class I>
void spmv(const EllR<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.rows, A.cols, x, y);
  const auto rows = static_cast<std::size_t>(A.rows);
  if (alpha == T{0}) return scale_only(y, rows, beta);
  cpu_detail::check_ellr("spmv", A);
  std::vector<double> acc(rows, 0.0);
  // Only the first row_len[r] slots are read: EllR's point is that the padding is never visited.
  for (I r = 0; r < A.rows; ++r)
    for (I k = 0; k < A.row_len[r]; ++k) {
      const std::size_t s = A.slot(r, k);
      acc[r] += static_cast<double>(A.values[s]) * static_cast<double>(x[A.col_idx[s]]);
    }
  write_result(acc, y, alpha, beta);
}

template <class T, class I>
void spmv(const Hyb<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.rows(), A.cols(), x, y);
  if (A.coo.rows != A.ell.rows || A.coo.cols != A.ell.cols)
    throw Error(fmt::format("spmv: Hyb parts differ in shape (Ell {} x {}, Coo {} x {})", A.ell.rows,
                            A.ell.cols, A.coo.rows, A.coo.cols));
  const auto rows = static_cast<std::size_t>(A.rows());
  if (alpha == T{0}) return scale_only(y, rows, beta);
  cpu_detail::check_ell("spmv", A.ell);
  cpu_detail::check_coo("spmv", A.coo);
  // Both parts go into one double accumulator, so a row split between Ell and Coo is rounded to T
  // once, exactly like the same row in Csr.
  std::vector<double> acc(rows, 0.0);
  accumulate(A.ell, x, acc);
  accumulate(A.coo, x, acc);
  write_result(acc, y, alpha, beta);
}

#define SPX_REF_SPMV(T, I)                                                             \
  template void spmv<T, I>(const Csr<T, I>&, std::span<const T>, std::span<T>, T, T);  \
  template void spmv<T, I>(const Coo<T, I>&, std::span<const T>, std::span<T>, T, T);  \
  template void spmv<T, I>(const Ell<T, I>&, std::span<const T>, std::span<T>, T, T);  \
  template void spmv<T, I>(const EllR<T, I>&, std::span<const T>, std::span<T>, T, T); \
  template void spmv<T, I>(const Hyb<T, I>&, std::span<const T>, std::span<T>, T, T);
SPX_REF_SPMV(float, int32_t)
SPX_REF_SPMV(float, int64_t)
SPX_REF_SPMV(double, int32_t)
SPX_REF_SPMV(double, int64_t)
#undef SPX_REF_SPMV

}  // namespace spx::ref
