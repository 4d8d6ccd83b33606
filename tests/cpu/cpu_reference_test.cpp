// spx::ref against hand-computed tiny cases and against brute-force dense loops written here
// (no spx conversion is trusted for the oracle's own checks; conversions only produce the other
// formats, whose results must then agree with the Csr reference). Tolerances: cpu_kernel_bounds.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "cpu/cpu_kernel_bounds.hpp"
#include "spx/convert.hpp"
#include "spx/cpu.hpp"
#include "test_support.hpp"

namespace spx::test {
namespace {

template <class T_, class I_>
struct Types {
  using T = T_;
  using I = I_;
};
using ValueIndexTypes = ::testing::Types<Types<float, int32_t>, Types<float, int64_t>, Types<double, int32_t>,
                                         Types<double, int64_t>>;

template <class P>
class CpuReference : public ::testing::Test {};
TYPED_TEST_SUITE(CpuReference, ValueIndexTypes);

constexpr int kPad = kPadding;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// The 3 × 4 matrix            and x = (1, 2, 3, 4):   A*x = (7, 0, 22)
//   [1 0 2 0]
//   [0 0 0 0]
//   [0 3 0 4]
template <class T, class I>
Csr<T, I> tiny_csr() {
  Csr<T, I> A(3, 4);
  A.row_ptr = {0, 2, 2, 4};
  A.col_idx = {0, 2, 1, 3};
  A.values = {1, 2, 3, 4};
  return A;
}

// The same matrix in every other format, built by hand (not by spx's conversions).
template <class T, class I>
Coo<T, I> tiny_coo() {  // out of order, and (2, 3) split into the duplicates 1 + 3
  Coo<T, I> A;
  A.rows = 3;
  A.cols = 4;
  A.row_idx = {2, 0, 2, 2, 0};
  A.col_idx = {3, 2, 1, 3, 0};
  A.values = {1, 2, 3, 3, 1};
  return A;
}

template <class T, class I>
Ell<T, I> tiny_ell(I ld) {  // width 2, ld > rows; rows >= 3 are all padding
  Ell<T, I> A;
  A.rows = 3;
  A.cols = 4;
  A.width = 2;
  A.ld = ld;
  A.col_idx.assign(static_cast<std::size_t>(ld) * 2, I{kPad});
  A.values.assign(static_cast<std::size_t>(ld) * 2, T{0});
  const auto set = [&](I r, I k, I c, T v) {
    A.col_idx[A.slot(r, k)] = c;
    A.values[A.slot(r, k)] = v;
  };
  set(0, 0, 0, 1);
  set(0, 1, 2, 2);
  set(2, 0, 1, 3);
  set(2, 1, 3, 4);
  return A;
}

template <class T, class I>
EllR<T, I> tiny_ellr() {
  EllR<T, I> A;
  A.rows = 3;
  A.cols = 4;
  A.width = 2;
  A.rows_padded = 32;
  A.col_idx.assign(64, I{kPad});
  // Garbage in the padding values: EllR kernels must stop at row_len and never read them.
  A.values.assign(64, static_cast<T>(kNaN));
  A.row_len.assign(32, 0);
  const auto set = [&](I r, I k, I c, T v) {
    A.col_idx[A.slot(r, k)] = c;
    A.values[A.slot(r, k)] = v;
  };
  set(0, 0, 0, 1);
  set(0, 1, 2, 2);
  set(2, 0, 1, 3);
  set(2, 1, 3, 4);
  A.row_len[0] = 2;
  A.row_len[2] = 2;
  return A;
}

template <class T, class I>
Hyb<T, I> tiny_hyb() {  // Ell width 1 (first entry of each row), the rest in the Coo tail
  Hyb<T, I> A;
  A.ell = tiny_ell<T, I>(32);
  A.ell.width = 1;
  A.ell.col_idx.resize(32);
  A.ell.values.resize(32);
  A.coo.rows = 3;
  A.coo.cols = 4;
  A.coo.row_idx = {0, 2};
  A.coo.col_idx = {2, 3};
  A.coo.values = {2, 4};
  return A;
}

// x has an extra entry (x may be longer than cols) holding NaN that must never be read.
template <class T>
std::vector<T> tiny_x() {
  return {1, 2, 3, 4, static_cast<T>(kNaN)};
}

TYPED_TEST(CpuReference, TinyCaseIsExactInEveryFormat) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const std::vector<T> x = tiny_x<T>();
  // y = 2*A*x - y_old with y_old = (1, 1, 1) and a 4th entry beyond rows that must stay as is.
  const std::vector<T> expected = {13, -1, 43, 5};
  const auto run = [&](const auto& A, const char* name) {
    std::vector<T> y = {1, 1, 1, 5};
    ref::spmv(A, std::span<const T>(x), std::span<T>(y), T{2}, T{-1});
    EXPECT_EQ(y, expected) << name;
    // beta == 0: y is written, never read.
    std::vector<T> fresh(4, static_cast<T>(kNaN));
    ref::spmv(A, std::span<const T>(x), std::span<T>(fresh), T{1}, T{0});
    EXPECT_EQ(fresh[0], T{7}) << name;
    EXPECT_EQ(fresh[1], T{0}) << name;
    EXPECT_EQ(fresh[2], T{22}) << name;
    EXPECT_TRUE(std::isnan(fresh[3])) << name << ": entry beyond rows was written";
  };
  run(tiny_csr<T, I>(), "Csr");
  run(tiny_coo<T, I>(), "Coo");
  run(tiny_ell<T, I>(3), "Ell ld=3");
  run(tiny_ell<T, I>(32), "Ell ld=32");
  run(tiny_ellr<T, I>(), "EllR");
  run(tiny_hyb<T, I>(), "Hyb");
}

TYPED_TEST(CpuReference, TinySpmmIsExact) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  // B = [x, 2x] (4 × 2) so C = [A*x, 2*A*x] = [(7, 0, 22), (14, 0, 44)].
  for (Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
    Dense<T> B(4, 2, layout);
    for (int64_t i = 0; i < 4; ++i) {
      B(i, 0) = static_cast<T>(i + 1);
      B(i, 1) = static_cast<T>(2 * (i + 1));
    }
    const auto check = [&](const auto& A, const char* name) {
      Dense<T> C(3, 2, layout, static_cast<T>(kNaN));
      ref::spmm(A, B, C, T{1}, T{0});
      EXPECT_EQ(C(0, 0), T{7}) << name;
      EXPECT_EQ(C(1, 0), T{0}) << name;
      EXPECT_EQ(C(2, 0), T{22}) << name;
      EXPECT_EQ(C(0, 1), T{14}) << name;
      EXPECT_EQ(C(2, 1), T{44}) << name;
    };
    check(tiny_csr<T, I>(), "Csr");
    check(tiny_ellr<T, I>(), "EllR");
  }
}

