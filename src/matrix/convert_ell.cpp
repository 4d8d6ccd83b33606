// Csr <-> Ell, EllR and Hyb.
//
// Padded slabs are filled slot-column by slot-column where possible (k outer, row inner), which is
// their storage order. Every slab size is computed in 64 bits, checked against max_slots and the
// index type before anything is allocated: one row of 10^6 entries in a 10^6-row matrix must be an
// error that suggests Hyb, not a 10^12-slot allocation.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

#include "matrix/index_checks.hpp"
#include "spx/convert.hpp"
#include "spx/error.hpp"

namespace spx {
namespace {

struct LongestRow {
  int64_t length = 0;
  int64_t row = 0;
};

template <class T, class I>
LongestRow longest_row(const Csr<T, I>& A) {
  LongestRow longest;
  for (I r = 0; r < A.rows; ++r) {
    if (A.row_length(r) > longest.length) longest = {A.row_length(r), r};
  }
  return longest;
}

// Slots of a padded_rows x width slab, checked against max_slots and the index type.
template <class I>
int64_t checked_slab_slots(const char* who, int64_t padded_rows, int64_t width, int64_t nnz,
                           std::size_t max_slots) {
  const int64_t slots = detail::checked_mul(padded_rows, width, who);
  if (static_cast<uint64_t>(slots) > max_slots) {
    const double ratio = static_cast<double>(slots) / static_cast<double>(nnz);
    throw Error(fmt::format(
        "{}: padding to width {} needs {} rows x {} = {} slots, more than max_slots = {} (padding "
        "ratio {:.1f} slots per nonzero); use spx::to_hyb for matrices with a few long rows",
        who, width, padded_rows, width, slots, max_slots, ratio));
  }
  detail::to_index<I>(slots, fmt::format("{}: slot count {} x {}", who, padded_rows, width));
  return slots;
}

// Fills col_idx/values with `slots` padding entries; an allocation failure becomes an spx::Error.
template <class T, class I>
void allocate_padded_slab(const char* who, std::vector<I>& col_idx, std::vector<T>& values, int64_t slots) {
  try {
    col_idx.assign(static_cast<std::size_t>(slots), detail::padding_index<I>());
    values.assign(static_cast<std::size_t>(slots), T{0});
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("{}: cannot allocate {} slots ({} bytes)", who, slots,
                            slots * static_cast<int64_t>(sizeof(I) + sizeof(T))));
  }
}

template <class I>
I padded_row_count(const char* who, I rows) {
  return detail::to_index<I>(
      detail::round_up_to_alignment(rows),
      fmt::format("{}: rows rounded up to a multiple of {}", who, detail::kSlotAlignment));
}

// Copies the first min(row length, width) entries of each row of A into the slab of E (Ell-like:
// slot k of row r at k * ld + r). Row-major over A, so writes are strided; the CSR read is
// sequential, and this runs once per conversion.
template <class T, class I, class Slab>
void scatter_row_prefixes(const Csr<T, I>& A, Slab& E, I width) {
  for (I r = 0; r < A.rows; ++r) {
    const I begin = A.row_ptr[r];
    const I count = std::min(A.row_length(r), width);
    for (I k = 0; k < count; ++k) {
      E.col_idx[E.slot(r, k)] = A.col_idx[begin + k];
      E.values[E.slot(r, k)] = A.values[begin + k];
    }
  }
}

// Real entries per row of an Ell part (a prefix of each row's slots).
template <class T, class I>
std::vector<I> ell_row_lengths(const Ell<T, I>& E) {
  std::vector<I> length(static_cast<std::size_t>(E.rows), I{0});
  for (I k = 0; k < E.width; ++k) {
    for (I r = 0; r < E.rows; ++r) {
      if (E.col_idx[E.slot(r, k)] != detail::padding_index<I>()) ++length[static_cast<std::size_t>(r)];
    }
  }
  return length;
}

// Builds a Csr with the given row lengths and gathers the first prefix_length[r] slots of each
// row r of the slab to the front of that row (slot k to position row_ptr[r] + k).
template <class T, class I, class Slab>
Csr<T, I> gather_row_prefixes(const Slab& E, const std::vector<I>& row_length,
                              const std::vector<I>& prefix_length) {
  Csr<T, I> B(E.rows, E.cols);
  for (std::size_t r = 0; r < static_cast<std::size_t>(E.rows); ++r) {
    B.row_ptr[r + 1] = B.row_ptr[r] + row_length[r];
  }
  B.col_idx.resize(static_cast<std::size_t>(B.nnz()));
  B.values.resize(B.col_idx.size());
  for (I k = 0; k < E.width; ++k) {
    for (I r = 0; r < E.rows; ++r) {
      if (k < prefix_length[static_cast<std::size_t>(r)]) {
        B.col_idx[static_cast<std::size_t>(B.row_ptr[r] + k)] = E.col_idx[E.slot(r, k)];
        B.values[static_cast<std::size_t>(B.row_ptr[r] + k)] = E.values[E.slot(r, k)];
      }
    }
  }
  return B;
}

// Bell & Garland's rule on a validated matrix.
template <class T, class I>
I hyb_width_of_valid(const Csr<T, I>& A) {
  constexpr int64_t kBreakevenRows = 4096;  // below this many rows, a COO pass costs no more than Ell
  const int64_t rows = A.rows;
  if (rows < kBreakevenRows) return I{0};
  std::vector<int64_t> rows_with_length(static_cast<std::size_t>(longest_row(A).length) + 1, 0);
  for (I r = 0; r < A.rows; ++r) ++rows_with_length[static_cast<std::size_t>(A.row_length(r))];
  // Largest K with at least max(4096, rows/3) rows of length >= K ("rows/3" exactly: 3*count >= rows).
  int64_t at_least = 0;
  for (std::size_t k = rows_with_length.size() - 1; k > 0; --k) {
    at_least += rows_with_length[k];
    if (at_least >= kBreakevenRows && 3 * at_least >= rows) return static_cast<I>(k);
  }
  return I{0};
}

}  // namespace

