// The FEM problem: checks, assembly of the global CSR straight from the structured mesh (each
// row's columns are the tensor product of two index ranges, so no sort and no COO), and the
// element data of the local matrix approach.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "generate/build.hpp"
#include "generate/fem_detail.hpp"
#include "spx/error.hpp"
#include "spx/fem.hpp"

namespace spx::fem {

void check_spec(const FemSpec& spec) {
  if (spec.p < 1 || spec.p > 4) throw Error(fmt::format("fem2d: p = {} must be 1, 2, 3 or 4", spec.p));
  if (spec.n < 1) throw Error(fmt::format("fem2d: n = {} elements per side must be at least 1", spec.n));
  if (spec.n == 1 && spec.p == 1)  // n·p >= 2 otherwise; n·p itself may overflow
    throw Error(
        fmt::format("fem2d: n = {} at p = {} leaves no interior node; take n·p >= 2", spec.n, spec.p));
  if (!(spec.kappa_amplitude >= 0 && spec.kappa_amplitude < 1))
    throw Error(fmt::format("fem2d: kappa = {} must be in [0, 1) (kappa(x) = 1 + a·sin·sin stays positive)",
                            spec.kappa_amplitude));
  // (n·p − 1)² in double: n up to 2^63 would overflow any integer type.
  const double side = static_cast<double>(spec.n) * spec.p - 1, unknowns = side * side;
  if (unknowns > std::numeric_limits<int32_t>::max())
    throw Error(fmt::format("fem2d: n = {} at p = {} gives {} unknowns, more than int32 indices hold", spec.n,
                            spec.p,
                            unknowns < 0x1p63 ? fmt::format("{}", static_cast<int64_t>(unknowns))
                                              : fmt::format("{:.3e}", unknowns)));
}

int64_t elements_for_dofs(int64_t dofs, int p) {
  if (p < 1) p = 1;
  const double side = std::sqrt(static_cast<double>(std::max<int64_t>(dofs, 1))) + 1;
  return std::max<int64_t>(1, std::llround(side / p));
}

namespace {

struct Range {
  int64_t e_lo, e_hi;  // adjacent elements along this axis
  int64_t c_lo, c_hi;  // coupled interior node indices along this axis (inclusive)
};

Range adjacent(int64_t g, int64_t n, int p) {
  Range r{};
  if (g % p != 0) {
    r.e_lo = r.e_hi = g / p;
  } else {
    r.e_lo = std::max<int64_t>(0, g / p - 1);
    r.e_hi = std::min<int64_t>(n - 1, g / p);
  }
  const int64_t last = n * p - 1;  // last interior node index
  r.c_lo = std::max<int64_t>(1, r.e_lo * p);
  r.c_hi = std::min<int64_t>(last, r.e_hi * p + p);
  return r;
}

// Interior nodes coupled to node g along one axis (its adjacent elements' nodes, Dirichlet ones
// dropped); a row's length is the product of its two axes', so nnz = (sum over g of this)².
int64_t coupled_along_axis(int64_t g, int64_t n, int p) {
  const Range r = adjacent(g, n, p);
  return r.c_hi - r.c_lo + 1;
}

template <class T>
Csr<T, int32_t> assemble(const FemSpec& spec, const std::vector<double>& K) {
  const int64_t n = spec.n, g = n * spec.p + 1, side = g - 2, dofs = spec.dofs();
  const int p = spec.p, p1 = p + 1, m = p1 * p1;
  Csr<T, int32_t> A = gen::detail::empty_shape<T, int32_t>(dofs, dofs, "fem2d");
  const bool threads = gen::detail::worth_threads(dofs);
#pragma omp parallel for schedule(static) if (threads)
  for (int64_t r = 0; r < dofs; ++r) {
    const Range x = adjacent(r % side + 1, n, p), y = adjacent(r / side + 1, n, p);
    A.row_ptr[static_cast<std::size_t>(r) + 1] =
        static_cast<int32_t>((x.c_hi - x.c_lo + 1) * (y.c_hi - y.c_lo + 1));
  }
  int64_t nnz = 0;
  for (int64_t r = 0; r < dofs; ++r) {
    nnz += A.row_ptr[static_cast<std::size_t>(r) + 1];
    gen::detail::require_fits<int32_t>(nnz, "fem2d", "nonzeros");
    A.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<int32_t>(nnz);
  }
  gen::detail::allocate_entries(A, nnz, "fem2d");
#pragma omp parallel for schedule(static) if (threads)
  for (int64_t r = 0; r < dofs; ++r) {
    const int64_t gx = r % side + 1, gy = r / side + 1;
    const Range x = adjacent(gx, n, p), y = adjacent(gy, n, p);
    std::size_t k = static_cast<std::size_t>(A.row_ptr[static_cast<std::size_t>(r)]);
    for (int64_t cy = y.c_lo; cy <= y.c_hi; ++cy)
      for (int64_t cx = x.c_lo; cx <= x.c_hi; ++cx) {
        double sum = 0;
        for (int64_t ey = y.e_lo; ey <= y.e_hi; ++ey) {
          if (cy < ey * p || cy > ey * p + p) continue;
          for (int64_t ex = x.e_lo; ex <= x.e_hi; ++ex) {
            if (cx < ex * p || cx > ex * p + p) continue;
            const int64_t i = (gx - ex * p) + p1 * (gy - ey * p), j = (cx - ex * p) + p1 * (cy - ey * p);
            sum += K[static_cast<std::size_t>((ex + n * ey) * m * m + i * m + j)];
          }
        }
        A.col_idx[k] = static_cast<int32_t>(detail::dof_of(cx, cy, g));
        A.values[k] = static_cast<T>(sum);
        ++k;
      }
  }
  return A;
}

template <class T>
ElementData<T> element_data(const FemSpec& spec, const std::vector<double>& K) {
  ElementData<T> E;
  const int64_t n = spec.n, g = n * spec.p + 1;
  const int p = spec.p, p1 = p + 1, m = p1 * p1;
  E.p = p;
  E.m = m;
  E.elements = n * n;
  E.dofs = spec.dofs();
  // Colour c = (ex mod 2) + 2·(ey mod 2): elements of one colour share no node.
  E.colour_begin.assign(5, 0);
  for (int64_t e = 0; e < n * n; ++e)
    ++E.colour_begin[static_cast<std::size_t>((e % n) % 2 + 2 * ((e / n) % 2)) + 1];
  for (std::size_t c = 0; c < 4; ++c) E.colour_begin[c + 1] += E.colour_begin[c];
  std::vector<int64_t> slot(static_cast<std::size_t>(n * n)),
      next(E.colour_begin.begin(), E.colour_begin.end() - 1);
  for (int64_t e = 0; e < n * n; ++e)
    slot[static_cast<std::size_t>(e)] = next[static_cast<std::size_t>((e % n) % 2 + 2 * ((e / n) % 2))]++;
  const std::size_t elements = static_cast<std::size_t>(E.elements);
  E.nodes.resize(static_cast<std::size_t>(m) * elements);
  E.local.resize(static_cast<std::size_t>(packed_size(m)) * elements);
  const bool threads = gen::detail::worth_threads(E.elements * m);
#pragma omp parallel for schedule(static) if (threads)
  for (int64_t e = 0; e < n * n; ++e) {
    const std::size_t s = static_cast<std::size_t>(slot[static_cast<std::size_t>(e)]);
    const int64_t ex = e % n, ey = e / n;
    const double* Ke = &K[static_cast<std::size_t>(e * m * m)];
    for (int i = 0; i < m; ++i) {
      E.nodes[static_cast<std::size_t>(i) * elements + s] =
          static_cast<int32_t>(detail::dof_of(ex * p + i % p1, ey * p + i / p1, g));
      for (int j = i; j < m; ++j)
        E.local[static_cast<std::size_t>(packed_index(i, j, m)) * elements + s] =
            static_cast<T>(Ke[i * m + j]);
    }
  }
  return E;
}

// The exact nonzeros of the assembled matrix, in O(n·p), before anything is allocated.
int64_t assembled_nnz(const FemSpec& spec) {
  const int64_t side = spec.n * spec.p - 1;
  int64_t per_axis = 0;
  for (int64_t g = 1; g <= side; ++g) per_axis += coupled_along_axis(g, spec.n, spec.p);
  return gen::detail::checked_mul(per_axis, per_axis, "fem2d", "nonzeros");
}

// What build() allocates: the element matrices (n² · m² doubles), the assembled CSR and the
// element data of the local matrix approach, refused as one sum before the first of them.
template <class T>
void require_build_memory(const FemSpec& spec, bool assemble_matrix, bool element_data_too) {
  const double elements = static_cast<double>(spec.n) * static_cast<double>(spec.n);
  const int m = (spec.p + 1) * (spec.p + 1);
  double bytes = elements * m * m * sizeof(double);
  int64_t nnz = 0;
  if (assemble_matrix) {
    nnz = assembled_nnz(spec);
    if (nnz > std::numeric_limits<int32_t>::max())
      throw Error(fmt::format("fem2d: n = {} at p = {} gives {} nonzeros, more than int32 indices hold",
                              spec.n, spec.p, nnz));
    bytes += static_cast<double>(nnz) * (sizeof(T) + sizeof(int32_t)) +
             static_cast<double>(spec.dofs() + 1) * sizeof(int32_t);
  }
  if (element_data_too)
    bytes +=
        elements * static_cast<double>(m * sizeof(int32_t) + packed_size(m) * sizeof(T) + sizeof(int64_t));
  gen::detail::require_host_memory(
      bytes, fmt::format("fem2d: n = {} at p = {} ({} unknowns, {} nonzeros, {:.0f} element matrices)",
                         spec.n, spec.p, spec.dofs(), nnz, elements));
}

}  // namespace

template <class T>
Problem<T> build(const FemSpec& spec, bool assemble_matrix, bool element_data_too) {
  check_spec(spec);
  require_build_memory<T>(spec, assemble_matrix, element_data_too);
  Problem<T> problem;
  problem.spec = spec;
  const std::vector<double> K = detail::local_matrices(spec);
  if (assemble_matrix) problem.A = assemble<T>(spec, K);
  if (element_data_too) problem.elements = element_data<T>(spec, K);
  return problem;
}

template Problem<float> build<float>(const FemSpec&, bool, bool);
template Problem<double> build<double>(const FemSpec&, bool, bool);

}  // namespace spx::fem