// y_i = alpha * sum_j dense(i, j) * x_j + beta * y_i over every column j, zeros included, from a
// dense copy filled straight from the Csr arrays.
template <class T, class I>
std::vector<T> dense_spmv(const Csr<T, I>& A, const std::vector<T>& x, const std::vector<T>& y_old,
                          double alpha, double beta) {
  const auto cols = static_cast<std::size_t>(A.cols);
  std::vector<double> dense(static_cast<std::size_t>(A.rows) * cols, 0.0);
  for (I r = 0; r < A.rows; ++r)
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) dense[r * cols + A.col_idx[k]] += A.values[k];
  std::vector<T> y(y_old);
  for (std::size_t r = 0; r < static_cast<std::size_t>(A.rows); ++r) {
    double sum = 0;
    for (std::size_t c = 0; c < cols; ++c) sum += dense[r * cols + c] * static_cast<double>(x[c]);
    y[r] = static_cast<T>(alpha * sum + (beta == 0 ? 0.0 : beta * static_cast<double>(y_old[r])));
  }
  return y;
}

struct Shape {
  int64_t rows, cols, min_len, max_len;
  double empty_fraction;
};

TYPED_TEST(CpuReference, CsrMatchesDenseBruteForce) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(testing::Message() << "SPX_TEST_SEED=" << seed);
  const Shape shapes[] = {{37, 53, 0, 9, 0.2},   {1, 200, 1, 200, 0}, {200, 1, 0, 1, 0.3},
                          {64, 64, 10, 64, 0.1}, {5, 3, 0, 0, 0},     {0, 0, 0, 0, 0}};
  const double alphas_betas[][2] = {{1, 0}, {-0.75, 0}, {1.5, -0.25}, {0, 2}, {1, 1}};
  for (const Shape& s : shapes) {
    const auto A = random_csr<T, I>(static_cast<I>(s.rows), static_cast<I>(s.cols), static_cast<I>(s.min_len),
                                    static_cast<I>(s.max_len), seed, s.empty_fraction);
    const auto x = random_vector<T>(static_cast<std::size_t>(s.cols), seed + 1);
    const auto y_old = random_vector<T>(static_cast<std::size_t>(s.rows), seed + 2);
    for (const auto& ab : alphas_betas) {
      SCOPED_TRACE(testing::Message() << s.rows << "x" << s.cols << " alpha=" << ab[0] << " beta=" << ab[1]);
      std::vector<T> y(y_old);
      if (ab[1] == 0) poison(std::span<T>(y));
      ref::spmv(A, std::span<const T>(x), std::span<T>(y), static_cast<T>(ab[0]), static_cast<T>(ab[1]));
      const auto want = dense_spmv(A, x, y_old, ab[0], ab[1]);
      std::vector<double> m;
      std::vector<int64_t> n;
      spmv_bounds(A, std::span<const T>(x), std::span<const T>(y_old), ab[0], ab[1], m, n);
      expect_within_bounds(std::span<const T>(y), std::span<const T>(want), m, n, "ref Csr vs dense");
    }
  }
}

