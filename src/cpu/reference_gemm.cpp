// Reference GEMM with BLAS semantics: C = alpha*op(A)*op(B) + beta*C, column-major, C m × n,
// op(A) m × k, op(B) k × n. As in the reference BLAS: m == 0 or n == 0 returns at once; k == 0
// or alpha == 0 only scales C by beta (A and B are not read); beta == 0 never reads C.
//
// Each C(i, j) is a sequential double sum over l = 0..k-1 rounded to T once. The loop order
// (j, l, i) keeps the innermost loop contiguous in A and C for op_a == N, the common case; the sum
// order per element is still l ascending, so the result does not depend on the op flags.
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/kernel_checks.hpp"
#include "spx/cpu.hpp"

namespace spx::ref {
namespace {

const char* op_name(Op op) { return op == Op::N ? "N" : "T"; }

void check_gemm_arguments(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                          int64_t ldc) {
  if (m < 0 || n < 0 || k < 0) throw Error(fmt::format("gemm: negative size m={} n={} k={}", m, n, k));
  // BLAS minimums: the leading dimension is the row count of the stored (not transposed) matrix.
  const int64_t min_lda = std::max<int64_t>(1, op_a == Op::N ? m : k);
  const int64_t min_ldb = std::max<int64_t>(1, op_b == Op::N ? k : n);
  const int64_t min_ldc = std::max<int64_t>(1, m);
  if (lda < min_lda)
    throw Error(fmt::format("gemm: lda = {} is too small, op(A) = {} with m={} k={} needs lda >= {}", lda,
                            op_name(op_a), m, k, min_lda));
  if (ldb < min_ldb)
    throw Error(fmt::format("gemm: ldb = {} is too small, op(B) = {} with k={} n={} needs ldb >= {}", ldb,
                            op_name(op_b), k, n, min_ldb));
  if (ldc < min_ldc)
    throw Error(fmt::format("gemm: ldc = {} is too small, m={} needs ldc >= {}", ldc, m, min_ldc));
}

}  // namespace

template <class T>
void gemm(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
          int64_t ldb, T beta, T* C, int64_t ldc) {
  check_gemm_arguments(op_a, op_b, m, n, k, lda, ldb, ldc);
  if (m == 0 || n == 0) return;
  if (C == nullptr) throw Error("gemm: C is null");
  const auto c_at = [&](int64_t i, int64_t j) -> T& { return C[i + j * ldc]; };
  if (k == 0 || alpha == T{0}) {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) c_at(i, j) = cpu_detail::scaled(beta, c_at(i, j));
    return;
  }
  if (A == nullptr || B == nullptr) throw Error("gemm: A or B is null");
  // op(A)(i, l) and op(B)(l, j) in the stored column-major arrays.
  const auto a_at = [&](int64_t i, int64_t l) {
    return static_cast<double>(op_a == Op::N ? A[i + l * lda] : A[l + i * lda]);
  };
  const auto b_at = [&](int64_t l, int64_t j) {
    return static_cast<double>(op_b == Op::N ? B[l + j * ldb] : B[j + l * ldb]);
  };
  std::vector<double> column(static_cast<std::size_t>(m));
  for (int64_t j = 0; j < n; ++j) {
    std::fill(column.begin(), column.end(), 0.0);
    for (int64_t l = 0; l < k; ++l) {
      const double b = b_at(l, j);
      for (int64_t i = 0; i < m; ++i) column[i] += a_at(i, l) * b;
    }
    for (int64_t i = 0; i < m; ++i) c_at(i, j) = cpu_detail::combine(column[i], alpha, beta, c_at(i, j));
  }
}

template void gemm<float>(Op, Op, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                          int64_t, float, float*, int64_t);
template void gemm<double>(Op, Op, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                           int64_t, double, double*, int64_t);

}  // namespace spx::ref
