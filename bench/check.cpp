#include "bench/check.hpp"

#include <cmath>
#include <limits>
#include <random>

#include "spx/cpu.hpp"
#include "spx/error.hpp"

namespace spx::bench {

namespace {

template <class T>
constexpr double unit_roundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}

template <class T>
constexpr double smallest_normal() {
  return static_cast<double>(std::numeric_limits<T>::min());
}

}  // namespace

double accumulation_error_factor(int64_t k, double u) {
  const double ku = static_cast<double>(std::max<int64_t>(k, 1)) * u;
  if (ku >= 0.5) return 1.0;
  return ku / (1 - ku) + 2 * u;
}

template <class T>
Reference spmv_reference(const Csr<T, int32_t>& A, std::span<const T> x) {
  std::vector<T> y(static_cast<std::size_t>(A.rows));
  ref::spmv(A, x, std::span<T>(y));
  Reference r;
  r.expected.assign(y.begin(), y.end());
  r.tolerance.resize(y.size());
  for (int32_t i = 0; i < A.rows; ++i) {
    double magnitude = 0;
    for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      magnitude += std::abs(static_cast<double>(A.values[k]) * static_cast<double>(x[A.col_idx[k]]));
    }
    const int64_t len = A.row_length(i);
    r.tolerance[i] = accumulation_error_factor(len, unit_roundoff<T>()) * magnitude +
                     static_cast<double>(len + 1) * smallest_normal<T>();
  }
  return r;
}

template <class T>
Reference spmm_reference(const Csr<T, int32_t>& A, const Dense<T>& B) {
  Dense<T> C(A.rows, B.cols, Layout::ColMajor);
  ref::spmm(A, B, C);
  Reference r;
  const std::size_t rows = static_cast<std::size_t>(A.rows);
  r.expected.resize(rows * static_cast<std::size_t>(B.cols));
  r.tolerance.resize(r.expected.size());
  for (int64_t j = 0; j < B.cols; ++j) {
    for (int32_t i = 0; i < A.rows; ++i) {
      double magnitude = 0;
      for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
        magnitude += std::abs(static_cast<double>(A.values[k]) * static_cast<double>(B(A.col_idx[k], j)));
      }
      const int64_t len = A.row_length(i);
      const std::size_t e = static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * rows;
      r.expected[e] = static_cast<double>(C(i, j));
      r.tolerance[e] = accumulation_error_factor(len, unit_roundoff<T>()) * magnitude +
                       static_cast<double>(len + 1) * smallest_normal<T>();
    }
  }
  return r;
}

template <class T>
Reference gemm_reference(const Dense<T>& A, const Dense<T>& B, uint64_t seed) {
  if (A.cols != B.rows) throw Error("gemm reference: inner dimensions differ");
  const int64_t m = A.rows, k = A.cols, n = B.cols;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Reference r;
  r.projection.resize(static_cast<std::size_t>(n));
  for (auto& v : r.projection) v = uniform(rng);
  // Bv and |B||v| (length k), then A(Bv) and |A|(|B||v|) (length m), all in double.
  std::vector<double> bv(static_cast<std::size_t>(k), 0.0), bv_abs(static_cast<std::size_t>(k), 0.0);
  for (int64_t j = 0; j < n; ++j) {
    const double v = r.projection[static_cast<std::size_t>(j)];
    for (int64_t i = 0; i < k; ++i) {
      const double b = static_cast<double>(B(i, j));
      bv[static_cast<std::size_t>(i)] += b * v;
      bv_abs[static_cast<std::size_t>(i)] += std::abs(b * v);
    }
  }
  r.expected.assign(static_cast<std::size_t>(m), 0.0);
  std::vector<double> magnitude(static_cast<std::size_t>(m), 0.0);
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t i = 0; i < m; ++i) {
      const double a = static_cast<double>(A(i, p));
      r.expected[static_cast<std::size_t>(i)] += a * bv[static_cast<std::size_t>(p)];
      magnitude[static_cast<std::size_t>(i)] += std::abs(a) * bv_abs[static_cast<std::size_t>(p)];
    }
  }
  const double factor = accumulation_error_factor(k, unit_roundoff<T>()) +
                        2 * accumulation_error_factor(2 * k, unit_roundoff<double>());
  r.tolerance.resize(static_cast<std::size_t>(m));
  for (std::size_t i = 0; i < r.tolerance.size(); ++i) {
    r.tolerance[i] = factor * magnitude[i] + static_cast<double>(k + 1) * smallest_normal<T>();
  }
  return r;
}

CheckResult check_output(const std::vector<double>& output, const Reference& reference) {
  const std::vector<double>* compared = &output;
  std::vector<double> projected;
  if (!reference.projection.empty()) {
    // Output is column-major, expected.size() rows × projection.size() columns.
    const std::size_t m = reference.expected.size(), n = reference.projection.size();
    CheckResult wrong_size;
    if (output.size() != m * n) return wrong_size;
    projected.assign(m, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t i = 0; i < m; ++i) projected[i] += output[i + j * m] * reference.projection[j];
    }
    compared = &projected;
  }
  CheckResult result;
  if (compared->size() != reference.expected.size()) return result;
  double diff_sq = 0, ref_sq = 0;
  bool passed = true;
  for (std::size_t i = 0; i < compared->size(); ++i) {
    const double want = reference.expected[i];
    const double diff = std::abs((*compared)[i] - want);
    const double tol = reference.tolerance[i];
    if (!(diff <= tol)) {  // also true for NaN
      if (passed) result.first_bad = static_cast<int64_t>(i);
      passed = false;
    }
    const double ratio = std::isnan(diff) ? std::numeric_limits<double>::infinity()
                         : tol > 0        ? diff / tol
                         : diff > 0       ? std::numeric_limits<double>::infinity()
                                          : 0.0;
    result.worst_ratio = std::max(result.worst_ratio, ratio);
    diff_sq += diff * diff;
    ref_sq += want * want;
  }
  result.passed = passed;
  result.relative_error = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq);
  if (std::isnan(result.relative_error)) result.relative_error = std::numeric_limits<double>::infinity();
  return result;
}

template Reference spmv_reference<float>(const Csr<float, int32_t>&, std::span<const float>);
template Reference spmv_reference<double>(const Csr<double, int32_t>&, std::span<const double>);
template Reference spmm_reference<float>(const Csr<float, int32_t>&, const Dense<float>&);
template Reference spmm_reference<double>(const Csr<double, int32_t>&, const Dense<double>&);
template Reference gemm_reference<float>(const Dense<float>&, const Dense<float>&, uint64_t);
template Reference gemm_reference<double>(const Dense<double>&, const Dense<double>&, uint64_t);

}  // namespace spx::bench
