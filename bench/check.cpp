#include "bench/check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

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

// The comparison of elements against their reference and bound, for one thread; merged at the end.
class Tally {
 public:
  void add(int64_t index, double got, double want, double tolerance) {
    const double diff = std::abs(got - want);
    if (!(diff <= tolerance)) first_bad_ = std::min(first_bad_, index);  // also true for NaN
    const double ratio = std::isnan(diff) ? std::numeric_limits<double>::infinity()
                         : tolerance > 0  ? diff / tolerance
                         : diff > 0       ? std::numeric_limits<double>::infinity()
                                          : 0.0;
    worst_ratio_ = std::max(worst_ratio_, ratio);
    if (!std::isnan(diff)) max_error_ = std::max(max_error_, diff);
    diff_sq_ += diff * diff;
    ref_sq_ += want * want;
  }
  void merge(const Tally& other) {
    first_bad_ = std::min(first_bad_, other.first_bad_);
    worst_ratio_ = std::max(worst_ratio_, other.worst_ratio_);
    max_error_ = std::max(max_error_, other.max_error_);
    diff_sq_ += other.diff_sq_;
    ref_sq_ += other.ref_sq_;
  }
  CheckResult result() const {
    CheckResult r;
    r.passed = first_bad_ == kNone;
    r.first_bad = r.passed ? -1 : first_bad_;
    r.worst_ratio = worst_ratio_;
    r.max_error = max_error_;
    r.relative_error = ref_sq_ > 0 ? std::sqrt(diff_sq_ / ref_sq_) : std::sqrt(diff_sq_);
    if (std::isnan(r.relative_error)) r.relative_error = std::numeric_limits<double>::infinity();
    return r;
  }

 private:
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  int64_t first_bad_ = kNone;
  double worst_ratio_ = 0;
  double max_error_ = 0;
  double diff_sq_ = 0;
  double ref_sq_ = 0;
};

// out (A.rows × L) against A·b, b(k, j) the dense operand: each row's L sums and magnitudes in
// double in entry order (spx::ref's arithmetic), rounded once to T, compared at once. Rows are
// spread over the threads dynamically (row lengths vary by orders of magnitude); the reductions
// are merged once per thread.
template <class T, class I, class Operand>
CheckResult check_rows(const Csr<T, I>& A, int64_t L, const Operand& b, const OutputView& out) {
  if (out.rows() != A.rows || out.cols() != L) return {};
  const double u = unit_roundoff<T>(), tiny = smallest_normal<T>();
  const double rounding = out.value_rounding(), below_normal = rounding > 0 ? std::ldexp(1.0, -150) : 0.0;
  const std::size_t width = static_cast<std::size_t>(L);
  Tally total;
#pragma omp parallel
  {
    Tally mine;
    std::vector<double> acc(width), magnitude(width), operand(width);
#pragma omp for schedule(dynamic, 64) nowait
    for (I i = 0; i < A.rows; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(magnitude.begin(), magnitude.end(), 0.0);
      std::fill(operand.begin(), operand.end(), 0.0);
      for (I k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
        const double a = static_cast<double>(A.values[k]);
        const int64_t col = A.col_idx[k];
        for (std::size_t j = 0; j < width; ++j) {
          const double p = a * static_cast<double>(b(col, static_cast<int64_t>(j)));
          acc[j] += p;
          magnitude[j] += std::abs(p);
          if (rounding > 0) operand[j] += std::abs(static_cast<double>(b(col, static_cast<int64_t>(j))));
        }
      }
      const int64_t len = A.row_length(i);
      const double factor = accumulation_error_factor(len, u);
      for (std::size_t j = 0; j < width; ++j) {
        const double want = static_cast<double>(static_cast<T>(acc[j]));
        // The values' own rounding (mixed precision) on top, and its effect on the sums' magnitude.
        const double rounded = rounding * magnitude[j] + below_normal * operand[j];
        const double tolerance =
            factor * (magnitude[j] + rounded) + rounded + static_cast<double>(len + 1) * tiny;
        const int64_t col = static_cast<int64_t>(j);
        mine.add(i + col * A.rows, out(i, col), want, tolerance);
      }
    }
#pragma omp critical(spx_bench_check)
    total.merge(mine);
  }
  return total.result();
}

}  // namespace

double accumulation_error_factor(int64_t k, double u) {
  const double ku = static_cast<double>(std::max<int64_t>(k, 1)) * u;
  if (ku >= 0.5) return 1.0;
  return ku / (1 - ku) + 2 * u;
}