template <class T, class I>
Ell<T, I> to_ell(const Csr<T, I>& A, I width, std::size_t max_slots) {
  A.validate();
  const LongestRow longest = longest_row(A);
  const I ell_width = width < 0 ? static_cast<I>(longest.length) : width;
  if (longest.length > ell_width) {
    throw Error(
        fmt::format("to_ell: row {} has {} entries, more than the requested width {}; use spx::to_hyb to put "
                    "the entries past the width in a COO part",
                    longest.row, longest.length, ell_width));
  }
  Ell<T, I> E;
  E.rows = A.rows;
  E.cols = A.cols;
  E.width = ell_width;
  E.ld = padded_row_count("to_ell", A.rows);
  const int64_t slots = checked_slab_slots<I>("to_ell", E.ld, E.width, A.nnz(), max_slots);
  allocate_padded_slab("to_ell", E.col_idx, E.values, slots);
  scatter_row_prefixes(A, E, E.width);
  return E;
}

template <class T, class I>
Csr<T, I> to_csr(const Ell<T, I>& A) {
  A.validate();
  const std::vector<I> length = ell_row_lengths(A);
  return gather_row_prefixes<T, I>(A, length, length);
}

template <class T, class I>
EllR<T, I> to_ellr(const Csr<T, I>& A, std::size_t max_slots) {
  A.validate();
  EllR<T, I> E;
  E.rows = A.rows;
  E.cols = A.cols;
  E.width = static_cast<I>(longest_row(A).length);
  E.rows_padded = padded_row_count("to_ellr", A.rows);
  const int64_t slots = checked_slab_slots<I>("to_ellr", E.rows_padded, E.width, A.nnz(), max_slots);
  allocate_padded_slab("to_ellr", E.col_idx, E.values, slots);
  E.row_len.assign(static_cast<std::size_t>(E.rows_padded), I{0});
  for (I r = 0; r < A.rows; ++r) E.row_len[static_cast<std::size_t>(r)] = A.row_length(r);
  scatter_row_prefixes(A, E, E.width);
  return E;
}

template <class T, class I>
Csr<T, I> to_csr(const EllR<T, I>& A) {
  A.validate();
  const std::vector<I> length(A.row_len.begin(), A.row_len.begin() + A.rows);
  return gather_row_prefixes<T, I>(A, length, length);
}

template <class T, class I>
I hyb_ell_width(const Csr<T, I>& A) {
  A.validate();
  return hyb_width_of_valid(A);
}