// Every other format, produced by spx's conversions from random Csr matrices (and the Coo
// shuffled), must give the Csr reference's result.
TYPED_TEST(CpuReference, AllFormatsAgreeWithCsr) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(testing::Message() << "SPX_TEST_SEED=" << seed);
  const Shape shapes[] = {{37, 53, 0, 9, 0.2},   {1, 200, 1, 200, 0}, {200, 1, 0, 1, 0.3},
                          {300, 97, 0, 40, 0.5}, {33, 33, 0, 0, 0},   {0, 0, 0, 0, 0}};
  std::mt19937_64 rng(seed);
  for (const Shape& s : shapes) {
    SCOPED_TRACE(testing::Message() << s.rows << "x" << s.cols);
    const auto A = random_csr<T, I>(static_cast<I>(s.rows), static_cast<I>(s.cols), static_cast<I>(s.min_len),
                                    static_cast<I>(s.max_len), seed + 3, s.empty_fraction);
    const auto x = random_vector<T>(static_cast<std::size_t>(s.cols), seed + 4);
    const auto y_old = random_vector<T>(static_cast<std::size_t>(s.rows), seed + 5);
    const T alpha = T{1.25}, beta = T{-0.5};
    std::vector<T> want(y_old);
    ref::spmv(A, std::span<const T>(x), std::span<T>(want), alpha, beta);
    std::vector<double> m;
    std::vector<int64_t> n;
    spmv_bounds(A, std::span<const T>(x), std::span<const T>(y_old), alpha, beta, m, n);
    const auto check = [&](const auto& B, const char* name) {
      std::vector<T> y(y_old);
      ref::spmv(B, std::span<const T>(x), std::span<T>(y), alpha, beta);
      expect_within_bounds(std::span<const T>(y), std::span<const T>(want), m, n, name);
    };
    auto coo = to_coo(A);
    std::vector<std::size_t> order(coo.values.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    Coo<T, I> shuffled = coo;
    for (std::size_t k = 0; k < order.size(); ++k) {
      shuffled.row_idx[k] = coo.row_idx[order[k]];
      shuffled.col_idx[k] = coo.col_idx[order[k]];
      shuffled.values[k] = coo.values[order[k]];
    }
    check(coo, "Coo sorted");
    check(shuffled, "Coo shuffled");
    check(to_ell(A), "Ell");
    check(to_ellr(A), "EllR");
    check(to_hyb(A), "Hyb default width");
    check(to_hyb(A, I{0}), "Hyb width 0");
    check(to_hyb(A, I{2}), "Hyb width 2");
  }
}

