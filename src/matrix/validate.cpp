// validate() for Csr, Coo and Dense, and Coo::is_canonical. Each check throws spx::Error naming the
// first offending index, so a user can find the bad entry in a file or a generator.
#include <fmt/format.h>

#include <cstdint>

#include "common/host_parallel.hpp"
#include "matrix/index_checks.hpp"
#include "spx/error.hpp"
#include "spx/matrix.hpp"

namespace spx {
namespace detail {

// Rows handed out at a time in the column pass: row lengths may be skewed (an R-MAT graph's first
// rows hold most of its nonzeros, so static halves leave one thread most of the work).
constexpr int64_t kCheckRowsPerChunk = 1024;

template <class T, class I>
void check_csr(const Csr<T, I>& A, bool require_canonical) {
  if (A.rows < 0 || A.cols < 0) throw Error(fmt::format("Csr: negative dimensions {} x {}", A.rows, A.cols));
  const auto rows = static_cast<uint64_t>(A.rows);
  if (A.row_ptr.size() != rows + 1) {
    throw Error(
        fmt::format("Csr: row_ptr has {} entries, expected rows + 1 = {}", A.row_ptr.size(), rows + 1));
  }
  if (A.row_ptr[0] != 0) throw Error(fmt::format("Csr: row_ptr[0] = {}, expected 0", A.row_ptr[0]));
  // As the column pass below: a parallel scan that only says whether the offsets never decrease,
  // then, only if they do, the serial pass that names the first row where they do.
  bool offsets_good = true;
#pragma omp parallel for schedule(static) reduction(&& : offsets_good) \
    if (static_cast<int64_t>(rows) >= kMinParallelItems)
  for (int64_t r = 0; r < static_cast<int64_t>(rows); ++r)
    offsets_good =
        A.row_ptr[static_cast<std::size_t>(r) + 1] >= A.row_ptr[static_cast<std::size_t>(r)] && offsets_good;
  for (std::size_t r = 0; !offsets_good && r < rows; ++r) {
    if (A.row_ptr[r + 1] < A.row_ptr[r]) {
      throw Error(fmt::format("Csr: row_ptr decreases at row {}: row_ptr[{}] = {} > row_ptr[{}] = {}", r, r,
                              A.row_ptr[r], r + 1, A.row_ptr[r + 1]));
    }
  }
  if (A.col_idx.size() > static_cast<uint64_t>(max_index<I>())) {
    throw Error(fmt::format("Csr: {} entries do not fit in index type {}; {}", A.col_idx.size(),
                            index_type_name<I>(), kWideIndexHint));
  }
  const auto nnz = static_cast<uint64_t>(A.row_ptr[rows]);
  if (A.col_idx.size() != nnz) {
    throw Error(fmt::format("Csr: col_idx has {} entries, expected nnz = row_ptr[{}] = {}", A.col_idx.size(),
                            rows, nnz));
  }
  if (A.values.size() != nnz) {
    throw Error(fmt::format("Csr: values has {} entries, expected nnz = row_ptr[{}] = {}", A.values.size(),
                            rows, nnz));
  }
  // The O(nnz) pass: first a parallel scan that only says whether every entry is good (the common
  // case: ~4 ns a nonzero serially, the largest part of a front-door matrix's host setup), then, only
  // if one is not, the serial pass below that names the first bad entry.
  bool all_good = true;
  const auto row_good = [&](std::size_t r) {
    const auto begin = static_cast<std::size_t>(A.row_ptr[r]);
    const auto end = static_cast<std::size_t>(A.row_ptr[r + 1]);
    bool good = true;
    for (std::size_t p = begin; p < end; ++p) {
      const I c = A.col_idx[p];
      good &= c >= 0 && c < A.cols && (!require_canonical || p == begin || c > A.col_idx[p - 1]);
    }
    return good;
  };
#pragma omp parallel for schedule(dynamic, kCheckRowsPerChunk) reduction(&& : all_good) \
    if (static_cast<int64_t>(nnz) >= kMinParallelItems)
  for (int64_t r = 0; r < static_cast<int64_t>(rows); ++r)
    all_good = row_good(static_cast<std::size_t>(r)) && all_good;
  if (all_good) return;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto begin = static_cast<std::size_t>(A.row_ptr[r]);
    const auto end = static_cast<std::size_t>(A.row_ptr[r + 1]);
    for (std::size_t p = begin; p < end; ++p) {
      const I c = A.col_idx[p];
      if (c < 0 || c >= A.cols) {
        throw Error(
            fmt::format("Csr: row {}: column {} at position {} is outside [0, cols = {})", r, c, p, A.cols));
      }
      if (require_canonical && p > begin && c <= A.col_idx[p - 1]) {
        throw Error(
            fmt::format("Csr: row {}: column {} at position {} is not greater than previous column {} "
                        "(unsorted or duplicate; "
                        "call spx::canonicalize)",
                        r, c, p, A.col_idx[p - 1]));
      }
    }
  }
}

}  // namespace detail

