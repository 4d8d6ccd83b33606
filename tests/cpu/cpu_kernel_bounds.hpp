// Error bounds for comparing CPU kernels (spx::ref, spx::omp) with each other and with brute-force
// loops written in the tests.
//
// Why these bounds: every spx CPU kernel computes an output as a double-precision sum
//   d = alpha * sum_k a_k x_k + beta * y_old            (n products, n + 2 roundings in double)
// and rounds d to T once. Two such kernels that only differ in the order of the sum satisfy
//   |d1 - d2| <= 2 * (n + 2) * u_d * m,    m = |alpha| * sum_k |a_k x_k| + |beta * y_old|
// (Higham, Accuracy and Stability of Numerical Algorithms, §3.1, u_d = 2^-53), and each rounding
// to T adds at most u_T * |d| <= u_T * m. Hence
//   |y1 - y2| <= (eps_T + (n + 2) * eps_d) * m       (eps = 2u)
// which we check with a factor 2 of slack. For float this is ~1 ulp of float whatever the row
// length (n * eps_d stays far below eps_f up to n ~ 10^8); for double it grows with n, as any
// reordered double sum does. A wrong index, a missed or double-counted entry, or a value read from
// padding breaks it by orders of magnitude, so it still catches every real bug.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "spx/error.hpp"
#include "spx/matrix.hpp"

namespace spx::test {

// Tolerance for one output from its magnitude m and its number n of summed products.
template <class T>
double output_tolerance(double magnitude, int64_t terms) {
  const double eps_t = std::numeric_limits<T>::epsilon();
  const double eps_d = std::numeric_limits<double>::epsilon();
  return 2.0 * (eps_t + static_cast<double>(terms + 2) * eps_d) * magnitude;
}

// Expects |got[i] - want[i]| <= tolerance(magnitude[i], terms[i]) for every i and no NaN (the
// CPU kernels' bound by default; the GPU tests pass theirs); reports the first few offenders.
template <class T, class Tolerance = double (*)(double, int64_t)>
void expect_within_bounds(std::span<const T> got, std::span<const T> want,
                          const std::vector<double>& magnitude, const std::vector<int64_t>& terms,
                          const std::string& what, Tolerance tolerance = &output_tolerance<T>) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double diff = std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    const double tol = tolerance(magnitude[i], terms[i]);
    if (!(diff <= tol) && reported++ < 5)
      ADD_FAILURE() << what << ": entry " << i << " is " << got[i] << ", expected " << want[i] << " (diff "
                    << diff << " > tolerance " << tol << ", " << terms[i] << " terms)";
  }
}

// Per-row magnitude m_i = |alpha| * sum_k |a_ik x_k| + |beta * y_i| and product count n_i of a
// Csr SpMV, straight from the arrays. y_old is not read when beta == 0 (it may hold NaN).
template <class T, class I>
void spmv_bounds(const Csr<T, I>& A, std::span<const T> x, std::span<const T> y_old, double alpha,
                 double beta, std::vector<double>& magnitude, std::vector<int64_t>& terms) {
  magnitude.assign(static_cast<std::size_t>(A.rows), 0.0);
  terms.assign(static_cast<std::size_t>(A.rows), 0);
  for (I r = 0; r < A.rows; ++r) {
    double m = 0;
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      m += std::abs(static_cast<double>(A.values[k]) * static_cast<double>(x[A.col_idx[k]]));
    magnitude[r] = std::abs(alpha) * m + (beta == 0 ? 0.0 : std::abs(beta * static_cast<double>(y_old[r])));
    terms[r] = A.row_ptr[r + 1] - A.row_ptr[r];
  }
}

// The entries of D in row-major order (i * cols + j), without the padding of its leading dimension.
template <class T>
std::vector<T> logical_entries(const Dense<T>& D) {
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(D.rows * D.cols));
  for (int64_t i = 0; i < D.rows; ++i)
    for (int64_t j = 0; j < D.cols; ++j) out.push_back(D(i, j));
  return out;
}

// Same as spmv_bounds for SpMM, per element of C in logical_entries order.
template <class T, class I>
void spmm_bounds(const Csr<T, I>& A, const Dense<T>& B, const Dense<T>& C_old, double alpha, double beta,
                 std::vector<double>& magnitude, std::vector<int64_t>& terms) {
  magnitude.clear();
  terms.clear();
  for (I r = 0; r < A.rows; ++r)
    for (int64_t j = 0; j < B.cols; ++j) {
      double m = 0;
      for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
        m += std::abs(static_cast<double>(A.values[k]) * static_cast<double>(B(A.col_idx[k], j)));
      magnitude.push_back(std::abs(alpha) * m +
                          (beta == 0 ? 0.0 : std::abs(beta * static_cast<double>(C_old(r, j)))));
      terms.push_back(A.row_ptr[r + 1] - A.row_ptr[r]);
    }
}

// Dense rows × cols in `layout` with leading dimension tight + extra; every stored value,
// padding included, is NaN, so a kernel that reads padding or an unset input shows it.
template <class T>
Dense<T> poisoned_dense(int64_t rows, int64_t cols, Layout layout, int64_t extra_ld) {
  Dense<T> D;
  D.rows = rows;
  D.cols = cols;
  D.layout = layout;
  D.ld = std::max<int64_t>(1, (layout == Layout::ColMajor ? rows : cols) + extra_ld);
  const int64_t outer = layout == Layout::ColMajor ? cols : rows;
  D.data.assign(static_cast<std::size_t>(std::max<int64_t>(outer, 1) * D.ld),
                std::numeric_limits<T>::quiet_NaN());
  return D;
}

// True when every stored value outside the logical rows × cols is still NaN.
template <class T>
bool padding_untouched(const Dense<T>& D) {
  std::vector<bool> logical(D.data.size(), false);
  for (int64_t i = 0; i < D.rows; ++i)
    for (int64_t j = 0; j < D.cols; ++j) logical[D.index(i, j)] = true;
  for (std::size_t e = 0; e < D.data.size(); ++e)
    if (!logical[e] && !std::isnan(D.data[e])) return false;
  return true;
}

// Expects `run` to throw spx::Error whose message contains `fragment`.
inline void expect_error(const std::function<void()>& run, const std::string& fragment) {
  try {
    run();
    ADD_FAILURE() << "expected spx::Error containing \"" << fragment << "\", nothing was thrown";
  } catch (const spx::Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "message \"" << e.what() << "\" lacks \"" << fragment << "\"";
  }
}

}  // namespace spx::test
