// Csr <-> Dense. Dense sizes are 64-bit; the product rows x cols is checked before allocating.
#include <fmt/format.h>

#include <cstdint>
#include <new>
#include <vector>

#include "matrix/index_checks.hpp"
#include "spx/convert.hpp"
#include "spx/error.hpp"

namespace spx {

template <class T, class I>
Dense<T> to_dense(const Csr<T, I>& A, Layout layout) {
  A.validate();
  const int64_t elements = detail::checked_mul(A.rows, A.cols, "to_dense: rows x cols");
  Dense<T> D;
  try {
    D = Dense<T>(A.rows, A.cols, layout);
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("to_dense: cannot allocate a {} x {} dense matrix ({} elements of {} bytes)",
                            A.rows, A.cols, elements, sizeof(T)));
  }
  for (I r = 0; r < A.rows; ++r) {
    for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p) D(r, A.col_idx[p]) = A.values[p];
  }
  return D;
}

template <class I, class T>
Csr<T, I> dense_to_csr(const Dense<T>& B, bool keep_zeros) {
  B.validate();
  Csr<T, I> A(detail::to_index<I>(B.rows, "dense_to_csr: rows"),
              detail::to_index<I>(B.cols, "dense_to_csr: cols"));
  const auto is_entry = [keep_zeros](T v) { return keep_zeros || v != T{0}; };  // NaN != 0: kept
  const bool col_major = B.layout == Layout::ColMajor;
  // Walk the storage in its own order (columns outer for ColMajor) so reads are sequential; going
  // through columns in increasing order still fills each row in increasing column order.
  const int64_t outer_count = col_major ? B.cols : B.rows;
  const int64_t inner_count = col_major ? B.rows : B.cols;
  std::vector<int64_t> row_count(static_cast<std::size_t>(B.rows), 0);
  for (int64_t o = 0; o < outer_count; ++o) {
    for (int64_t i = 0; i < inner_count; ++i) {
      const int64_t r = col_major ? i : o;
      if (is_entry(B.data[static_cast<std::size_t>(o * B.ld + i)])) ++row_count[static_cast<std::size_t>(r)];
    }
  }
  int64_t nnz = 0;
  for (std::size_t r = 0; r < row_count.size(); ++r) {
    nnz += row_count[r];
    A.row_ptr[r + 1] = detail::to_index<I>(nnz, "dense_to_csr: number of nonzeros");
  }
  A.col_idx.resize(static_cast<std::size_t>(nnz));
  A.values.resize(static_cast<std::size_t>(nnz));
  std::vector<int64_t> next(A.row_ptr.begin(), A.row_ptr.end() - 1);
  for (int64_t o = 0; o < outer_count; ++o) {
    for (int64_t i = 0; i < inner_count; ++i) {
      const T v = B.data[static_cast<std::size_t>(o * B.ld + i)];
      if (!is_entry(v)) continue;
      const int64_t r = col_major ? i : o;
      const int64_t c = col_major ? o : i;
      const auto p = static_cast<std::size_t>(next[static_cast<std::size_t>(r)]++);
      A.col_idx[p] = static_cast<I>(c);
      A.values[p] = v;
    }
  }
  return A;
}

template Dense<float> to_dense<float, int32_t>(const Csr<float, int32_t>&, Layout);
template Dense<float> to_dense<float, int64_t>(const Csr<float, int64_t>&, Layout);
template Dense<double> to_dense<double, int32_t>(const Csr<double, int32_t>&, Layout);
template Dense<double> to_dense<double, int64_t>(const Csr<double, int64_t>&, Layout);
template Csr<float, int32_t> dense_to_csr<int32_t, float>(const Dense<float>&, bool);
template Csr<float, int64_t> dense_to_csr<int64_t, float>(const Dense<float>&, bool);
template Csr<double, int32_t> dense_to_csr<int32_t, double>(const Dense<double>&, bool);
template Csr<double, int64_t> dense_to_csr<int64_t, double>(const Dense<double>&, bool);

}  // namespace spx