template <class T, class I>
Hyb<T, I> to_hyb(const Csr<T, I>& A, I ell_width) {
  A.validate();
  const I width = ell_width < 0 ? hyb_width_of_valid(A) : ell_width;
  Hyb<T, I> H;
  Ell<T, I>& E = H.ell;
  E.rows = A.rows;
  E.cols = A.cols;
  E.width = width;
  E.ld = padded_row_count("to_hyb", A.rows);
  // No max_slots here: the caller chose the width, so a slab that fits in I is what they asked for.
  const int64_t slots =
      checked_slab_slots<I>("to_hyb", E.ld, E.width, A.nnz(), std::numeric_limits<std::size_t>::max());
  allocate_padded_slab("to_hyb", E.col_idx, E.values, slots);
  scatter_row_prefixes(A, E, width);

  Coo<T, I>& tail = H.coo;
  tail.rows = A.rows;
  tail.cols = A.cols;
  int64_t tail_nnz = 0;
  for (I r = 0; r < A.rows; ++r) tail_nnz += std::max(A.row_length(r) - width, I{0});
  tail.row_idx.reserve(static_cast<std::size_t>(tail_nnz));
  tail.col_idx.reserve(static_cast<std::size_t>(tail_nnz));
  tail.values.reserve(static_cast<std::size_t>(tail_nnz));
  for (I r = 0; r < A.rows; ++r) {
    for (I p = A.row_ptr[r] + std::min(A.row_length(r), width); p < A.row_ptr[r + 1]; ++p) {
      tail.row_idx.push_back(r);
      tail.col_idx.push_back(A.col_idx[static_cast<std::size_t>(p)]);
      tail.values.push_back(A.values[static_cast<std::size_t>(p)]);
    }
  }
  return H;
}

template <class T, class I>
Csr<T, I> to_csr(const Hyb<T, I>& A) {
  A.validate();  // also rules out an entry stored in both parts
  const Ell<T, I>& E = A.ell;
  const Coo<T, I>& tail = A.coo;
  const std::vector<I> ell_length = ell_row_lengths(E);
  std::vector<I> length = ell_length;
  for (I r : tail.row_idx) ++length[static_cast<std::size_t>(r)];
  // Ell entries go to the front of each row; rows with a COO tail are then merged in place from
  // the back (the output row is exactly long enough), keeping the pass O(nnz).
  Csr<T, I> B = gather_row_prefixes<T, I>(E, length, ell_length);
  for (std::size_t e_end = 0; e_end < tail.values.size();) {
    const std::size_t e_begin = e_end;
    const I r = tail.row_idx[e_begin];
    while (e_end < tail.values.size() && tail.row_idx[e_end] == r) ++e_end;
    const auto row_begin = static_cast<std::size_t>(B.row_ptr[r]);
    std::size_t ell_left = static_cast<std::size_t>(ell_length[static_cast<std::size_t>(r)]);
    std::size_t tail_left = e_end - e_begin;
    std::size_t out = static_cast<std::size_t>(B.row_ptr[r + 1]);
    while (tail_left > 0) {
      const std::size_t e = e_begin + tail_left - 1;
      --out;
      if (ell_left > 0 && B.col_idx[row_begin + ell_left - 1] > tail.col_idx[e]) {
        B.col_idx[out] = B.col_idx[row_begin + ell_left - 1];
        B.values[out] = B.values[row_begin + ell_left - 1];
        --ell_left;
      } else {
        B.col_idx[out] = tail.col_idx[e];
        B.values[out] = tail.values[e];
        --tail_left;
      }
    }
  }
  return B;
}

#define SPX_INSTANTIATE(T, I)                                        \
  template Ell<T, I> to_ell<T, I>(const Csr<T, I>&, I, std::size_t); \
  template Csr<T, I> to_csr<T, I>(const Ell<T, I>&);                 \
  template EllR<T, I> to_ellr<T, I>(const Csr<T, I>&, std::size_t);  \
  template Csr<T, I> to_csr<T, I>(const EllR<T, I>&);                \
  template I hyb_ell_width<T, I>(const Csr<T, I>&);                  \
  template Hyb<T, I> to_hyb<T, I>(const Csr<T, I>&, I);              \
  template Csr<T, I> to_csr<T, I>(const Hyb<T, I>&);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE

}  // namespace spx
