// The local matrix approach on the CPU: y = Aᵀ(K_e(A x)), colour by colour (elements of one
// colour share no node, so each colour is a parallel loop without atomics; the result does not
// depend on the thread count).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "spx/error.hpp"
#include "spx/fem.hpp"

namespace spx::fem {

template <class T>
void lma_apply(const ElementData<T>& E, std::span<const T> x, std::span<T> y) {
  if (static_cast<int64_t>(x.size()) < E.dofs || static_cast<int64_t>(y.size()) < E.dofs)
    throw Error(fmt::format("lma_apply: x has {} and y {} entries; the problem has {} unknowns", x.size(),
                            y.size(), E.dofs));
  std::fill(y.begin(), y.begin() + E.dofs, T{0});
  const int m = E.m;
  const std::size_t elements = static_cast<std::size_t>(E.elements);
  for (std::size_t c = 0; c + 1 < E.colour_begin.size(); ++c) {
    const int64_t begin = E.colour_begin[c], end = E.colour_begin[c + 1];
#pragma omp parallel for schedule(static) if (end - begin >= 4096)
    for (int64_t e = begin; e < end; ++e) {
      const std::size_t s = static_cast<std::size_t>(e);
      double xe[25] = {}, ye[25] = {};
      int32_t node[25];
      for (int i = 0; i < m; ++i) {
        node[i] = E.nodes[static_cast<std::size_t>(i) * elements + s];
        xe[i] = node[i] < 0 ? 0.0 : static_cast<double>(x[static_cast<std::size_t>(node[i])]);
      }
      for (int i = 0; i < m; ++i)
        for (int j = i; j < m; ++j) {
          const double a =
              static_cast<double>(E.local[static_cast<std::size_t>(packed_index(i, j, m)) * elements + s]);
          ye[i] += a * xe[j];
          if (j != i) ye[j] += a * xe[i];
        }
      for (int i = 0; i < m; ++i)
        if (node[i] >= 0) y[static_cast<std::size_t>(node[i])] += static_cast<T>(ye[i]);
    }
  }
}

template <class T>
std::vector<T> lma_inverse_diagonal(const ElementData<T>& E) {
  std::vector<double> d(static_cast<std::size_t>(E.dofs), 0.0);
  const std::size_t elements = static_cast<std::size_t>(E.elements);
  for (std::size_t s = 0; s < elements; ++s)
    for (int i = 0; i < E.m; ++i) {
      const int32_t node = E.nodes[static_cast<std::size_t>(i) * elements + s];
      if (node >= 0)
        d[static_cast<std::size_t>(node)] +=
            static_cast<double>(E.local[static_cast<std::size_t>(packed_index(i, i, E.m)) * elements + s]);
    }
  std::vector<T> inv(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (!(d[i] > 0)) throw Error(fmt::format("Jacobi: diagonal entry {} is {} (must be positive)", i, d[i]));
    inv[i] = static_cast<T>(1.0 / d[i]);
  }
  return inv;
}

template void lma_apply<float>(const ElementData<float>&, std::span<const float>, std::span<float>);
template void lma_apply<double>(const ElementData<double>&, std::span<const double>, std::span<double>);
template std::vector<float> lma_inverse_diagonal<float>(const ElementData<float>&);
template std::vector<double> lma_inverse_diagonal<double>(const ElementData<double>&);

}  // namespace spx::fem
