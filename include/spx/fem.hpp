// A finite-element Poisson problem for CG (Reguly & Giles 2012, §8): -div(kappa grad u) = f on the
// unit square, u = 0 on its boundary, discretised on a structured mesh of n × n square elements of
// tensor-product Lagrange polynomials of degree p (Q1 … Q4).
//
//   Nodes: Gauss–Lobatto–Legendre points in each element (the default; NodeFamily::Equispaced on
//     request), so the global node grid is (n·p + 1)² points; the boundary nodes are Dirichlet and
//     eliminated (their rows and columns removed), leaving (n·p − 1)² unknowns numbered x-fastest.
//   Coefficient: kappa(x, y) = 1 + a·sin(2πx)·sin(2πy), a = kappa_amplitude in [0, 1), so
//     1 − a <= kappa <= 1 + a: positive, smooth, varying from element to element.
//   Local matrices: K_e[i][j] = ∫_e kappa ∇φ_i·∇φ_j, by (p + 2)²-point Gauss–Legendre quadrature
//     (exact for the polynomial part; kappa is sampled at the quadrature points). On a square
//     element of any size the 2-D stiffness is size-free, so K_e depends only on kappa.
//   Assembled matrix: symmetric positive definite, canonical CSR, rows of 9 (Q1) … 81 (Q4) entries
//     next to no boundary.
//   Element data (for the local matrix approach): connectivity and the packed upper triangle of each
//     local matrix, slot-major ("the n-th value of each one in one contiguous block", as the paper
//     stores them), elements ordered by colour (4 colours: (ex mod 2, ey mod 2)), so elements of a
//     colour share no node and each colour is one contiguous range.
//
// Generator spec (spx::gen::generate, every command): "fem2d:n=64,p=2" (see docs/generators.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spx/matrix.hpp"

namespace spx::fem {

enum class NodeFamily { GaussLobatto, Equispaced };

struct FemSpec {
  int64_t n = 64;  ///< elements per side
  int p = 1;       ///< polynomial degree, 1..4
  double kappa_amplitude = 0.5;
  NodeFamily nodes = NodeFamily::GaussLobatto;
  int64_t dofs() const { return (n * p - 1) * (n * p - 1); }
};

/// Elements per side whose problem has about `dofs` unknowns at degree p (at least 1).
int64_t elements_for_dofs(int64_t dofs, int p);

/// Throws spx::Error naming the bad field (n >= 1, n·p >= 2, p in 1..4, 0 <= a < 1, unknowns fit int32).
void check_spec(const FemSpec& spec);

/// Packed upper triangle of an m × m symmetric matrix: entry (i, j), i <= j, at this slot.
constexpr int packed_index(int i, int j, int m) { return i * m - i * (i - 1) / 2 + (j - i); }
constexpr int packed_size(int m) { return m * (m + 1) / 2; }

template <class T>
struct ElementData {
  int p = 1;
  int m = 4;             ///< nodes per element, (p + 1)²
  int64_t elements = 0;  ///< n²
  int64_t dofs = 0;      ///< unknowns (rows of the assembled matrix)
  /// Node k of element slot e at nodes[k * elements + e]: its unknown, or -1 for a Dirichlet node.
  std::vector<int32_t> nodes;
  /// Packed upper triangle entry t of element slot e at local[t * elements + e].
  std::vector<T> local;
  /// Elements of colour c are slots colour_begin[c] .. colour_begin[c + 1] - 1 (4 colours).
  std::vector<int64_t> colour_begin;
  std::size_t bytes() const { return nodes.size() * sizeof(int32_t) + local.size() * sizeof(T); }
};

template <class T>
struct Problem {
  FemSpec spec;
  Csr<T, int32_t> A;        ///< assembled (empty when not asked for)
  ElementData<T> elements;  ///< empty when not asked for
};

/// The FemSpec of a "fem2d:..." generator spec; nullopt for another kind or a shuffled one (shuffle=:
/// the matrix is renumbered, the elements would not match it); spx::Error for a bad one.
std::optional<FemSpec> parse_spec(const std::string& spec);

/// Builds the problem (OpenMP; deterministic whatever the thread count).
template <class T>
Problem<T> build(const FemSpec& spec, bool assemble = true, bool element_data = true);

/// y = A·x from the element data on the CPU (gather, local product, scatter): the LMA reference.
template <class T>
void lma_apply(const ElementData<T>& E, std::span<const T> x, std::span<T> y);

/// Inverse of the assembled diagonal from the element data (for Jacobi with the LMA operator).
template <class T>
std::vector<T> lma_inverse_diagonal(const ElementData<T>& E);

/// 1-D nodes on [-1, 1] of the family, p + 1 of them, ascending (GLL: ±1 and the roots of P_p').
std::vector<double> nodes_1d(int p, NodeFamily family);
/// Gauss–Legendre points and weights on [-1, 1].
void gauss_legendre(int q, std::vector<double>& points, std::vector<double>& weights);

}  // namespace spx::fem