// One row of 200k nonzeros among short rows: float sums stay within ~1 ulp because the reference
// accumulates in double.
TYPED_TEST(CpuReference, HugeRowMatchesDenseBruteForce) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(testing::Message() << "SPX_TEST_SEED=" << seed);
  const I cols = 250000;
  Csr<T, I> A = random_csr<T, I>(3, cols, 0, 5, seed);
  // Rows 0 and 2 short and random, row 1 every column not divisible by 5: 200k entries.
  Csr<T, I> B(3, cols);
  const auto x = random_vector<T>(static_cast<std::size_t>(cols), seed + 1);
  const auto big_values = random_vector<T>(static_cast<std::size_t>(cols), seed + 2);
  for (I r = 0; r < 3; ++r) {
    if (r == 1) {
      for (I c = 0; c < cols; ++c)
        if (c % 5 != 0) {
          B.col_idx.push_back(c);
          B.values.push_back(big_values[c]);
        }
    } else {
      for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
        B.col_idx.push_back(A.col_idx[k]);
        B.values.push_back(A.values[k]);
      }
    }
    B.row_ptr[r + 1] = static_cast<I>(B.col_idx.size());
  }
  ASSERT_EQ(B.row_length(1), 200000);
  const std::vector<T> y_old = {1, 2, 3};
  std::vector<T> y(y_old);
  ref::spmv(B, std::span<const T>(x), std::span<T>(y), T{1}, T{0.5});
  const auto want = dense_spmv(B, x, y_old, 1.0, 0.5);
  std::vector<double> m;
  std::vector<int64_t> n;
  spmv_bounds(B, std::span<const T>(x), std::span<const T>(y_old), 1.0, 0.5, m, n);
  expect_within_bounds(std::span<const T>(y), std::span<const T>(want), m, n, "huge row");
}

TYPED_TEST(CpuReference, AlphaZeroOnlyScalesY) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  // x is all NaN: with alpha == 0 neither A nor x is read (BLAS convention), so y = beta*y exactly.
  const std::vector<T> x(5, static_cast<T>(kNaN));
  const auto run = [&](const auto& A, const char* name) {
    std::vector<T> y = {1, -2, 3};
    ref::spmv(A, std::span<const T>(x), std::span<T>(y), T{0}, T{2});
    EXPECT_EQ(y, (std::vector<T>{2, -4, 6})) << name;
    std::vector<T> z(3, static_cast<T>(kNaN));
    ref::spmv(A, std::span<const T>(x), std::span<T>(z), T{0}, T{0});
    EXPECT_EQ(z, (std::vector<T>{0, 0, 0})) << name;
  };
  run(tiny_csr<T, I>(), "Csr");
  run(tiny_coo<T, I>(), "Coo");
  run(tiny_ell<T, I>(32), "Ell");
  run(tiny_ellr<T, I>(), "EllR");
  run(tiny_hyb<T, I>(), "Hyb");
}

TYPED_TEST(CpuReference, EmptyMatricesAreFine) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  std::vector<T> none;
  ref::spmv(Csr<T, I>(0, 0), std::span<const T>(none), std::span<T>(none));
  ref::spmv(Coo<T, I>{}, std::span<const T>(none), std::span<T>(none));
  ref::spmv(Ell<T, I>{}, std::span<const T>(none), std::span<T>(none));
  ref::spmv(EllR<T, I>{}, std::span<const T>(none), std::span<T>(none));
  ref::spmv(Hyb<T, I>{}, std::span<const T>(none), std::span<T>(none));
  // 4 × 0: no columns, so y = beta*y (and y = 0 with beta = 0 and NaN in y).
  std::vector<T> y(4, static_cast<T>(kNaN));
  ref::spmv(Csr<T, I>(4, 0), std::span<const T>(none), std::span<T>(y), T{1}, T{0});
  EXPECT_EQ(y, std::vector<T>(4, T{0}));
  Dense<T> B(0, 3), C(4, 3, Layout::RowMajor, static_cast<T>(kNaN));
  ref::spmm(Csr<T, I>(4, 0), B, C);
  EXPECT_EQ(C.data, std::vector<T>(12, T{0}));
}