template <class T, class I>
CheckResult check_spmv_any(const Csr<T, I>& A, std::span<const T> x, const OutputView& y) {
  if (static_cast<int64_t>(x.size()) != A.cols) throw Error("check_spmv: x does not match A's columns");
  return check_rows(
      A, 1, [x](int64_t k, int64_t) { return x[static_cast<std::size_t>(k)]; }, y);
}

template <class T, class I>
CheckResult check_spmm_any(const Csr<T, I>& A, const Dense<T>& B, const OutputView& C) {
  if (B.rows != A.cols) throw Error("check_spmm: B does not match A's columns");
  return check_rows(A, B.cols, B, C);
}

template <class T>
CheckResult check_spmv(const Csr<T, int32_t>& A, std::span<const T> x, const OutputView& y) {
  return check_spmv_any(A, x, y);
}
template <class T>
CheckResult check_spmv(const Csr<T, int64_t>& A, std::span<const T> x, const OutputView& y) {
  return check_spmv_any(A, x, y);
}
template <class T>
CheckResult check_spmm(const Csr<T, int32_t>& A, const Dense<T>& B, const OutputView& C) {
  return check_spmm_any(A, B, C);
}
template <class T>
CheckResult check_spmm(const Csr<T, int64_t>& A, const Dense<T>& B, const OutputView& C) {
  return check_spmm_any(A, B, C);
}

template <class T>
Projection gemm_projection(const Dense<T>& A, const Dense<T>& B, uint64_t seed) {
  if (A.cols != B.rows) throw Error("gemm reference: inner dimensions differ");
  const int64_t m = A.rows, k = A.cols, n = B.cols;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Projection r;
  r.vector.resize(static_cast<std::size_t>(n));
  for (auto& v : r.vector) v = uniform(rng);
  // Bv and |B||v| (length k), then A(Bv) and |A|(|B||v|) (length m), all in double.
  std::vector<double> bv(static_cast<std::size_t>(k), 0.0), bv_abs(static_cast<std::size_t>(k), 0.0);
  for (int64_t j = 0; j < n; ++j) {
    const double v = r.vector[static_cast<std::size_t>(j)];
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

CheckResult check_projection(const OutputView& C, const Projection& projection) {
  const int64_t m = static_cast<int64_t>(projection.expected.size());
  const int64_t n = static_cast<int64_t>(projection.vector.size());
  if (C.rows() != m || C.cols() != n) return {};
  // C·v by blocks of rows, each thread summing its rows over all columns.
  constexpr int64_t kBlock = 256;
  std::vector<double> projected(static_cast<std::size_t>(m), 0.0);
#pragma omp parallel for schedule(static)
  for (int64_t start = 0; start < m; start += kBlock) {
    const int64_t stop = std::min(m, start + kBlock);
    for (int64_t j = 0; j < n; ++j) {
      const double v = projection.vector[static_cast<std::size_t>(j)];
      for (int64_t i = start; i < stop; ++i) projected[static_cast<std::size_t>(i)] += C(i, j) * v;
    }
  }
  Tally tally;
  for (std::size_t i = 0; i < projected.size(); ++i)
    tally.add(static_cast<int64_t>(i), projected[i], projection.expected[i], projection.tolerance[i]);
  return tally.result();
}

template CheckResult check_spmv<float>(const Csr<float, int32_t>&, std::span<const float>, const OutputView&);
template CheckResult check_spmv<double>(const Csr<double, int32_t>&, std::span<const double>,
                                        const OutputView&);
template CheckResult check_spmm<float>(const Csr<float, int32_t>&, const Dense<float>&, const OutputView&);
template CheckResult check_spmm<double>(const Csr<double, int32_t>&, const Dense<double>&, const OutputView&);
template CheckResult check_spmv<float>(const Csr<float, int64_t>&, std::span<const float>, const OutputView&);
template CheckResult check_spmv<double>(const Csr<double, int64_t>&, std::span<const double>,
                                        const OutputView&);
template CheckResult check_spmm<float>(const Csr<float, int64_t>&, const Dense<float>&, const OutputView&);
template CheckResult check_spmm<double>(const Csr<double, int64_t>&, const Dense<double>&, const OutputView&);
template Projection gemm_projection<float>(const Dense<float>&, const Dense<float>&, uint64_t);
template Projection gemm_projection<double>(const Dense<double>&, const Dense<double>&, uint64_t);

}  // namespace spx::bench
