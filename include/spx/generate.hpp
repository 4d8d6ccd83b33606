// Deterministic matrix generators for tests, benchmarks and the performance model.
//
// Guarantees, for every generator:
//  * Reproducible: the same arguments and seed give bitwise the same matrix on every platform,
//    whatever the number of OpenMP threads. spx uses its own PRNG (xoshiro256** seeded through
//    splitmix64, one stream per row or chunk) and its own sampling, never std::*_distribution,
//    whose output is implementation-defined.
//  * Canonical Csr: row_ptr from 0 to nnz, columns strictly increasing in each row, no duplicates.
//  * Lean: built in O(nnz) in two passes (row lengths, then entries) into arrays allocated once at
//    their final size; peak memory is the output plus O(rows) (R-MAT: plus the duplicate edges
//    merged away). docs/generators.md has the measured costs.
//  * Values are never zero: off-diagonal values are uniform in [-1, -0.1] ∪ [0.1, 1] unless the
//    kind says otherwise; "SPD" kinds are symmetric and diagonally dominant with a positive
//    diagonal.
//  * Checked: invalid parameters throw spx::Error naming the parameter (and its generate() key in
//    parentheses); sizes whose rows, cols or nnz do not fit I throw spx::Error naming the ways to
//    build them with 64-bit indices, before anything large is allocated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spx/matrix.hpp"

