// Checking a kernel's output against the reference, with tolerances derived from rounding-error
// analysis rather than picked by hand.
//
// A dot product of length k computed in precision T, in any summation order, satisfies
// |fl(a·x) − a·x| ≤ γ_k · (|a|·|x|) with γ_k = k·u / (1 − k·u), u = 2^-24 (f32) or 2^-53 (f64)
// (Higham, Accuracy and Stability of Numerical Algorithms, §3.1). The reference (spx::ref,
// accumulating in double, rounded once to T) is within u·|a·x| of the exact value. So we accept
// output element i when
//     |y_i − y_ref_i| ≤ (γ_k + 2u) · (|A|·|x|)_i + k · (smallest normal of T)
// with k the length of row i. The bound is per element, so one wrong row fails the check; it
// needs no hand-picked tolerance, and it is loose only where cancellation makes the result
// itself ill-conditioned. A NaN anywhere (e.g. an element left poisoned) fails.
//
// SpMV and SpMM compare every element with spx::ref::spmv / spx::ref::spmm. GEMM is checked by a
// random projection (Freivalds): C·v against A·(B·v) computed in double for a random v, with the
// bound (γ_N + 2·γ_2N(double) + 2u) · (|A|·|B|·|v|)_i — O(N²) work, so large GPU GEMMs are
// checked too.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "spx/matrix.hpp"

namespace spx::bench {

struct Reference {
  std::vector<double> expected;   // the reference output (or projection, for GEMM)
  std::vector<double> tolerance;  // absolute tolerance per element of `expected`
  // GEMM only: the output (column-major, expected.size() rows) is multiplied by this vector
  // before comparing. Empty for SpMV and SpMM.
  std::vector<double> projection;
};

struct CheckResult {
  bool passed = false;
  double relative_error = 0;  // ||out − ref||₂ / ||ref||₂ (||out − ref||₂ when ref is zero)
  double worst_ratio = 0;     // max_i |out_i − ref_i| / tolerance_i (≤ 1 passes; inf for NaN)
  int64_t first_bad = -1;     // index of the first element out of tolerance
};

template <class T>
Reference spmv_reference(const Csr<T, int32_t>& A, std::span<const T> x);
template <class T>
Reference spmm_reference(const Csr<T, int32_t>& A, const Dense<T>& B);
template <class T>
Reference gemm_reference(const Dense<T>& A, const Dense<T>& B, uint64_t seed);

CheckResult check_output(const std::vector<double>& output, const Reference& reference);

// γ_k + 2u for precision T (capped at 1 where k·u approaches 1 and the bound says nothing).
double accumulation_error_factor(int64_t k, double unit_roundoff);

}  // namespace spx::bench