template <class T, class I>
void Csr<T, I>::validate() const {
  detail::check_csr(*this, /*require_canonical=*/true);
}

template <class T, class I>
void Coo<T, I>::validate() const {
  if (rows < 0 || cols < 0) throw Error(fmt::format("Coo: negative dimensions {} x {}", rows, cols));
  if (row_idx.size() != values.size() || col_idx.size() != values.size()) {
    throw Error(fmt::format("Coo: row_idx, col_idx and values have different lengths ({}, {}, {})",
                            row_idx.size(), col_idx.size(), values.size()));
  }
  if (values.size() > static_cast<uint64_t>(detail::max_index<I>())) {
    throw Error(fmt::format("Coo: {} entries do not fit in index type {}; {}", values.size(),
                            detail::index_type_name<I>(), detail::kWideIndexHint));
  }
  for (std::size_t e = 0; e < values.size(); ++e) {
    if (row_idx[e] < 0 || row_idx[e] >= rows) {
      throw Error(fmt::format("Coo: entry {}: row index {} is outside [0, rows = {})", e, row_idx[e], rows));
    }
    if (col_idx[e] < 0 || col_idx[e] >= cols) {
      throw Error(
          fmt::format("Coo: entry {}: column index {} is outside [0, cols = {})", e, col_idx[e], cols));
    }
  }
}

template <class T, class I>
bool Coo<T, I>::is_canonical() const {
  if (row_idx.size() != values.size() || col_idx.size() != values.size()) return false;
  for (std::size_t e = 1; e < values.size(); ++e) {
    const bool increasing =
        row_idx[e - 1] < row_idx[e] || (row_idx[e - 1] == row_idx[e] && col_idx[e - 1] < col_idx[e]);
    if (!increasing) return false;
  }
  return true;
}

template <class T>
void Dense<T>::validate() const {
  if (rows < 0 || cols < 0 || ld < 0) {
    throw Error(fmt::format("Dense: negative dimension (rows {}, cols {}, ld {})", rows, cols, ld));
  }
  const bool col_major = layout == Layout::ColMajor;
  const int64_t min_ld = col_major ? rows : cols;
  if (ld < min_ld) {
    throw Error(fmt::format("Dense: ld = {} is less than {} = {} ({})", ld, col_major ? "rows" : "cols",
                            min_ld, col_major ? "column-major" : "row-major"));
  }
  int64_t needed = 0;
  if (rows > 0 && cols > 0) {
    // Last element: (rows-1, cols-1); the storage must reach it.
    const int64_t outer = col_major ? cols : rows;
    const int64_t inner = col_major ? rows : cols;
    needed = detail::checked_mul(outer - 1, ld, "Dense: size");
    if (__builtin_add_overflow(needed, inner, &needed)) {
      throw Error(
          fmt::format("Dense: size of a {} x {} matrix with ld {} overflows 64 bits", rows, cols, ld));
    }
  }
  if (data.size() < static_cast<uint64_t>(needed)) {
    throw Error(fmt::format("Dense: data has {} elements, a {} x {} {} matrix with ld {} needs {}",
                            data.size(), rows, cols, col_major ? "column-major" : "row-major", ld, needed));
  }
}

template struct Csr<float, int32_t>;
template struct Csr<float, int64_t>;
template struct Csr<double, int32_t>;
template struct Csr<double, int64_t>;
template struct Coo<float, int32_t>;
template struct Coo<float, int64_t>;
template struct Coo<double, int32_t>;
template struct Coo<double, int64_t>;
template struct Dense<float>;
template struct Dense<double>;

namespace detail {
template void check_csr(const Csr<float, int32_t>&, bool);
template void check_csr(const Csr<float, int64_t>&, bool);
template void check_csr(const Csr<double, int32_t>&, bool);
template void check_csr(const Csr<double, int64_t>&, bool);
}  // namespace detail

}  // namespace spx
