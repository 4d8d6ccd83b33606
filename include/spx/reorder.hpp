// Locality reordering of square sparse matrices: reverse Cuthill-McKee (RCM), symmetric
// permutations of a CSR and of vectors, bandwidth/profile numbers, and a sampled locality statistic
// the planner reads (docs/reorder.md).
//
// Convention: a permutation `perm` lists, for each new index i, the old index perm[i] it takes:
//   P x        x'[i] = x[perm[i]]                  (permute)
//   P^T x'     x[perm[i]] = x'[i]                  (unpermute)
//   P A P^T    B[i][j] = A[perm[i]][perm[j]]       (permute_symmetric)
// so B (P x) = P (A x): a product in the new numbering is the old one's, permuted.
//
// Every function validates its input and throws spx::Error naming the problem (non-square matrix,
// wrong vector length, a permutation that is not a bijection).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "spx/matrix.hpp"

namespace spx::reorder {

/// Reverse Cuthill-McKee on the pattern of A + A^T (the diagonal ignored): each connected component
/// from a pseudo-peripheral start (George & Liu's level-structure search, from its lowest-numbered
/// node of least degree), neighbours queued by increasing degree (ties by index), the whole order
/// reversed. O(nnz log maxdeg) time, O(nnz) memory. Deterministic. A must be square.
template <class T, class I>
std::vector<I> rcm(const Csr<T, I>& A);
/// The same on A's own pattern, for a caller that knows it is symmetric (a solver's SPD matrix): no
/// transpose is built (half of RCM's host time on a shuffled mesh), the same order as rcm() then. A
/// pattern that is not symmetric still gives a valid permutation (from A's rows alone), a worse one.
template <class T, class I>
std::vector<I> rcm_symmetric(const Csr<T, I>& A);

/// A random permutation of 0..n-1 (Fisher-Yates on splitmix64 draws from `seed`).
template <class I>
std::vector<I> random_permutation(I n, uint64_t seed);

/// spx::Error unless perm is a bijection of 0..n-1 (names the first index out of range or repeated).
template <class I>
void check_permutation(std::span<const I> perm, int64_t n);

/// inv[perm[i]] = i (checks perm).
template <class I>
std::vector<I> inverse(std::span<const I> perm);

/// B = P A P^T, canonical (columns sorted within rows). A square, perm of its size.
template <class T, class I>
Csr<T, I> permute_symmetric(const Csr<T, I>& A, std::span<const I> perm);

/// x'[i] = x[perm[i]] and its inverse x[perm[i]] = x'[i].
template <class T, class I>
std::vector<T> permute(std::span<const T> x, std::span<const I> perm);
template <class T, class I>
std::vector<T> unpermute(std::span<const T> x_permuted, std::span<const I> perm);

/// How far the nonzeros lie from the diagonal.
struct Band {
  int64_t bandwidth = 0;     ///< max |col - row|
  int64_t profile = 0;       ///< sum over rows of (row - first column) where the first column < row
  double mean_distance = 0;  ///< mean |col - row| over the nonzeros (0 when none)
};
template <class T, class I>
Band band(const Csr<T, I>& A);

// --- The locality statistic (the planner's) ------------------------------------------------------

/// Rows per window: a warp of a row-per-thread kernel (MatrixFeatures::kWindowRows).
inline constexpr int64_t kLocalityWindowRows = 32;
/// Windows sampled, spread evenly over the rows: as many as hold about kLocalitySampleNnz nonzeros,
/// at least kLocalityMinSampleWindows and at most kLocalitySampleWindows. The planner pays this on
/// every matrix it ranks: 1024 windows of a 78-nonzero-a-row FEM matrix (2.6M nonzeros) cost ~4 ms
/// on 16 cores (H200 host), more than the 100 products it plans for save; 2^17 nonzeros still
/// 2-5 ms on shuffled meshes (a sort of scattered sectors per window).
inline constexpr int64_t kLocalitySampleWindows = 1024;
inline constexpr int64_t kLocalityMinSampleWindows = 16;
inline constexpr int64_t kLocalitySampleNnz = int64_t{1} << 14;
/// After RCM the nonzeros of a window of consecutive rows lie in about this many runs of columns:
/// the previous, the same and the next level of the breadth-first level structure.
inline constexpr double kRcmRunsPerWindow = 3;
/// The planner's rcm_csr and CG's reorder=auto want x's sectors per window to drop by this factor.
inline constexpr double kRcmMinSectorGain = 2.0;
/// RCM bands a graph that grows slowly (a mesh: the nodes within two steps of a row of d neighbours
/// are ~0.2-0.5 d^2, whatever its numbering); a graph whose two-step neighbourhoods reach ~d^2 nodes
/// (random, expander-like) has no band to find, so no gain is estimated past this growth. Measured on
/// the H200 validation run: a random 24-per-row matrix stayed at 23 sectors per row after RCM where
/// the mesh-based estimate said 1.4 (0.78x of ELL's time).
inline constexpr double kRcmMaxTwoHopGrowth = 0.75;
/// Rows sampled for the growth, and neighbours of a row followed at most (bounds the cost: up to
/// 16 · 64 · 65 entries sorted).
inline constexpr int64_t kTwoHopSampleRows = 16;
inline constexpr int64_t kTwoHopMaxNeighbours = 64;

/// Sampled from the host CSR: x's 32-byte sectors (f64: 4 columns each) a window of 32 consecutive
/// rows touches, now and as estimated after RCM. What it predicts: the x gather traffic of a
/// row-per-warp-window kernel (MatrixFeatures::window_sectors / rows) before and after reordering;
/// sector_gain() >= kRcmMinSectorGain says x is gathered poorly and RCM should cut that traffic.
struct Locality {
  int64_t sampled_rows = 0;
  int64_t sampled_nnz = 0;
  double mean_distance = 0;        ///< mean |col - row| / cols over the sampled nonzeros
  double sectors_per_row = 0;      ///< distinct f64 x sectors per window, per row of the window
  double rcm_sectors_per_row = 0;  ///< the same after RCM (estimate: rcm_window_sectors, or no gain)
  /// Distinct nodes within two steps of a sampled row over d^2 (d its nonzeros), mean; square only.
  double two_hop_growth = 0;
  double sector_gain() const { return rcm_sectors_per_row > 0 ? sectors_per_row / rcm_sectors_per_row : 1.0; }
  bool gathers_poorly() const { return sector_gain() >= kRcmMinSectorGain; }
};
template <class T, class I>
Locality locality(const Csr<T, I>& A);

// --- Solving in a renumbered order (CG: spx/cuda/cg_reorder.hpp, `spx cg --reorder`) -------------

/// none: the matrix as numbered; rcm: always; auto: RCM where locality() says x is gathered poorly.
enum class Choice { None, Rcm, Auto };
const char* to_string(Choice c);                  ///< "none", "rcm", "auto"
Choice choice_from_string(const std::string& s);  ///< spx::Error listing the three otherwise

/// A system's matrix as a solver should see it: when `reordered`, A = P A0 P^T with `perm`
/// (solve with P b, unpermute the solution); otherwise A and perm are empty and the caller keeps A0.
template <class T, class I>
struct Reordered {
  bool reordered = false;
  std::string why;     ///< one line: what was decided and on which numbers
  double seconds = 0;  ///< host time: the statistic, RCM and the permutation
  std::vector<I> perm;
  Csr<T, I> A;
};
template <class T, class I>
Reordered<T, I> reorder_for_solve(const Csr<T, I>& A0, Choice choice);

/// The estimated distinct x sectors of one window of `window_rows` rows of average length avg_row
/// after RCM: kRcmRunsPerWindow runs, each spanning the window's rows plus a row's reach, in sectors
/// of `values_per_sector` values (8 for f32, 4 for f64), plus a partial sector at each end; never more
/// than the window's nonzeros.
double rcm_window_sectors(double window_rows, double avg_row, int values_per_sector);

}  // namespace spx::reorder