TYPED_TEST(CpuReference, WrongSizesAreErrors) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const auto A = random_csr<T, I>(4, 10, 1, 3, 7);
  std::vector<T> x(10), y(4), short_x(9), short_y(3);
  expect_error([&] { ref::spmv(A, std::span<const T>(short_x), std::span<T>(y)); },
               "spmv: x has 9 entries, matrix has 10 columns");
  expect_error([&] { ref::spmv(A, std::span<const T>(x), std::span<T>(short_y)); },
               "spmv: y has 3 entries, matrix has 4 rows");
  expect_error([&] { ref::spmv(to_ellr(A), std::span<const T>(short_x), std::span<T>(y)); },
               "x has 9 entries");

  auto bad = A;
  bad.col_idx[1] = 10;
  expect_error([&] { ref::spmv(bad, std::span<const T>(x), std::span<T>(y)); }, "column index 10");
  bad = A;
  bad.row_ptr.pop_back();
  expect_error([&] { ref::spmv(bad, std::span<const T>(x), std::span<T>(y)); }, "row_ptr has 4 entries");
  bad = A;
  bad.values.pop_back();
  expect_error([&] { ref::spmv(bad, std::span<const T>(x), std::span<T>(y)); }, "values");

  std::vector<T> tx(4), ty(3);
  auto coo = tiny_coo<T, I>();
  coo.row_idx[0] = 3;
  expect_error([&] { ref::spmv(coo, std::span<const T>(tx), std::span<T>(ty)); }, "Coo row index 3");
  auto ell = tiny_ell<T, I>(32);
  ell.ld = 2;
  expect_error([&] { ref::spmv(ell, std::span<const T>(tx), std::span<T>(ty)); }, "Ell ld 2");
  ell = tiny_ell<T, I>(32);
  ell.col_idx[ell.slot(1, 0)] = -2;
  expect_error([&] { ref::spmv(ell, std::span<const T>(tx), std::span<T>(ty)); }, "column index -2");
  auto ellr = tiny_ellr<T, I>();
  ellr.row_len[1] = 3;
  expect_error([&] { ref::spmv(ellr, std::span<const T>(tx), std::span<T>(ty)); }, "row_len[1] = 3");
  ellr = tiny_ellr<T, I>();
  ellr.row_len[1] = 1;  // slot 0 of row 1 is padding: inside row_len that is an error
  expect_error([&] { ref::spmv(ellr, std::span<const T>(tx), std::span<T>(ty)); }, "EllR column index -1");
  auto hyb = tiny_hyb<T, I>();
  hyb.coo.cols = 5;
  expect_error([&] { ref::spmv(hyb, std::span<const T>(tx), std::span<T>(ty)); }, "Hyb parts differ");
}

// C_ij = alpha * sum_k A(i, k) B(k, j) + beta * C_ij with a dense copy of A from the Csr arrays.
template <class T, class I>
std::vector<T> dense_spmm(const Csr<T, I>& A, const Dense<T>& B, const Dense<T>& C_old, double alpha,
                          double beta) {
  const auto cols = static_cast<std::size_t>(A.cols);
  std::vector<double> dense(static_cast<std::size_t>(A.rows) * cols, 0.0);
  for (I r = 0; r < A.rows; ++r)
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) dense[r * cols + A.col_idx[k]] += A.values[k];
  std::vector<T> out;
  for (int64_t i = 0; i < A.rows; ++i)
    for (int64_t j = 0; j < B.cols; ++j) {
      double sum = 0;
      for (std::size_t c = 0; c < cols; ++c)
        sum += dense[static_cast<std::size_t>(i) * cols + c] *
               static_cast<double>(B(static_cast<int64_t>(c), j));
      out.push_back(
          static_cast<T>(alpha * sum + (beta == 0 ? 0.0 : beta * static_cast<double>(C_old(i, j)))));
    }
  return out;
}

