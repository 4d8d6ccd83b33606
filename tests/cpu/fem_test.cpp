// The FEM generator (spx/fem.hpp, "fem2d:" specs): the Q1 stencil, symmetry, positive
// definiteness, zero row sums away from the boundary, row lengths, colouring, and the local
// matrix approach's product against the assembled matrix.
#include "spx/fem.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "spx/cpu.hpp"
#include "spx/generate.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

template <class T>
double entry(const Csr<T, int32_t>& A, int32_t r, int32_t c) {
  for (int32_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
    if (A.col_idx[k] == c) return static_cast<double>(A.values[k]);
  return 0;
}

TEST(FemBasis, GaussLobattoAndGaussLegendre) {
  const auto x = fem::nodes_1d(4, fem::NodeFamily::GaussLobatto);
  ASSERT_EQ(x.size(), 5u);
  EXPECT_NEAR(x[1], -std::sqrt(3.0 / 7.0), 1e-14);
  EXPECT_NEAR(x[2], 0.0, 1e-14);
  EXPECT_NEAR(fem::nodes_1d(3, fem::NodeFamily::GaussLobatto)[2], 1 / std::sqrt(5.0), 1e-14);
  EXPECT_NEAR(fem::nodes_1d(3, fem::NodeFamily::Equispaced)[1], -1.0 / 3, 1e-15);
  for (int q = 1; q <= 6; ++q) {
    std::vector<double> pts, w;
    fem::gauss_legendre(q, pts, w);
    double sum = 0, x4 = 0;
    for (int i = 0; i < q; ++i) sum += w[i], x4 += w[i] * std::pow(pts[i], 4);
    EXPECT_NEAR(sum, 2.0, 1e-14) << q;
    if (q >= 3) {
      EXPECT_NEAR(x4, 0.4, 1e-14) << q;  // exact to degree 2q - 1
    }
  }
}

TEST(Fem, Q1UniformIsTheNinePointStencil) {
  fem::FemSpec spec;
  spec.n = 8;
  spec.p = 1;
  spec.kappa_amplitude = 0;
  const auto P = fem::build<double>(spec);
  ASSERT_EQ(P.A.rows, 49);
  const int32_t r = 3 + 7 * 3;  // node (4, 4): no boundary neighbour
  EXPECT_EQ(P.A.row_ptr[r + 1] - P.A.row_ptr[r], 9);
  EXPECT_NEAR(entry(P.A, r, r), 8.0 / 3, 1e-14);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      if (dx || dy) {
        EXPECT_NEAR(entry(P.A, r, r + dx + 7 * dy), -1.0 / 3, 1e-14);
      }
  EXPECT_EQ(P.A.row_ptr[1] - P.A.row_ptr[0], 4);  // corner unknown: 2 x 2
}

class FemDegree : public ::testing::TestWithParam<int> {};

TEST_P(FemDegree, SymmetricPositiveDefiniteZeroRowSums) {
  fem::FemSpec spec;
  spec.n = 5;
  spec.p = GetParam();
  const auto P = fem::build<double>(spec);
  const auto& A = P.A;
  A.validate();
  ASSERT_EQ(A.rows, spec.dofs());
  const int side = static_cast<int>(spec.n * spec.p - 1);
  int64_t full_rows = 0;
  for (int32_t r = 0; r < A.rows; ++r) {
    double sum = 0, abs_sum = 0;
    for (int32_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      EXPECT_NEAR(A.values[k], entry(A, A.col_idx[k], r), 1e-13) << r << "," << A.col_idx[k];
      sum += A.values[k];
      abs_sum += std::abs(A.values[k]);
    }
    EXPECT_GT(entry(A, r, r), 0);
    const int gx = r % side + 1, gy = r / side + 1, p = spec.p;
    // Rows whose coupled nodes are all interior: the constants are in the kernel.
    const int lo_x = gx % p ? gx / p * p : gx - p, hi_x = gx % p ? gx / p * p + p : gx + p;
    const int lo_y = gy % p ? gy / p * p : gy - p, hi_y = gy % p ? gy / p * p + p : gy + p;
    if (lo_x >= 1 && lo_y >= 1 && hi_x <= side && hi_y <= side) {
      ++full_rows;
      EXPECT_NEAR(sum, 0.0, 1e-12 * abs_sum) << r;
    }
  }
  EXPECT_GT(full_rows, 0);
  for (int trial = 0; trial < 5; ++trial) {
    const auto x = test::random_vector<double>(static_cast<std::size_t>(A.rows), test::fresh_seed());
    std::vector<double> y(x.size());
    ref::spmv(A, std::span<const double>(x), std::span<double>(y));
    double xay = 0;
    for (std::size_t i = 0; i < x.size(); ++i) xay += x[i] * y[i];
    EXPECT_GT(xay, 0);
  }
}

TEST_P(FemDegree, RowLengthsOnTheInterior) {
  fem::FemSpec spec;
  spec.n = 6;
  spec.p = GetParam();
  const auto A = fem::build<float>(spec, true, false).A;
  const int p = spec.p, side = static_cast<int>(spec.n * p - 1);
  auto len = [&](int gx, int gy) {
    const int32_t r = (gx - 1) + side * (gy - 1);
    return A.row_ptr[r + 1] - A.row_ptr[r];
  };
  EXPECT_EQ(len(2 * p, 2 * p), (2 * p + 1) * (2 * p + 1));  // mesh vertex
  if (p > 1) {
    EXPECT_EQ(len(2 * p + 1, 2 * p), (p + 1) * (2 * p + 1));  // element edge
    EXPECT_EQ(len(2 * p + 1, 2 * p + 1), (p + 1) * (p + 1));  // element interior
  }
}

TEST_P(FemDegree, LmaProductEqualsAssembled) {
  fem::FemSpec spec;
  spec.n = 7;
  spec.p = GetParam();
  const auto P = fem::build<double>(spec);
  const auto& E = P.elements;
  EXPECT_EQ(E.m, (spec.p + 1) * (spec.p + 1));
  EXPECT_EQ(E.colour_begin.back(), E.elements);
  // Elements of one colour share no unknown.
  for (std::size_t c = 0; c + 1 < E.colour_begin.size(); ++c) {
    std::set<int32_t> seen;
    for (int64_t e = E.colour_begin[c]; e < E.colour_begin[c + 1]; ++e)
      for (int i = 0; i < E.m; ++i) {
        const int32_t node = E.nodes[static_cast<std::size_t>(i * E.elements + e)];
        if (node >= 0) {
          EXPECT_TRUE(seen.insert(node).second) << "colour " << c << " node " << node;
        }
      }
  }
  const auto x = test::random_vector<double>(static_cast<std::size_t>(P.A.rows), test::fresh_seed());
  std::vector<double> y_csr(x.size()), y_lma(x.size());
  ref::spmv(P.A, std::span<const double>(x), std::span<double>(y_csr));
  test::poison(std::span<double>(y_lma));
  fem::lma_apply(E, std::span<const double>(x), std::span<double>(y_lma));
  EXPECT_LT(test::relative_error(std::span<const double>(y_lma), std::span<const double>(y_csr)), 1e-14);
  const auto inv = fem::lma_inverse_diagonal(E);
  for (int32_t r = 0; r < P.A.rows; ++r) EXPECT_NEAR(inv[r] * entry(P.A, r, r), 1.0, 1e-14);

  const auto Pf = fem::build<float>(spec);
  std::vector<float> xf(x.begin(), x.end()), yf(x.size());
  fem::lma_apply(Pf.elements, std::span<const float>(xf), std::span<float>(yf));
  EXPECT_LT(test::relative_error(std::span<const float>(yf), std::span<const double>(y_csr)), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Q, FemDegree, ::testing::Values(1, 2, 3, 4));

TEST(Fem, SpecMatchesBuildAndChecksKeys) {
  fem::FemSpec spec;
  spec.n = 6;
  spec.p = 3;
  const auto A = gen::generate<double, int32_t>("fem2d:n=6,p=3");
  const auto B = fem::build<double>(spec, true, false).A;
  EXPECT_EQ(A.col_idx, B.col_idx);
  EXPECT_EQ(A.values, B.values);
  const auto E = gen::generate<double, int32_t>("fem2d:n=6,p=3,nodes=equi,kappa=0");
  EXPECT_EQ(E.col_idx, B.col_idx);
  EXPECT_NE(E.values, B.values);
  const auto D = gen::generate<float, int32_t>("fem2d:dofs=10000,p=2");
  EXPECT_NEAR(D.rows, 10000, 500);
  EXPECT_THROW((gen::generate<double, int32_t>("fem2d:p=5")), Error);
  EXPECT_THROW((gen::generate<double, int32_t>("fem2d:kappa=1")), Error);
  EXPECT_THROW((gen::generate<double, int32_t>("fem2d:nodes=cheb")), Error);
  EXPECT_THROW((gen::generate<double, int64_t>("fem2d:n=4")), Error);
  EXPECT_THROW((gen::generate<double, int32_t>("fem2d:n=1,p=1")), Error);
}

}  // namespace
}  // namespace spx
