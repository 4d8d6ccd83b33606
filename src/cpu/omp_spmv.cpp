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
#include <algorithm>
#include <array>
#include <cstddef>
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

// Scattered columns: where consecutive nonzeros' columns lie far apart and x outgrows the L2,
// the gathers of x miss it and the hardware prefetchers cannot guess the next address. A software
// prefetch kPrefetchDistance nonzeros ahead (the column index is there to read) hides part of that:
// on one core of the 2-core development host the power-law matrix of bench/results/cpu (median jump
// 4208 columns) went from 0.98-0.99x SciPy's product to 1.00-1.07x, G3_circuit (494) stayed at
// 1.03-1.08x, while on a 27-point stencil (jump 1, gathers the caches serve) a harness with both
// loops saw it cost up to 3%. So it is taken per call, from the median column jump of kJumpSamples
// evenly spaced pairs of consecutive nonzeros.
constexpr int64_t kPrefetchDistance = 32;
constexpr int kJumpSamples = 255;
constexpr int64_t kScatteredJump = 256;          // columns: 32 cache lines of an f64 x apart
constexpr std::size_t kCachedXBytes = 1u << 20;  // an x this small stays in the L2 whatever the order

template <class T, class I>
bool scattered_columns(const Csr<T, I>& A) {
  const int64_t nnz = A.nnz();
  if (static_cast<std::size_t>(A.cols) * sizeof(T) < kCachedXBytes || nnz < 2 * kJumpSamples) return false;
  std::array<int64_t, kJumpSamples> jumps{};
  for (int s = 0; s < kJumpSamples; ++s) {
    const int64_t k = (nnz - 1) * s / kJumpSamples;  // k + 1 < nnz
    const auto jump = static_cast<int64_t>(A.col_idx[k + 1]) - static_cast<int64_t>(A.col_idx[k]);
    jumps[static_cast<std::size_t>(s)] = jump < 0 ? -jump : jump;
  }
  auto middle = jumps.begin() + kJumpSamples / 2;
  std::nth_element(jumps.begin(), middle, jumps.end());
  return *middle > kScatteredJump;
}

// sum_{k in [begin, end)} values[k] * x[col_idx[k]] in double. Two interleaved sums halve the
// dependency chain of adds: measured 2-4% faster than one sum on one core of the 2-core machine
// (power-law rows of up to 459 569 nonzeros, and stencil27), where SciPy's loop has one. With
// kPrefetch, x at the column kPrefetchDistance nonzeros ahead is prefetched (while it is < nnz).
template <bool kPrefetch = false, class T, class I>
double row_dot(const T* __restrict values, const I* __restrict col_idx, const T* __restrict x, int64_t begin,
               int64_t end, int64_t nnz = 0) {
  double even = 0, odd = 0;
  int64_t k = begin;
  for (; k + 1 < end; k += 2) {
    if constexpr (kPrefetch)
      if (k + kPrefetchDistance < nnz) __builtin_prefetch(x + col_idx[k + kPrefetchDistance]);
    even += static_cast<double>(values[k]) * static_cast<double>(x[col_idx[k]]);
    odd += static_cast<double>(values[k + 1]) * static_cast<double>(x[col_idx[k + 1]]);
  }
  if (k < end) even += static_cast<double>(values[k]) * static_cast<double>(x[col_idx[k]]);
  return even + odd;
}

// y[r] = alpha*row_r·x + beta*y[r] for the rows [first, end) a thread holds whole: the loop where
// the time goes, kept free of per-row branches (beta == 0 is a template parameter) and with
// __restrict pointers so that the store to y does not force reloads of the matrix pointers.
template <bool kBetaZero, bool kPrefetch, class T, class I>
void whole_rows(const I* __restrict row_ptr, const I* __restrict col_idx, const T* __restrict values,
                const T* __restrict x, T* __restrict y, int64_t first, int64_t end, double alpha, double beta,
                int64_t nnz) {
  auto begin = static_cast<int64_t>(row_ptr[first]);
  for (int64_t r = first; r < end; ++r) {
    const auto row_end = static_cast<int64_t>(row_ptr[r + 1]);
    const double sum = row_dot<kPrefetch>(values, col_idx, x, begin, row_end, nnz);
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
  const bool prefetch = scattered_columns(A);
  // The whole rows' loop for beta == 0 or not, and with or without the prefetch of x.
  const auto rows_of = [&](int64_t first, int64_t end) {
    using Loop =
        void (*)(const I*, const I*, const T*, const T*, T*, int64_t, int64_t, double, double, int64_t);
    const Loop loop = b == 0 ? (prefetch ? &whole_rows<true, true, T, I> : &whole_rows<true, false, T, I>)
                             : (prefetch ? &whole_rows<false, true, T, I> : &whole_rows<false, false, T, I>);
    loop(row_ptr, col_idx, values, x_data, y_data, first, end, a, b, nnz);
  };

#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int t = thread_id();
    const auto segment = cpu_detail::merge_path_segment(row_ptr, rows, nnz, t, thread_count());
    const auto parts = cpu_detail::segment_rows(segment, row_ptr);
    partials[t][0] = partial_sum(parts.head, values, col_idx, x_data);
    if (parts.first_whole < parts.end_whole) rows_of(parts.first_whole, parts.end_whole);
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