namespace spx::gen {

/// 5-point Laplacian on an nx × ny grid, row r = x + nx·y (4 on the diagonal, -1 to each in-grid
/// neighbour; Dirichlet boundary): SPD. nnz = 5·nx·ny - 2·nx - 2·ny.
template <class T, class I = int32_t>
Csr<T, I> stencil_2d_5pt(I nx, I ny);
/// 7-point Laplacian on nx × ny × nz, row r = x + nx·(y + ny·z) (6 / -1): SPD.
template <class T, class I = int32_t>
Csr<T, I> stencil_3d_7pt(I nx, I ny, I nz);
/// 27-point stencil on nx × ny × nz (26 / -1): SPD. nnz = (3nx-2)(3ny-2)(3nz-2).
template <class T, class I = int32_t>
Csr<T, I> stencil_3d_27pt(I nx, I ny, I nz);
/// Rows [begin, end) of the 5-, 7- or 27-point stencil matrix (points; nz = 1 for 5) with 64-bit
/// global columns: the same rows as the whole-matrix generators, one block at a time, for
/// spx::dist::distribute_blocks (a matrix too large to exist in one place).
template <class T>
Csr<T, int64_t> stencil_rows(int points, int64_t nx, int64_t ny, int64_t nz, int64_t begin, int64_t end);

/// FEM-like: `rows` × `rows`, rows of about `row_len` (1 … 375; 9 … 81 are typical of P1 … P4
/// elements) nonzeros in small dense column blocks near the diagonal, as element assembly on a
/// numbered 3-D mesh produces: nodes carry 1 unknown (row_len < 27) or 3 (row_len >= 27) and
/// couple to their nearest grid neighbours, so rows have d·(1+2m) … d·(3+2m) entries with mean
/// row_len (a little less in the first and last ~g² nodes, g³ ≈ nodes). Symmetric pattern and
/// values, diagonal = 1 + Σ|off-diagonal|: SPD.
template <class T, class I = int32_t>
Csr<T, I> fem_like(I rows, I row_len, uint64_t seed = 1);

/// Random banded n × n: each pair {i, j} with 0 < |i - j| <= `half_bandwidth` present with
/// probability `density` (0 < density <= 1), decided once per pair, so the pattern is symmetric;
/// the diagonal is always present. Symmetric values, diagonal = 1 + Σ|off-diagonal|: SPD.
template <class T, class I = int32_t>
Csr<T, I> banded(I n, I half_bandwidth, double density, uint64_t seed = 1);

/// Power-law n × n: row lengths follow the Zipf law P(len = k) ~ k^-exponent (exponent > 0),
/// its window fitted so the mean row length is `avg_row` (1 <= avg_row <= n; realized within ~1%
/// for avg_row >= 2) and clamped to n; columns distinct and uniform at random. Row lengths are
/// stratified quantiles of the law assigned to rows in random order, so the longest rows are as
/// long as the law says and sit at random rows.
template <class T, class I = int32_t>
Csr<T, I> power_law(I n, double avg_row, double exponent, uint64_t seed = 1);

/// R-MAT graph (Chakrabarti et al. 2004) with 2^scale vertices and edge_factor·2^scale edges,
/// quadrant probabilities a, b, c (d = 1 - a - b - c >= 0); vertices not permuted (hubs at low
/// indices); duplicate edges merged, self-loops kept, nothing else dropped. The edges before
/// merging must fit I.
template <class T, class I = int32_t>
Csr<T, I> rmat(int scale, int edge_factor, double a = 0.57, double b = 0.19, double c = 0.19,
               uint64_t seed = 1);

/// Block-dense n × n: dense block × block tiles, `blocks_per_row` tiles per block row at random
/// block columns, the diagonal tile always present (the last tile row/column is partial when block
/// does not divide n).
template <class T, class I = int32_t>
Csr<T, I> block_dense(I n, I block, I blocks_per_row, uint64_t seed = 1);

/// FEM with b unknowns per node (1 <= b <= 8): the nodes of an nx × ny × nz mesh (nz = 1: 2D)
/// coupled to their 9 (2D) or 27 (3D) neighbours, every coupling a dense b × b block of random
/// values; nodes numbered x fastest, a node's unknowns consecutive (rows = nx·ny·nz·b).
template <class T, class I = int32_t>
Csr<T, I> block_fem(I nx, I ny, I nz, int b, uint64_t seed = 1);

/// Irregular extremes: `rows` × `cols`; exactly `long_rows` rows of `long_len` nonzeros at random
/// row positions, round(empty_fraction · (rows - long_rows)) of the other rows empty (also at
/// random), the rest `short_len` nonzeros; columns distinct and uniform at random.
template <class T, class I = int32_t>
Csr<T, I> long_rows(I rows, I cols, I long_rows, I long_len, double empty_fraction, I short_len,
                    uint64_t seed = 1);

/// Dense stored as sparse: every entry present, random values.
template <class T, class I = int32_t>
Csr<T, I> dense_as_sparse(I rows, I cols, uint64_t seed = 1);

/// Uniformly random: each row gets row_len distinct random columns (Guo & Wang's benchmark
/// matrices: equal row lengths, no locality).
template <class T, class I = int32_t>
Csr<T, I> random_uniform(I rows, I cols, I row_len, uint64_t seed = 1);

/// Text specs, as the CLI and `spx bench` take them: "KIND" or "KIND:key=value,key=value", e.g.
/// "stencil27:n=128", "rmat:scale=20,ef=16,seed=3", "longrows:rows=100000,long=4,len=1000000".
/// Every kind takes seed= (default 1) and shuffle=SEED (square results renumbered by a random
/// symmetric permutation P A P^T drawn from SEED, spx/reorder.hpp: no locality left); integers may be written
/// 2000000 or 2e6; kinds with rows accept n= for rows = cols = n. generators() lists the kinds and keys with
/// their defaults. Unknown kinds, unknown or repeated keys and malformed values are an spx::Error listing
/// what is accepted; a generator's own parameter errors come back prefixed with the spec.
template <class T, class I = int32_t>
Csr<T, I> generate(const std::string& spec);

struct GeneratorInfo {
  std::string kind;     ///< e.g. "stencil27"
  std::string keys;     ///< accepted keys with defaults, e.g. "n=16 nx=n ny=n nz=n seed=1"
  std::string summary;  ///< one line
};
/// Every kind generate() accepts, for help texts.
const std::vector<GeneratorInfo>& generators();

}  // namespace spx::gen
