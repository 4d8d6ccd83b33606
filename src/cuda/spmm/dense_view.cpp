// Column chunks of dense device views (spmm.hpp): what the host-resident SpMM multiplies.
#include <fmt/format.h>

#include "spx/cuda/spmm.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

template <class T>
DenseView<T> column_slice(DenseView<T> D, int64_t first, int64_t count) {
  if (first < 0 || count < 0 || first + count > D.cols)
    throw Error(fmt::format("column_slice: columns [{}, {}) outside a matrix of {} columns", first,
                            first + count, D.cols));
  DenseView<T> s = D;
  s.cols = count;
  if (D.data != nullptr) s.data = D.data + (D.layout == Layout::RowMajor ? first : first * D.ld);
  return s;
}

template DenseView<float> column_slice(DenseView<float>, int64_t, int64_t);
template DenseView<double> column_slice(DenseView<double>, int64_t, int64_t);
template DenseView<const float> column_slice(DenseView<const float>, int64_t, int64_t);
template DenseView<const double> column_slice(DenseView<const double>, int64_t, int64_t);

}  // namespace spx::cuda
