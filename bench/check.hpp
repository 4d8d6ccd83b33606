// Checking a kernel's output against the reference, with tolerances derived from rounding-error
// analysis rather than picked by hand. The one checker of spx: `spx bench`, `spx spmv`, `spx spmm`
// and `spx gemm` all read their verdicts from here.
//
// A dot product of length k computed in precision T, in any summation order, satisfies
// |fl(a·x) − a·x| ≤ γ_k · (|a|·|x|) with γ_k = k·u / (1 − k·u), u = 2^-24 (f32) or 2^-53 (f64)
// (Higham, Accuracy and Stability of Numerical Algorithms, §3.1). The reference (spx::ref,
// accumulating in double, rounded once to T) is within u·|a·x| of the exact value. So we accept
// output element i when
//     |y_i − y_ref_i| ≤ (γ_k + 2u) · (|A|·|x|)_i + (k + 1) · (smallest normal of T)
// with k the length of row i. The bound is per element, so one wrong row fails the check; it
// needs no hand-picked tolerance, and it is loose only where cancellation makes the result
// itself ill-conditioned. A NaN anywhere (e.g. an element left poisoned) fails.
//
// SpMV and SpMM are checked fused: each row's reference is computed with spx::ref's arithmetic
// (products and sums in double, in entry order, one rounding to T) while it is compared, in
// parallel over rows, and never stored; so an output of gigabytes (a host-resident C) costs no
// second copy of itself, and the output is read where the kernel left it (OutputView). GEMM is
// checked by a random projection (Freivalds): C·v against A·(B·v) computed in double for a random
// v, with the bound (γ_N + 2·γ_2N(double) + 2u) · (|A|·|B|·|v|)_i — O(N²) work, so large GPU GEMMs
// are checked too.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

#include "spx/matrix.hpp"

namespace spx::bench {

// A kernel's output where it lies: host memory in the kernel's own precision and layout (a CPU
// kernel's vector, a device output staged to pinned memory, a host-resident C), read by the checker
// without a copy. Valid until the instance runs again.
class OutputView {
 public:
  OutputView() = default;
  // rows × cols with leading dimension ld in `layout`; a vector is rows × 1.
  template <class T>
  OutputView(const T* data, int64_t rows, int64_t cols, int64_t ld, Layout layout)
      : data_(data), f32_(std::is_same_v<T, float>), rows_(rows), cols_(cols), ld_(ld), layout_(layout) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "outputs are float or double");
  }
  template <class T>
  explicit OutputView(std::span<const T> vector)
      : OutputView(vector.data(), static_cast<int64_t>(vector.size()), 1, static_cast<int64_t>(vector.size()),
                   Layout::ColMajor) {}
  template <class T>
  explicit OutputView(const Dense<T>& M) : OutputView(M.data.data(), M.rows, M.cols, M.ld, M.layout) {}

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  // An output computed from the matrix's values rounded to a coarser precision (mixed precision:
  // its unit roundoff, 2^-24 for float values): the check adds that rounding's bound,
  // rounding · (|A|·|b|)_i + 2^-150 · Σ_k |b_k| over the row (spx/mixed_precision.hpp).
  double value_rounding() const { return value_rounding_; }
  OutputView& with_value_rounding(double unit) {
    value_rounding_ = unit;
    return *this;
  }
  double operator()(int64_t i, int64_t j) const {
    const int64_t at = layout_ == Layout::ColMajor ? i + j * ld_ : i * ld_ + j;
    return f32_ ? static_cast<double>(static_cast<const float*>(data_)[at])
                : static_cast<const double*>(data_)[at];
  }

 private:
  const void* data_ = nullptr;
  bool f32_ = false;
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  int64_t ld_ = 0;
  Layout layout_ = Layout::ColMajor;
  double value_rounding_ = 0;
};

struct CheckResult {
  bool passed = false;
  double relative_error = 0;  // ||out − ref||₂ / ||ref||₂ (||out − ref||₂ when ref is zero)
  double worst_ratio = 0;     // max_i |out_i − ref_i| / tolerance_i (≤ 1 passes; inf for NaN)
  double max_error = 0;       // max_i |out_i − ref_i| over the elements that are not NaN
  int64_t first_bad = -1;     // column-major index (i + j·rows) of the first element out of tolerance
};

// The check of one problem's outputs: made once per (matrix, op, precision) from its inputs, called
// once per kernel.
using Checker = std::function<CheckResult(const OutputView&)>;

// y = A·x and C = A·B (B in any layout) against spx::ref's arithmetic, fused and parallel over rows.
// A wrong shape fails (first_bad = -1).
template <class T>
CheckResult check_spmv(const Csr<T, int32_t>& A, std::span<const T> x, const OutputView& y);
template <class T>
CheckResult check_spmm(const Csr<T, int32_t>& A, const Dense<T>& B, const OutputView& C);
// The same for a matrix with 64-bit indices: spx spmv/spmm --index 64 check the rows of a sample
// (A holds those rows only, `out` their outputs in the same order), since a reference over billions
// of nonzeros would cost the host far more than the product.
template <class T>
CheckResult check_spmv(const Csr<T, int64_t>& A, std::span<const T> x, const OutputView& y);
template <class T>
CheckResult check_spmm(const Csr<T, int64_t>& A, const Dense<T>& B, const OutputView& C);

// GEMM's random projection: `expected` = A·(B·v) in double and its bound `tolerance`, per row of C.
struct Projection {
  std::vector<double> vector;  // v, one entry per column of C
  std::vector<double> expected;
  std::vector<double> tolerance;
};
template <class T>
Projection gemm_projection(const Dense<T>& A, const Dense<T>& B, uint64_t seed);
// C·v against the projection (C is expected.size() × vector.size()).
CheckResult check_projection(const OutputView& C, const Projection& projection);

// γ_k + 2u for precision T (capped at 1 where k·u approaches 1 and the bound says nothing).
double accumulation_error_factor(int64_t k, double unit_roundoff);

}  // namespace spx::bench
