// Deterministic matrix generators: the same arguments and seed give the same matrix on every
// platform (spx's own PRNG, not std::*_distribution, whose output is implementation-defined).
// They feed tests, benchmarks and the performance model. All return canonical Csr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spx/matrix.hpp"

namespace spx::gen {

// 5-point Laplacian on an nx × ny grid (4 on the diagonal, -1 off it): SPD.
template <class T, class I = int32_t>
Csr<T, I> stencil_2d_5pt(I nx, I ny);
// 7-point Laplacian on nx × ny × nz (6 / -1): SPD.
template <class T, class I = int32_t>
Csr<T, I> stencil_3d_7pt(I nx, I ny, I nz);
// 27-point stencil on nx × ny × nz (26 / -1): SPD.
template <class T, class I = int32_t>
Csr<T, I> stencil_3d_27pt(I nx, I ny, I nz);

// FEM-like: `rows` rows of about `row_len` (9 … 81, like P1 … P4 elements) nonzeros in small
// dense column blocks near the diagonal, as element assembly on a numbered mesh produces;
// symmetric pattern, diagonally dominant values.
template <class T, class I = int32_t>
Csr<T, I> fem_like(I rows, I row_len, uint64_t seed = 1);

// Random banded: each entry within `half_bandwidth` of the diagonal present with probability
// `density`; the diagonal is always present.
template <class T, class I = int32_t>
Csr<T, I> banded(I n, I half_bandwidth, double density, uint64_t seed = 1);

// Power-law row lengths: Zipf-distributed with exponent `exponent` scaled to mean `avg_row`,
// columns uniform at random.
template <class T, class I = int32_t>
Csr<T, I> power_law(I n, double avg_row, double exponent, uint64_t seed = 1);

// R-MAT graph (Chakrabarti et al.) with 2^scale vertices and edge_factor·2^scale edges,
// quadrant probabilities a, b, c (d = 1 - a - b - c); duplicates merged.
template <class T, class I = int32_t>
Csr<T, I> rmat(int scale, int edge_factor, double a = 0.57, double b = 0.19, double c = 0.19,
               uint64_t seed = 1);

// Block-dense: n × n made of dense block × block tiles, `blocks_per_row` tiles per block row at
// random block columns (the diagonal tile always present).
template <class T, class I = int32_t>
Csr<T, I> block_dense(I n, I block, I blocks_per_row, uint64_t seed = 1);

// Irregular extremes: `rows` × `cols`; `long_rows` rows of `long_len` nonzeros, a fraction
// `empty_fraction` of the other rows empty, the rest `short_len` nonzeros.
template <class T, class I = int32_t>
Csr<T, I> long_rows(I rows, I cols, I long_rows, I long_len, double empty_fraction, I short_len,
                    uint64_t seed = 1);

// Dense stored as sparse: every entry present, random values.
template <class T, class I = int32_t>
Csr<T, I> dense_as_sparse(I rows, I cols, uint64_t seed = 1);

// Uniformly random: each row gets row_len distinct random columns (for tests).
template <class T, class I = int32_t>
Csr<T, I> random_uniform(I rows, I cols, I row_len, uint64_t seed = 1);

// Text specs, as the CLI and `spx bench` take them: "KIND:key=value,key=value", e.g.
// "stencil27:n=128", "rmat:scale=20,ef=16,seed=3", "longrows:rows=100000,long=4,len=1000000".
// Unknown kinds, unknown keys and bad values are an spx::Error listing what is accepted.
template <class T, class I = int32_t>
Csr<T, I> generate(const std::string& spec);

struct GeneratorInfo {
  std::string kind;     // e.g. "stencil27"
  std::string keys;     // accepted keys with defaults, e.g. "n=32 nx=n ny=n nz=n"
  std::string summary;  // one line
};
// Every kind generate() accepts, for help texts.
const std::vector<GeneratorInfo>& generators();

}  // namespace spx::gen
