// Helpers for the GPU tests: skipping without a device, one shared Context, device-side error
// bounds, the test matrices (random and shared), typed-test parameters, and the expectations the
// SpMV, SpMM and GEMM tests check their kernels against.
//
// Tolerances. A GPU kernel accumulates in T (float or double), in any order (one thread, a
// warp's shuffle tree, cuSPARSE's merge path or atomics). For an output of n products,
//   |fl(d) - d| <= gamma_{n+2}(T) * m,   gamma_k = k u_T / (1 - k u_T),
//   m = |alpha| sum_k |a_k x_k| + |beta y_old|
// whatever the order (Higham, Accuracy and Stability of Numerical Algorithms, §3.1: the bound
// for recursive summation holds for every summation order, pairwise trees included; +2 for the
// alpha and beta operations). spx::ref rounds its double result to T once: u_T * m more. We
// check |got - ref| <= 2 * ((n + 3) u_T) * m, a factor 2 of slack over that sum. A wrong index,
// a missed or doubled entry, a read of padding or an unwritten (NaN-poisoned) output misses it by
// orders of magnitude; TF32 arithmetic in an fp32 GEMM (u = 2^-11) misses it too.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu/cpu_kernel_bounds.hpp"
#include "spx/convert.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/device.hpp"
#include "spx/io.hpp"
#include "test_support.hpp"

#define SPX_REQUIRE_GPU()                                                                        \
  do {                                                                                           \
    if (::spx::cuda::device_count() == 0) GTEST_SKIP() << ::spx::cuda::gpu_unavailable_reason(); \
  } while (0)

namespace spx::test {

// One context for the whole test binary (handle creation is slow; tests run one at a time). Never
// destroyed: tearing down cuSPARSE/cuBLAS handles after the CUDA runtime has shut down at exit can
// crash, and the process is ending anyway.
inline cuda::Context& gpu() {
  static cuda::Context* ctx = new cuda::Context(0);
  return *ctx;
}

// Typed tests over the two value types: TYPED_TEST_SUITE(Suite, Precisions). Left with gtest's
// default names (Suite/0, Suite/1): gtest_discover_tests turns only those into the CTest names
// Suite.Test<float> and Suite.Test<double>.
using Precisions = ::testing::Types<float, double>;

// "f32" or "f64", for failure labels.
template <class T>
const char* precision_name() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  return std::is_same_v<T, float> ? "f32" : "f64";
}

// A (value, index) type pair for typed tests over both: ::testing::Types<ValueIndex<float, int32_t>, ...>.
template <class T_, class I_>
struct ValueIndex {
  using T = T_;
  using I = I_;
};

// Bound for one output of a device kernel accumulating in T (see the top of this file).
template <class T>
double device_tolerance(double magnitude, int64_t terms) {
  const double u = std::numeric_limits<T>::epsilon() / 2;
  return 2.0 * static_cast<double>(terms + 3) * u * magnitude + std::numeric_limits<T>::denorm_min();
}

// Expects every |got[i] - want[i]| within device_tolerance; reports the first few offenders.
template <class T>
void expect_device_close(std::span<const T> got, std::span<const T> want,
                         const std::vector<double>& magnitude, const std::vector<int64_t>& terms,
                         const std::string& what) {
  expect_within_bounds(got, want, magnitude, terms, what, &device_tolerance<T>);
}

// True when a and b hold the same values bit for bit (the determinism checks: a rounding-level
// difference between runs is a failure there, which a tolerance would hide).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// rows × cols, random logical entries, NaN in the leading-dimension padding (`extra_ld` elements).
template <class T>
Dense<T> random_dense(int64_t rows, int64_t cols, Layout layout, uint64_t seed, int64_t extra_ld) {
  auto D = poisoned_dense<T>(rows, cols, layout, extra_ld);
  const auto v = random_vector<T>(static_cast<std::size_t>(rows * cols), seed);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) D(i, j) = v[static_cast<std::size_t>(i * cols + j)];
  return D;
}

