// transpose() and cast(): structure-preserving rewrites of a Csr.
#include <cstdint>
#include <vector>

#include "common/host_parallel.hpp"
#include "matrix/index_checks.hpp"
#include "spx/convert.hpp"

namespace spx {

// Counting sort by column: O(nnz + rows + cols). Rows of A are visited in increasing order, so
// every row of the transpose comes out with increasing columns (canonical without a sort).
template <class T, class I>
Csr<T, I> transpose(const Csr<T, I>& A) {
  A.validate();
  Csr<T, I> B(A.cols, A.rows);
  for (I c : A.col_idx) ++B.row_ptr[static_cast<std::size_t>(c) + 1];
  for (std::size_t c = 0; c < static_cast<std::size_t>(A.cols); ++c) B.row_ptr[c + 1] += B.row_ptr[c];
  B.col_idx.resize(A.col_idx.size());
  B.values.resize(A.values.size());
  std::vector<I> next(B.row_ptr.begin(), B.row_ptr.end() - 1);
  for (I r = 0; r < A.rows; ++r) {
    for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p) {
      const auto q = static_cast<std::size_t>(next[static_cast<std::size_t>(A.col_idx[p])]++);
      B.col_idx[q] = r;
      B.values[q] = A.values[p];
    }
  }
  return B;
}

template <class T2, class I2, class T, class I>
Csr<T2, I2> cast(const Csr<T, I>& A) {
  A.validate();
  Csr<T2, I2> B(detail::to_index<I2>(A.rows, "cast: rows"), detail::to_index<I2>(A.cols, "cast: cols"));
  detail::to_index<I2>(A.nnz(), "cast: nnz");
  const auto offsets = static_cast<int64_t>(A.row_ptr.size());
#pragma omp parallel for schedule(static) if (offsets >= detail::kMinParallelItems)
  for (int64_t r = 0; r < offsets; ++r)
    B.row_ptr[static_cast<std::size_t>(r)] = static_cast<I2>(A.row_ptr[static_cast<std::size_t>(r)]);
  // Each column is < cols, which fits in I2. double -> float rounds; values beyond float's range
  // become +-inf (IEEE conversion). Entry by entry: the same whatever the threads.
  B.col_idx.resize(A.col_idx.size());
  B.values.resize(A.values.size());
  const auto nnz = static_cast<int64_t>(A.values.size());
#pragma omp parallel for schedule(static) if (nnz >= detail::kMinParallelItems)
  for (int64_t p = 0; p < nnz; ++p) {
    const auto q = static_cast<std::size_t>(p);
    B.col_idx[q] = static_cast<I2>(A.col_idx[q]);
    B.values[q] = static_cast<T2>(A.values[q]);
  }
  return B;
}

template Csr<float, int32_t> transpose(const Csr<float, int32_t>&);
template Csr<float, int64_t> transpose(const Csr<float, int64_t>&);
template Csr<double, int32_t> transpose(const Csr<double, int32_t>&);
template Csr<double, int64_t> transpose(const Csr<double, int64_t>&);

// Every pair of the four supported types (identity included), so generic code can cast<T, I2>(A)
// without knowing which combination it holds: 16 small loops.
#define SPX_INSTANTIATE_CAST(T2, I2)                              \
  template Csr<T2, I2> cast<T2, I2>(const Csr<float, int32_t>&);  \
  template Csr<T2, I2> cast<T2, I2>(const Csr<float, int64_t>&);  \
  template Csr<T2, I2> cast<T2, I2>(const Csr<double, int32_t>&); \
  template Csr<T2, I2> cast<T2, I2>(const Csr<double, int64_t>&);
SPX_INSTANTIATE_CAST(float, int32_t)
SPX_INSTANTIATE_CAST(float, int64_t)
SPX_INSTANTIATE_CAST(double, int32_t)
SPX_INSTANTIATE_CAST(double, int64_t)
#undef SPX_INSTANTIATE_CAST

}  // namespace spx
