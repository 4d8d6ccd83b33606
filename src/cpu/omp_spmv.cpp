// OpenMP CSR SpMV: y = alpha*A*x + beta*y on every core.
//
// Load balance: the merge path (merge_path.hpp) gives each thread the same number of
// nonzeros + rows, found by binary search in row_ptr before any work; rows cut between two
// threads are finished serially afterwards (at most 2 pieces per thread). A single huge row is
// therefore spread over all threads, and no per-row dynamic scheduling is needed.
//
// Accuracy: products and sums are in double for float and double alike, and each row is rounded
// to T once, like spx::ref. The only difference from the reference is the order of the sum (two
// interleaved partial sums per row, and separate pieces for cut rows), so the results differ by at
// most about 1 ulp of T plus n * 2^-52 relative to sum |a_ij x_j| for a row of n nonzeros. Summing
// float in double is within noise on 2 threads and costs up to ~20% on 16 (docs/cpu-backend.md);
// we keep it so that every CPU kernel has the same accuracy contract.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "cpu/kernel_checks.hpp"
#include "cpu/merge_path.hpp"
#include "cpu/omp_threads.hpp"
#include "spx/cpu.hpp"

namespace spx::omp {
namespace {

using cpu_detail::thread_count;
using cpu_detail::thread_id;

// sum_{k in [begin, end)} values[k] * x[col_idx[k]] in double. Two interleaved sums halve the
// dependency chain of adds: measured 2-4% faster than one sum on one core of the 2-core machine
// (power-law rows of up to 459 569 nonzeros, and stencil27), where SciPy's loop has one.
template <class T, class I>
double row_dot(const T* __restrict values, const I* __restrict col_idx, const T* __restrict x, int64_t begin,
               int64_t end) {
  double even = 0, odd = 0;
  int64_t k = begin;
  for (; k + 1 < end; k += 2) {
    even += static_cast<double>(values[k]) * static_cast<double>(x[col_idx[k]]);
    odd += static_cast<double>(values[k + 1]) * static_cast<double>(x[col_idx[k + 1]]);
  }
  if (k < end) even += static_cast<double>(values[k]) * static_cast<double>(x[col_idx[k]]);
  return even + odd;
}

// y[r] = alpha*row_r·x + beta*y[r] for the rows [first, end) a thread holds whole: the loop where
// the time goes, kept free of per-row branches (beta == 0 is a template parameter) and with
// __restrict pointers so that the store to y does not force reloads of the matrix pointers.
template <bool kBetaZero, class T, class I>
void whole_rows(const I* __restrict row_ptr, const I* __restrict col_idx, const T* __restrict values,
                const T* __restrict x, T* __restrict y, int64_t first, int64_t end, double alpha,
                double beta) {
  auto begin = static_cast<int64_t>(row_ptr[first]);
  for (int64_t r = first; r < end; ++r) {
    const auto row_end = static_cast<int64_t>(row_ptr[r + 1]);
    const double sum = row_dot(values, col_idx, x, begin, row_end);
    y[r] = kBetaZero ? static_cast<T>(alpha * sum)
                     : static_cast<T>(alpha * sum + beta * static_cast<double>(y[r]));
    begin = row_end;
  }
}

// The sum of a row cut between threads, kept until the parallel part is over.
struct Partial {
  int64_t row = -1;  // -1: unused
  double sum = 0;
};

template <class T, class I>
Partial partial_sum(const cpu_detail::RowPiece& piece, const T* values, const I* col_idx, const T* x) {
  if (piece.row < 0) return {};
  return {piece.row, row_dot(values, col_idx, x, piece.nz_begin, piece.nz_end)};
}

}  // namespace

template <class T, class I>
void spmv(const Csr<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.rows, A.cols, x, y);
  cpu_detail::check_csr_arrays("spmv", A);
  const int64_t rows = A.rows;
  const int64_t nnz = A.nnz();
  const double a = alpha, b = beta;
  T* y_data = y.data();

  if (alpha == T{0}) {
    const int threads = cpu_detail::segment_count(rows, max_threads());
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
    for (int64_t r = 0; r < rows; ++r) y_data[r] = cpu_detail::scaled(b, y_data[r]);
    return;
  }

  const I* row_ptr = A.row_ptr.data();
  const I* col_idx = A.col_idx.data();
  const T* values = A.values.data();
  const T* x_data = x.data();
  const int threads = cpu_detail::segment_count(rows + nnz, max_threads());
  std::vector<std::array<Partial, 2>> partials(static_cast<std::size_t>(threads));

#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int t = thread_id();
    const auto segment = cpu_detail::merge_path_segment(row_ptr, rows, nnz, t, thread_count());
    const auto parts = cpu_detail::segment_rows(segment, row_ptr);
    partials[t][0] = partial_sum(parts.head, values, col_idx, x_data);
    if (parts.first_whole < parts.end_whole) {
      if (b == 0)
        whole_rows<true>(row_ptr, col_idx, values, x_data, y_data, parts.first_whole, parts.end_whole, a, b);
      else
        whole_rows<false>(row_ptr, col_idx, values, x_data, y_data, parts.first_whole, parts.end_whole, a, b);
    }
    partials[t][1] = partial_sum(parts.tail, values, col_idx, x_data);
  }

  // Cut rows: add the pieces in path order, then write each row once.
  int64_t row = -1;
  double sum = 0;
  for (const auto& pair : partials)
    for (const Partial& p : pair) {
      if (p.row < 0) continue;
      if (p.row != row) {
        if (row >= 0) y_data[row] = cpu_detail::combine(sum, a, b, y_data[row]);
        row = p.row;
        sum = 0;
      }
      sum += p.sum;
    }
  if (row >= 0) y_data[row] = cpu_detail::combine(sum, a, b, y_data[row]);
}

template void spmv<float, int32_t>(const Csr<float, int32_t>&, std::span<const float>, std::span<float>,
                                   float, float);
template void spmv<float, int64_t>(const Csr<float, int64_t>&, std::span<const float>, std::span<float>,
                                   float, float);
template void spmv<double, int32_t>(const Csr<double, int32_t>&, std::span<const double>, std::span<double>,
                                    double, double);
template void spmv<double, int64_t>(const Csr<double, int64_t>&, std::span<const double>, std::span<double>,
                                    double, double);

}  // namespace spx::omp