TYPED_TEST(CpuReference, SpmmMatchesDenseBruteForceInEveryLayout) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(testing::Message() << "SPX_TEST_SEED=" << seed);
  const auto A = random_csr<T, I>(41, 29, 0, 12, seed, 0.2);
  const auto A_ellr = to_ellr(A);
  for (int64_t L : {1, 5, 8}) {
    for (Layout b_layout : {Layout::RowMajor, Layout::ColMajor})
      for (Layout c_layout : {Layout::RowMajor, Layout::ColMajor})
        for (double beta : {0.0, -0.5}) {
          SCOPED_TRACE(testing::Message()
                       << "L=" << L << " B " << (b_layout == Layout::RowMajor ? "row" : "col") << " C "
                       << (c_layout == Layout::RowMajor ? "row" : "col") << " beta=" << beta);
          // Leading dimensions with padding, the padding NaN: it must be neither read nor written.
          Dense<T> B = poisoned_dense<T>(A.cols, L, b_layout, 3);
          Dense<T> C_old = poisoned_dense<T>(A.rows, L, c_layout, 2);
          const auto b_values = random_vector<T>(static_cast<std::size_t>(A.cols * L), seed + 1);
          const auto c_values = random_vector<T>(static_cast<std::size_t>(A.rows * L), seed + 2);
          for (int64_t i = 0; i < A.cols; ++i)
            for (int64_t j = 0; j < L; ++j) B(i, j) = b_values[i * L + j];
          if (beta != 0)
            for (int64_t i = 0; i < A.rows; ++i)
              for (int64_t j = 0; j < L; ++j) C_old(i, j) = c_values[i * L + j];
          const auto want = dense_spmm(A, B, C_old, 0.75, beta);
          std::vector<double> m;
          std::vector<int64_t> n;
          spmm_bounds(A, B, C_old, 0.75, beta, m, n);
          Dense<T> C = C_old;
          ref::spmm(A, B, C, T{0.75}, static_cast<T>(beta));
          expect_within_bounds(std::span<const T>(logical_entries(C)), std::span<const T>(want), m, n, "Csr");
          EXPECT_TRUE(padding_untouched(C));
          C = C_old;
          ref::spmm(A_ellr, B, C, T{0.75}, static_cast<T>(beta));
          expect_within_bounds(std::span<const T>(logical_entries(C)), std::span<const T>(want), m, n,
                               "EllR");
          EXPECT_TRUE(padding_untouched(C));
        }
  }
}

TYPED_TEST(CpuReference, SpmmWrongSizesAreErrors) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const auto A = tiny_csr<T, I>();  // 3 × 4
  Dense<T> B(4, 2), C(3, 2);
  Dense<T> short_B(5, 2), wide_C(3, 3);
  expect_error([&] { ref::spmm(A, short_B, C); }, "spmm: B has 5 rows, A has 4 columns");
  expect_error([&] { ref::spmm(A, B, wide_C); }, "spmm: C is 3 x 3, expected 3 x 2");
  Dense<T> bad_ld = B;
  bad_ld.ld = 3;
  expect_error([&] { ref::spmm(A, bad_ld, C); }, "B has leading dimension 3, needs at least 4");
  Dense<T> short_data = C;
  short_data.data.pop_back();
  expect_error([&] { ref::spmm(A, B, short_data); }, "C holds 5 values");
  expect_error([&] { ref::spmm(tiny_ellr<T, I>(), short_B, C); }, "B has 5 rows");
}

// ---- GEMM ----

template <class T>
class CpuReferenceGemm : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuReferenceGemm, ValueTypes);

