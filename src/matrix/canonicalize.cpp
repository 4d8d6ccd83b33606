// Csr <-> Coo and the canonical form: sorted columns within each row, duplicates summed or rejected.
//
// Both canonicalize() and to_csr(Coo) reduce to the same per-row step: order the row's entries by
// column (stable, so duplicates are summed in input order and the result is reproducible), then
// merge equal columns; to_csr(Coo) first buckets the entries by row with a counting sort. Rows
// are handled one at a time, so the cost is O(nnz log(longest row)) with a linear fast path for
// rows that are already sorted; there is no quadratic path, and no array sized by the column
// count (a Coo may be 3 x 2^40).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "matrix/index_checks.hpp"
#include "spx/convert.hpp"
#include "spx/error.hpp"

namespace spx {
namespace {

template <class I>
bool strictly_increasing(const I* cols, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {
    if (cols[i] <= cols[i - 1]) return false;
  }
  return true;
}

// Sorts the columns of every row of A in place and merges repeats. With Duplicates::Error, calls
// report_duplicate(row, column, begin, end) on the first repeated column, where [begin, end) is
// that row's still untouched input range in A; it must throw. Entries only move towards the front
// (merging shrinks rows), so the result is compacted in place; an unsorted row is first copied out
// so that writing it back cannot clobber unread input. Nothing is merged before a duplicate is
// reported (any earlier one would have thrown), so A then still holds the same matrix.
template <class T, class I, class ReportDuplicate>
void canonicalize_rows(Csr<T, I>& A, Duplicates duplicates, ReportDuplicate&& report_duplicate) {
  std::vector<std::pair<I, T>> row;
  std::size_t read_begin = 0;
  std::size_t write = 0;
  for (std::size_t r = 0; r < static_cast<std::size_t>(A.rows); ++r) {
    const auto read_end = static_cast<std::size_t>(A.row_ptr[r + 1]);
    const std::size_t len = read_end - read_begin;
    if (strictly_increasing(A.col_idx.data() + read_begin, len)) {
      if (write != read_begin) {
        std::copy(A.col_idx.begin() + read_begin, A.col_idx.begin() + read_end, A.col_idx.begin() + write);
        std::copy(A.values.begin() + read_begin, A.values.begin() + read_end, A.values.begin() + write);
      }
      write += len;
    } else {
      row.resize(len);
      for (std::size_t i = 0; i < len; ++i) row[i] = {A.col_idx[read_begin + i], A.values[read_begin + i]};
      // Stable, so repeats are summed in input order: the result does not depend on the sort.
      std::stable_sort(row.begin(), row.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      if (duplicates == Duplicates::Error) {
        for (std::size_t i = 1; i < len; ++i) {
          if (row[i].first == row[i - 1].first) report_duplicate(r, row[i].first, read_begin, read_end);
        }
      }
      for (std::size_t i = 0; i < len; ++i) {
        if (i > 0 && row[i].first == A.col_idx[write - 1]) {
          A.values[write - 1] += row[i].second;
        } else {
          A.col_idx[write] = row[i].first;
          A.values[write] = row[i].second;
          ++write;
        }
      }
    }
    A.row_ptr[r + 1] = static_cast<I>(write);
    read_begin = read_end;
  }
  A.col_idx.resize(write);
  A.values.resize(write);
}

// First two indices i in [begin, end) where match(i) holds (the caller knows there are two).
template <class Match>
std::pair<std::size_t, std::size_t> first_two(std::size_t begin, std::size_t end, Match&& match) {
  std::size_t found[2] = {end, end};
  int count = 0;
  for (std::size_t i = begin; i < end && count < 2; ++i) {
    if (match(i)) found[count++] = i;
  }
  return {found[0], found[1]};
}

}  // namespace

template <class T, class I>
void canonicalize(Csr<T, I>& A, Duplicates duplicates) {
  detail::check_csr(A, /*require_canonical=*/false);
  canonicalize_rows(A, duplicates, [&A](std::size_t r, I column, std::size_t begin, std::size_t end) {
    const auto [first, second] = first_two(begin, end, [&](std::size_t p) { return A.col_idx[p] == column; });
    throw Error(
        fmt::format("Csr: row {}: column {} appears at positions {} and {} (duplicates rejected by "
                    "Duplicates::Error; use Duplicates::Sum to add them)",
                    r, column, first, second));
  });
}

template <class T, class I>
Coo<T, I> to_coo(const Csr<T, I>& A) {
  A.validate();
  Coo<T, I> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.row_idx.resize(A.col_idx.size());
  for (I r = 0; r < A.rows; ++r) {
    std::fill(B.row_idx.begin() + A.row_ptr[r], B.row_idx.begin() + A.row_ptr[r + 1], r);
  }
  B.col_idx = A.col_idx;
  B.values = A.values;
  return B;
}

template <class T, class I>
Csr<T, I> to_csr(const Coo<T, I>& A, Duplicates duplicates) {
  A.validate();
  Csr<T, I> B(A.rows, A.cols);
  const std::size_t nnz = A.values.size();
  for (std::size_t e = 0; e < nnz; ++e) ++B.row_ptr[static_cast<std::size_t>(A.row_idx[e]) + 1];
  for (std::size_t r = 0; r < static_cast<std::size_t>(A.rows); ++r) B.row_ptr[r + 1] += B.row_ptr[r];
  if (A.is_canonical()) {
    B.col_idx = A.col_idx;
    B.values = A.values;
    return B;
  }
  // Counting sort by row, scattering the entries themselves (stable: a row keeps input order), so
  // the per-row sort that follows works on contiguous data instead of chasing a permutation.
  B.col_idx.resize(nnz);
  B.values.resize(nnz);
  {
    std::vector<I> next(B.row_ptr.begin(), B.row_ptr.end() - 1);
    for (std::size_t e = 0; e < nnz; ++e) {
      const auto p = static_cast<std::size_t>(next[static_cast<std::size_t>(A.row_idx[e])]++);
      B.col_idx[p] = A.col_idx[e];
      B.values[p] = A.values[e];
    }
  }
  canonicalize_rows(B, duplicates, [&A, nnz](std::size_t r, I column, std::size_t, std::size_t) {
    // Error path only: one more pass over the input to name the entries as the user numbered them.
    const auto [first, second] = first_two(std::size_t{0}, nnz, [&](std::size_t e) {
      return static_cast<std::size_t>(A.row_idx[e]) == r && A.col_idx[e] == column;
    });
    throw Error(
        fmt::format("Coo: entries {} and {} both hold (row {}, col {}) (duplicates rejected by "
                    "Duplicates::Error; use Duplicates::Sum to add them)",
                    first, second, r, column));
  });
  return B;
}

#define SPX_INSTANTIATE(T, I)                               \
  template void canonicalize<T, I>(Csr<T, I>&, Duplicates); \
  template Coo<T, I> to_coo<T, I>(const Csr<T, I>&);        \
  template Csr<T, I> to_csr<T, I>(const Coo<T, I>&, Duplicates);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE

}  // namespace spx