// Random Csr with row `long_row` replaced by `long_len` distinct random columns: the one very
// long row among short ones that breaks one-thread-per-row load balance.
template <class T, class I>
Csr<T, I> with_long_row(const Csr<T, I>& A, I long_row, I long_len, uint64_t seed) {
  const auto row = random_csr<T, I>(1, A.cols, long_len, long_len, seed);
  Csr<T, I> B(A.rows, A.cols);
  for (I r = 0; r < A.rows; ++r) {
    const auto& src = r == long_row ? row : A;
    const I first = r == long_row ? I{0} : A.row_ptr[r],
            last = r == long_row ? row.row_ptr[1] : A.row_ptr[r + 1];
    for (I k = first; k < last; ++k) {
      B.col_idx.push_back(src.col_idx[k]);
      B.values.push_back(src.values[k]);
    }
    B.row_ptr[r + 1] = static_cast<I>(B.col_idx.size());
  }
  return B;
}

// A named random test matrix.
template <class T, class I>
struct NamedMatrix {
  std::string name;
  Csr<T, I> A;
};

// The random shapes every SpMV/SpMM kernel is checked on: odd sizes, empty rows, one very long
// row, 1×n, n×1, no nonzeros at all. The seed is printed by the caller.
template <class T, class I>
std::vector<NamedMatrix<T, I>> random_matrices(uint64_t seed) {
  std::vector<NamedMatrix<T, I>> out;
  out.push_back({"odd 1001x997, rows of 0..20, 10% empty", random_csr<T, I>(1001, 997, 0, 20, seed, 0.1)});
  out.push_back(
      {"one long row (5000 of 6000) among rows of 0..8",
       with_long_row(random_csr<T, I>(3001, 6000, 0, 8, seed + 1, 0.2), I{1234}, I{5000}, seed + 2)});
  out.push_back({"1x4099, dense row", random_csr<T, I>(1, 4099, 4099, 4099, seed + 3)});
  out.push_back({"3001x1 column", random_csr<T, I>(3001, 1, 0, 1, seed + 4, 0.3)});
  out.push_back({"no nonzeros 57x31", random_csr<T, I>(57, 31, 0, 0, seed + 5)});
  out.push_back({"70001x70001, rows of 1..40", random_csr<T, I>(70001, 70001, 1, 40, seed + 6)});
  return out;
}

// The shared real matrices (all *.mtx / *.mtx.gz in shared_matrices_dir()), read once as double
// and cached; empty when the folder is absent.
inline const std::map<std::string, Csr<double, int32_t>>& shared_matrices() {
  static const auto matrices = [] {
    std::map<std::string, Csr<double, int32_t>> m;
    const auto dir = shared_matrices_dir();
    if (dir.empty()) return m;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      const bool mtx = name.ends_with(".mtx") || name.ends_with(".mtx.gz");
      if (entry.is_regular_file() && mtx)
        m.emplace(name, read_matrix_market<double, int32_t>(entry.path().string()));
    }
    return m;
  }();
  return matrices;
}

template <class T>
Csr<T, int32_t> shared_as(const Csr<double, int32_t>& A) {
  if constexpr (std::is_same_v<T, double>)
    return A;
  else
    return cast<T, int32_t>(A);
}

// Runs check(name, A, seed) on every shared matrix as Csr<T, int32_t>: `name` is the file name and
// the precision ("cage10.mtx.gz f32"), `seed` one fresh seed for all (traced, so a failure can be
// replayed). Skips the test when the folder is absent (GTEST_SKIP leaves this function only: the
// test goes on after the call); stops after the first matrix with a failure, since one matrix's
// report is enough to act on and the rest would only add time.
template <class T, class Check>
void for_each_shared_matrix(Check&& check) {
  const auto& matrices = shared_matrices();
  if (matrices.empty()) GTEST_SKIP() << "shared matrices not found (set SPX_SHARED_MATRICES)";
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& [file, A] : matrices) {
    const std::string name = file + " " + precision_name<T>();
    if constexpr (std::is_same_v<T, double>)
      check(name, A, seed);  // the cached matrix itself: no copy
    else
      check(name, cast<T, int32_t>(A), seed);
    if (::testing::Test::HasFailure()) break;
  }
}

// One (alpha, beta) case of an SpMV check against spx::ref: the y a kernel starts from (NaN when
// beta == 0, so that an output the kernel does not write fails), spx::ref's result, and the
// per-row magnitudes and term counts of device_tolerance.
template <class T>
struct SpmvCase {
  T alpha{}, beta{};
  std::vector<T> y0, want;
  std::vector<double> magnitude;
  std::vector<int64_t> terms;

