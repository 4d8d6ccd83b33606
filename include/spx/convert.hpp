// Checked conversions between the host formats. Every conversion validates its input's shape,
// guards index-type overflow and huge padding with an spx::Error, and returns a valid matrix.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spx/matrix.hpp"

namespace spx {

// What to do with repeated (row, col) entries when building a Csr.
enum class Duplicates {
  Sum,    // add them (the Matrix Market convention for assembled FEM matrices; scipy does this)
  Error,  // throw spx::Error naming the first repeated (row, col)
};

// Sort columns within each row and merge duplicates in place; afterwards A.validate() passes.
template <class T, class I>
void canonicalize(Csr<T, I>& A, Duplicates duplicates = Duplicates::Sum);

template <class T, class I>
Coo<T, I> to_coo(const Csr<T, I>& A);
template <class T, class I>
Csr<T, I> to_csr(const Coo<T, I>& A, Duplicates duplicates = Duplicates::Sum);

// Ell padded to the longest row (or to `width` when >= 0; rows longer than it are an error).
// Throws when the padded slab would exceed `max_slots` entries (default 2^31), naming the padding
// ratio and suggesting Hyb: one long row must not silently allocate rows × max_len.
template <class T, class I>
Ell<T, I> to_ell(const Csr<T, I>& A, I width = I{-1}, std::size_t max_slots = std::size_t{1} << 31);
template <class T, class I>
Csr<T, I> to_csr(const Ell<T, I>& A);

template <class T, class I>
EllR<T, I> to_ellr(const Csr<T, I>& A, std::size_t max_slots = std::size_t{1} << 31);
template <class T, class I>
Csr<T, I> to_csr(const EllR<T, I>& A);

// Bell & Garland's ELL width for HYB: the largest K such that at least max(4096, rows/3) rows
// have K or more nonzeros (0 when the matrix has fewer rows than that).
template <class T, class I>
I hyb_ell_width(const Csr<T, I>& A);
// Hyb with the given Ell width (< 0: hyb_ell_width(A)).
template <class T, class I>
Hyb<T, I> to_hyb(const Csr<T, I>& A, I ell_width = I{-1});
template <class T, class I>
Csr<T, I> to_csr(const Hyb<T, I>& A);

template <class T, class I>
Dense<T> to_dense(const Csr<T, I>& A, Layout layout = Layout::ColMajor);
// Every nonzero of B becomes an entry (explicit zeros are dropped unless keep_zeros).
template <class I, class T>
Csr<T, I> dense_to_csr(const Dense<T>& B, bool keep_zeros = false);

template <class T, class I>
Csr<T, I> transpose(const Csr<T, I>& A);

// Change value and/or index type; throws when the structure does not fit the new index type.
template <class T2, class I2, class T, class I>
Csr<T2, I2> cast(const Csr<T, I>& A);

}  // namespace spx
