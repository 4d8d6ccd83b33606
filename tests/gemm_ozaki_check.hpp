// The emulated DGEMM's accuracy check, shared by the CPU test of the host reference and the GPU
// test: every element of C against a double-double reference and the native DGEMM bound,
// |C - alpha op(A) op(B) - beta C0| <= |alpha| gamma_k (|op(A)||op(B)|)_ij (1 + 4u)
//                                       + 2u (|alpha op(A) op(B)| + |beta C0|)_ij (alpha, beta roundings)
//                                       + the reference's own error (k^2 u^2 terms) + underflow.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "spx/cpu.hpp"

namespace spx::test {

// A dense column-major matrix of rows × cols with ld = rows + pad (padding NaN), filled by value(i, j).
struct Mat {
  int64_t rows = 0, cols = 0, ld = 1;
  std::vector<double> v;
  double& at(int64_t i, int64_t j) { return v[static_cast<std::size_t>(i + j * ld)]; }
  double at(int64_t i, int64_t j) const { return v[static_cast<std::size_t>(i + j * ld)]; }
};
template <class F>
Mat make(int64_t rows, int64_t cols, int64_t pad, F value) {
  Mat x{rows, cols, std::max<int64_t>(1, rows + pad), {}};
  x.v.assign(static_cast<std::size_t>(x.ld * cols), std::numeric_limits<double>::quiet_NaN());
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) x.at(i, j) = value(i, j);
  return x;
}

// Double-double accumulation (TwoSum); products split exactly by fma (TwoProd).
struct DoubleDouble {
  double hi = 0, lo = 0;
  void add(double a) {
    const double t = hi + a, z = t - hi;
    lo += (hi - (t - z)) + (a - z);
    hi = t;
  }
};

// The largest |C - want| / bound over C's elements (<= 1: the contract holds).
inline double bound_ratio(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha, const Mat& A,
                          const Mat& B, double beta, const Mat& C0, const Mat& C) {
  constexpr double u = 0x1p-53;
  const auto a = [&](int64_t i, int64_t h) { return op_a == Op::N ? A.at(i, h) : A.at(h, i); };
  const auto b = [&](int64_t h, int64_t j) { return op_b == Op::N ? B.at(h, j) : B.at(j, h); };
  const double kd = static_cast<double>(k), gamma = kd * u / (1 - kd * u);
  double worst = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      DoubleDouble s;
      double abs_sum = 0;
      for (int64_t h = 0; h < k; ++h) {
        const double p = a(i, h) * b(h, j);
        s.add(p);
        s.add(std::fma(a(i, h), b(h, j), -p));
        abs_sum += std::fabs(p);
      }
      const double exact = s.hi + s.lo;
      const double c0 = beta == 0 ? 0.0 : beta * C0.at(i, j);
      const double want = alpha * exact + c0;
      const double bound = std::fabs(alpha) * gamma * abs_sum * (1 + 4 * u) +
                           2 * u * (std::fabs(alpha * exact) + std::fabs(c0)) +
                           4 * u * u * kd * kd * std::fabs(alpha) * abs_sum +
                           std::numeric_limits<double>::denorm_min() * 4;
      worst = std::max(worst, std::fabs(C.at(i, j) - want) / bound);
    }
  }
  return worst;
}

// C's padding rows (past m) still hold C0's values.
inline bool padding_untouched(const Mat& C, const Mat& C0, int64_t m) {
  for (int64_t j = 0; j < C.cols; ++j)
    for (int64_t i = m; i < C.ld; ++i) {
      const double now = C.at(i, j), old = C0.at(i, j);
      if (!(now == old || (std::isnan(now) && std::isnan(old)))) return false;
    }
  return true;
}

}  // namespace spx::test