  // " alpha=... beta=...": the end of a failure's label.
  std::string label() const { return " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta); }

  void expect_close(const std::vector<T>& got, const std::string& what) const {
    expect_device_close(std::span<const T>(got), std::span<const T>(want), magnitude, terms, what);
  }
};

// The cases every SpMV kernel is checked in: (alpha, beta) = (1, 0) on a poisoned y, and
// (-1.5, 0.5), which reads y; y from seed + 1.
template <class T, class I>
std::vector<SpmvCase<T>> spmv_cases(const Csr<T, I>& A, const std::vector<T>& x, uint64_t seed) {
  std::vector<SpmvCase<T>> out;
  for (auto [alpha, beta] : {std::pair<T, T>{T{1}, T{0}}, std::pair<T, T>{T(-1.5), T(0.5)}}) {
    SpmvCase<T> c;
    c.alpha = alpha;
    c.beta = beta;
    c.y0 = random_vector<T>(static_cast<std::size_t>(A.rows), seed + 1);
    if (beta == T{0}) poison(std::span<T>(c.y0));
    c.want = c.y0;
    ref::spmv(A, std::span<const T>(x), std::span<T>(c.want), alpha, beta);
    spmv_bounds(A, std::span<const T>(x), std::span<const T>(c.y0), alpha, beta, c.magnitude, c.terms);
    out.push_back(std::move(c));
  }
  return out;
}

// One SpMM check against spx::ref: the C a kernel starts from (all NaN when beta == 0; otherwise
// random, with NaN in the leading-dimension padding), spx::ref's result, and the bounds.
template <class T>
struct SpmmCase {
  Dense<T> C0, want;
  std::vector<double> magnitude;
  std::vector<int64_t> terms;

  // Values within device_tolerance of spx::ref's, and C's padding still NaN.
  void expect_close(const Dense<T>& got, const std::string& what) const {
    expect_device_close(std::span<const T>(logical_entries(got)), std::span<const T>(logical_entries(want)),
                        magnitude, terms, what);
    EXPECT_TRUE(padding_untouched(got)) << what << ": wrote into C's leading-dimension padding";
  }
};

// C = alpha*A*B + beta*C for a C of A.rows × B.cols in `layout` with `extra_ld` padding, C from seed + 1.
template <class T, class I>
SpmmCase<T> spmm_case(const Csr<T, I>& A, const Dense<T>& B, Layout layout, T alpha, T beta, uint64_t seed,
                      int64_t extra_ld) {
  SpmmCase<T> c;
  c.C0 = beta == T{0} ? poisoned_dense<T>(A.rows, B.cols, layout, extra_ld)
                      : random_dense<T>(A.rows, B.cols, layout, seed + 1, extra_ld);
  c.want = c.C0;
  ref::spmm(A, B, c.want, alpha, beta);
  spmm_bounds(A, B, c.C0, alpha, beta, c.magnitude, c.terms);
  return c;
}

// Per-entry magnitude |alpha| sum_l |op(A)_il op(B)_lj| + |beta C_ij| of a column-major GEMM, for
// device_tolerance with k terms.
template <class T>
std::vector<double> gemm_magnitude(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
                                   int64_t lda, const T* B, int64_t ldb, T beta, const T* C, int64_t ldc) {
  const auto a = [&](int64_t i, int64_t l) { return op_a == Op::N ? A[i + l * lda] : A[l + i * lda]; };
  const auto b = [&](int64_t l, int64_t j) { return op_b == Op::N ? B[l + j * ldb] : B[j + l * ldb]; };
  std::vector<double> mag(static_cast<std::size_t>(m * n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l)
        s += std::abs(static_cast<double>(a(i, l)) * static_cast<double>(b(l, j)));
      mag[i + j * m] =
          std::abs(static_cast<double>(alpha)) * s +
          (beta == T{0} ? 0.0 : std::abs(static_cast<double>(beta) * static_cast<double>(C[i + j * ldc])));
    }
  return mag;
}

// The m × n entries of a column-major array with leading dimension ld, column by column, without
// the padding rows (the order of gemm_magnitude).
template <class T>
std::vector<T> column_major_entries(const std::vector<T>& a, int64_t m, int64_t n, int64_t ld) {
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(m * n));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) out.push_back(a[i + j * ld]);
  return out;
}

}  // namespace spx::test
