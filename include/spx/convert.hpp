// Checked conversions between the host formats. Every conversion validates its input (a Csr must
// be canonical: call canonicalize() first on a Csr that may have unsorted or repeated columns),
// guards index-type overflow and huge padding with an spx::Error, and returns a valid matrix.
// All run in O(nnz + rows) time (plus the slab size for the padded formats; sorting a row costs
// O(len log len)); none allocates an array sized by the column count except transpose(), whose
// result has a row per column. docs/formats.md has the policies.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spx/matrix.hpp"

namespace spx {

/// What to do with repeated (row, col) entries when building a Csr.
enum class Duplicates {
  Sum,    ///< add them (the Matrix Market convention for assembled FEM matrices; scipy does this)
  Error,  ///< throw spx::Error naming the first repeated (row, col)
};

/// Sort columns within each row and merge duplicates in place; afterwards A.validate() passes.
/// Repeats are summed in input order (a stable sort), so the result is reproducible. The structure
/// (sizes, row_ptr, column ranges) must already be valid. If it throws for a duplicate
/// (Duplicates::Error), A still holds the same matrix, with earlier rows possibly sorted.
template <class T, class I>
void canonicalize(Csr<T, I>& A, Duplicates duplicates = Duplicates::Sum);

template <class T, class I>
Coo<T, I> to_coo(const Csr<T, I>& A);
/// Entries in any order; repeats summed (Sum) or reported by their Coo entry numbers (Error).
template <class T, class I>
Csr<T, I> to_csr(const Coo<T, I>& A, Duplicates duplicates = Duplicates::Sum);

/// Ell padded to the longest row (or to `width` when >= 0; rows longer than it are an error).
/// ld = rows rounded up to a multiple of 32. Throws when the padded slab would exceed `max_slots`
/// entries (default 2^31), naming the padding ratio and suggesting Hyb: one long row must not
/// silently allocate rows × max_len. The slab must also fit in I (int32: < 2^31 slots).
template <class T, class I>
Ell<T, I> to_ell(const Csr<T, I>& A, I width = I{-1}, std::size_t max_slots = std::size_t{1} << 31);
template <class T, class I>
Csr<T, I> to_csr(const Ell<T, I>& A);

template <class T, class I>
EllR<T, I> to_ellr(const Csr<T, I>& A, std::size_t max_slots = std::size_t{1} << 31);
template <class T, class I>
Csr<T, I> to_csr(const EllR<T, I>& A);

/// Bell & Garland's ELL width for HYB: the largest K such that at least max(4096, rows/3) rows
/// have K or more nonzeros (0 when the matrix has fewer rows than that). rows/3 is exact: a count
/// c qualifies when c >= 4096 and 3*c >= rows.
template <class T, class I>
I hyb_ell_width(const Csr<T, I>& A);
/// Hyb with the given Ell width (< 0: hyb_ell_width(A)). A width above the longest row is kept
/// as asked (all-padding slot columns); the Ell slab must fit in I.
template <class T, class I>
Hyb<T, I> to_hyb(const Csr<T, I>& A, I ell_width = I{-1});
template <class T, class I>
Csr<T, I> to_csr(const Hyb<T, I>& A);

/// Tight leading dimension. Throws (no allocation) when rows*cols overflows, and turns an
/// allocation failure into spx::Error.
template <class T, class I>
Dense<T> to_dense(const Csr<T, I>& A, Layout layout = Layout::ColMajor);
/// Every nonzero of B becomes an entry (explicit zeros are dropped unless keep_zeros; NaN is a
/// nonzero and is kept). Throws when rows, cols or nnz do not fit in I.
template <class I, class T>
Csr<T, I> dense_to_csr(const Dense<T>& B, bool keep_zeros = false);

/// Counting sort by column: O(nnz + rows + cols); the result is canonical.
template <class T, class I>
Csr<T, I> transpose(const Csr<T, I>& A);

/// Change value and/or index type; throws when the structure does not fit the new index type.
/// Instantiated for every pair of {float, double} x {int32_t, int64_t} (identity included).
/// double -> float rounds to nearest; magnitudes beyond float's range become ±inf.
template <class T2, class I2, class T, class I>
Csr<T2, I2> cast(const Csr<T, I>& A);

}  // namespace spx