// A stored column-major operand with ld = rows + extra, padding NaN.
template <class T>
std::vector<T> stored_matrix(int64_t rows, int64_t cols, int64_t ld, uint64_t seed) {
  std::vector<T> a(static_cast<std::size_t>(std::max<int64_t>(ld * cols, 1)), static_cast<T>(kNaN));
  const auto v = random_vector<T>(static_cast<std::size_t>(rows * cols), seed);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) a[i + j * ld] = v[i + j * rows];
  return a;
}

TYPED_TEST(CpuReferenceGemm, MatchesTripleLoopForEveryOpAndShape) {
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(testing::Message() << "SPX_TEST_SEED=" << seed);
  const int64_t sizes[] = {0, 1, 7, 33};
  int cases = 0;
  for (Op op_a : {Op::N, Op::T})
    for (Op op_b : {Op::N, Op::T})
      for (int64_t m : sizes)
        for (int64_t n : sizes)
          for (int64_t k : sizes) {
            // Same beta twice would hide a C read with beta == 0; alternate it.
            const double alpha = 1.5, beta = (m + n + k) % 2 ? 0.0 : -0.5;
            const int64_t a_rows = op_a == Op::N ? m : k, a_cols = op_a == Op::N ? k : m;
            const int64_t b_rows = op_b == Op::N ? k : n, b_cols = op_b == Op::N ? n : k;
            const int64_t lda = std::max<int64_t>(a_rows, 1) + 3, ldb = std::max<int64_t>(b_rows, 1) + 1;
            const int64_t ldc = std::max<int64_t>(m, 1) + 2;
            const auto A = stored_matrix<T>(a_rows, a_cols, lda, seed + static_cast<uint64_t>(cases));
            const auto B = stored_matrix<T>(b_rows, b_cols, ldb, seed + 1000 + static_cast<uint64_t>(cases));
            auto C = stored_matrix<T>(m, n, ldc, seed + 2000 + static_cast<uint64_t>(cases));
            if (beta == 0)
              for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < m; ++i) C[i + j * ldc] = static_cast<T>(kNaN);
            const auto C_old = C;
            ref::gemm<T>(op_a, op_b, m, n, k, static_cast<T>(alpha), A.data(), lda, B.data(), ldb,
                         static_cast<T>(beta), C.data(), ldc);
            const auto a_at = [&](int64_t i, int64_t l) {
              return static_cast<double>(op_a == Op::N ? A[i + l * lda] : A[l + i * lda]);
            };
            const auto b_at = [&](int64_t l, int64_t j) {
              return static_cast<double>(op_b == Op::N ? B[l + j * ldb] : B[j + l * ldb]);
            };
            std::vector<T> got, want;
            std::vector<double> mag;
            std::vector<int64_t> terms;
            for (int64_t j = 0; j < n; ++j)
              for (int64_t i = 0; i < m; ++i) {
                double sum = 0, abs_sum = 0;
                for (int64_t l = 0; l < k; ++l) {
                  sum += a_at(i, l) * b_at(l, j);
                  abs_sum += std::abs(a_at(i, l) * b_at(l, j));
                }
                const double c_old = beta == 0 ? 0.0 : static_cast<double>(C_old[i + j * ldc]);
                want.push_back(static_cast<T>(alpha * sum + beta * c_old));
                got.push_back(C[i + j * ldc]);
                mag.push_back(std::abs(alpha) * abs_sum + std::abs(beta * c_old));
                terms.push_back(k);
              }
            expect_within_bounds(std::span<const T>(got), std::span<const T>(want), mag, terms,
                                 testing::PrintToString(m) + "x" + testing::PrintToString(n) + "x" +
                                     testing::PrintToString(k) + (op_a == Op::N ? " N" : " T") +
                                     (op_b == Op::N ? "N" : "T"));
            // ldc padding (rows m .. ldc-1 of each column) untouched.
            for (int64_t j = 0; j < n; ++j)
              for (int64_t i = m; i < ldc; ++i) ASSERT_TRUE(std::isnan(C[i + j * ldc]));
            ++cases;
          }
}

TYPED_TEST(CpuReferenceGemm, LargeSquareMatchesTripleLoop) {
  using T = TypeParam;
  const int64_t m = 100, n = 100, k = 100, ld = 101;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(testing::Message() << "SPX_TEST_SEED=" << seed);
  const auto A = stored_matrix<T>(k, m, ld, seed), B = stored_matrix<T>(n, k, ld, seed + 1);
  std::vector<T> C(static_cast<std::size_t>(ld * n), T{0});
  ref::gemm<T>(Op::T, Op::T, m, n, k, T{1}, A.data(), ld, B.data(), ld, T{0}, C.data(), ld);
  double worst = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0, abs_sum = 0;
      for (int64_t l = 0; l < k; ++l) {
        sum += static_cast<double>(A[l + i * ld]) * static_cast<double>(B[j + l * ld]);
        abs_sum += std::abs(static_cast<double>(A[l + i * ld]) * static_cast<double>(B[j + l * ld]));
      }
      worst = std::max(worst,
                       std::abs(static_cast<double>(C[i + j * ld]) - sum) / output_tolerance<T>(abs_sum, k));
    }
  EXPECT_LE(worst, 1.0);
}

TYPED_TEST(CpuReferenceGemm, ZeroKOrZeroAlphaOnlyScalesC) {
  using T = TypeParam;
  const std::vector<T> nan_operand(16, static_cast<T>(kNaN));
  std::vector<T> C = {1, 2, 3, 4};
  ref::gemm<T>(Op::N, Op::N, 2, 2, 0, T{1}, nullptr, 2, nullptr, 1, T{3}, C.data(), 2);
  EXPECT_EQ(C, (std::vector<T>{3, 6, 9, 12}));
  ref::gemm<T>(Op::N, Op::T, 2, 2, 4, T{0}, nan_operand.data(), 2, nan_operand.data(), 2, T{-1}, C.data(), 2);
  EXPECT_EQ(C, (std::vector<T>{-3, -6, -9, -12}));
  std::vector<T> nan_c(4, static_cast<T>(kNaN));
  ref::gemm<T>(Op::T, Op::N, 2, 2, 4, T{0}, nan_operand.data(), 4, nan_operand.data(), 4, T{0}, nan_c.data(),
               2);
  EXPECT_EQ(nan_c, std::vector<T>(4, T{0}));
  // m == 0 or n == 0: nothing to do, nothing read.
  ref::gemm<T>(Op::N, Op::N, 0, 5, 5, T{1}, nullptr, 1, nullptr, 5, T{1}, nullptr, 1);
}

TYPED_TEST(CpuReferenceGemm, BadArgumentsAreErrors) {
  using T = TypeParam;
  std::vector<T> buf(100);
  T* p = buf.data();
  expect_error([&] { ref::gemm<T>(Op::N, Op::N, -1, 2, 2, T{1}, p, 1, p, 2, T{0}, p, 1); },
               "negative size m=-1");
  expect_error([&] { ref::gemm<T>(Op::N, Op::N, 5, 2, 3, T{1}, p, 4, p, 3, T{0}, p, 5); },
               "lda = 4 is too small");
  expect_error([&] { ref::gemm<T>(Op::T, Op::N, 5, 2, 3, T{1}, p, 2, p, 3, T{0}, p, 5); }, "needs lda >= 3");
  expect_error([&] { ref::gemm<T>(Op::N, Op::T, 5, 2, 3, T{1}, p, 5, p, 1, T{0}, p, 5); },
               "ldb = 1 is too small");
  expect_error([&] { ref::gemm<T>(Op::N, Op::N, 5, 2, 3, T{1}, p, 5, p, 3, T{0}, p, 4); },
               "ldc = 4 is too small");
  expect_error([&] { ref::gemm<T>(Op::N, Op::N, 5, 2, 3, T{1}, nullptr, 5, p, 3, T{0}, p, 5); },
               "A or B is null");
}

}  // namespace
}  // namespace spx::test
