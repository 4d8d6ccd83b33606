// OpenMP CSR SpMM: C = alpha*A*B + beta*C on every core, B (cols(A) × L) and C (rows(A) × L) in
// any layout and leading dimension.
//
// Partitioning is SpMV's merge path (merge_path.hpp): equal nonzeros + rows per thread, rows cut
// between threads finished serially afterwards, so one huge row is shared by all threads.
//
// Inner loop, per row of A and block of W = 8 columns of B (then 4, 2, 1): for each nonzero,
// sums[0..W) += a * B(col, j0..j0+W) with the W sums in registers. With row-major B that is a
// contiguous piece of a row of B, a loop the compiler vectorises; with column-major B the W loads
// are ld apart but still independent. A's row is read once per block (from L1 after the first).
// Sums are in double for both value types and each C(i, j) is rounded to T once, as in spx::ref;
// only the summation order of cut rows differs.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu/kernel_checks.hpp"
#include "cpu/merge_path.hpp"
#include "cpu/omp_threads.hpp"
#include "spx/cpu.hpp"

namespace spx::omp {
namespace {

// Element (i, j) of a Dense matrix is data[i * row_stride + j * col_stride].
struct Strides {
  int64_t row_stride;
  int64_t col_stride;
};

template <class T>
Strides strides_of(const Dense<T>& D) {
  return D.layout == Layout::RowMajor ? Strides{D.ld, 1} : Strides{1, D.ld};
}

// acc[0..W) = sum_{k in [begin, end)} values[k] * B(col_idx[k], 0..W), in double, for a block of
// W columns of B starting at `B`. W is a compile-time constant so the W sums live in registers:
// with a run-time L the compiler keeps them in memory and every nonzero waits for the previous
// one's store (~8 cycles; measured 2.8-3.4x slower for L = 8). The W products of a nonzero are
// independent, so there is no add-latency chain either, in both layouts.
template <int W, bool kBRowMajor, class T, class I>
void row_times_block(const T* values, const I* col_idx, int64_t begin, int64_t end, const T* B, int64_t ldb,
                     double* acc) {
  double sums[W] = {};
  for (int64_t k = begin; k < end; ++k) {
    const double a = static_cast<double>(values[k]);
    const int64_t col = col_idx[k];
    if constexpr (kBRowMajor) {
      const T* b_row = B + col * ldb;  // contiguous: the compiler vectorises this loop
      for (int j = 0; j < W; ++j) sums[j] += a * static_cast<double>(b_row[j]);
    } else {
      for (int j = 0; j < W; ++j) sums[j] += a * static_cast<double>(B[col + j * ldb]);
    }
  }
  for (int j = 0; j < W; ++j) acc[j] = sums[j];
}

// acc[0..L) = sum_{k in [begin, end)} values[k] * B(col_idx[k], 0..L): blocks of 8 columns, then
// 4, 2, 1 for the rest. The row's values and indices are re-read per block, from L1.
template <bool kBRowMajor, class T, class I>
void row_times_b(const T* values, const I* col_idx, int64_t begin, int64_t end, const T* B, int64_t ldb,
                 int64_t L, double* acc) {
  const int64_t col_step = kBRowMajor ? 1 : ldb;  // distance between B(i, j) and B(i, j + 1)
  int64_t j = 0;
  for (; j + 8 <= L; j += 8)
    row_times_block<8, kBRowMajor>(values, col_idx, begin, end, B + j * col_step, ldb, acc + j);
  if (j + 4 <= L) {
    row_times_block<4, kBRowMajor>(values, col_idx, begin, end, B + j * col_step, ldb, acc + j);
    j += 4;
  }
  if (j + 2 <= L) {
    row_times_block<2, kBRowMajor>(values, col_idx, begin, end, B + j * col_step, ldb, acc + j);
    j += 2;
  }
  if (j < L) row_times_block<1, kBRowMajor>(values, col_idx, begin, end, B + j * col_step, ldb, acc + j);
}

template <class T>
void write_row(const double* acc, int64_t row, T* C, Strides c, int64_t L, double alpha, double beta) {
  T* c_row = C + row * c.row_stride;
  for (int64_t j = 0; j < L; ++j)
    c_row[j * c.col_stride] = cpu_detail::combine(acc[j], alpha, beta, c_row[j * c.col_stride]);
}

template <bool kBRowMajor, class T, class I>
void spmm_csr(const Csr<T, I>& A, const Dense<T>& B, Dense<T>& C, double alpha, double beta) {
  const int64_t rows = A.rows;
  const int64_t nnz = A.nnz();
  const int64_t L = B.cols;
  const I* row_ptr = A.row_ptr.data();
  const I* col_idx = A.col_idx.data();
  const T* values = A.values.data();
  const T* b_data = B.data.data();
  T* c_data = C.data.data();
  const Strides c_strides = strides_of(C);

  // Work per path step grows with L: more columns make it worth more threads.
  const int threads = cpu_detail::segment_count((rows + nnz) * std::max<int64_t>(1, L), max_threads());
  // Up to two cut rows per thread, each with L partial sums.
  const auto slots = static_cast<std::size_t>(threads) * 2;
  std::vector<int64_t> cut_rows(slots, -1);
  std::vector<double> cut_sums(slots * static_cast<std::size_t>(L), 0.0);

#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int t = cpu_detail::thread_id();
    const auto segment = cpu_detail::merge_path_segment(row_ptr, rows, nnz, t, cpu_detail::thread_count());
    std::vector<double> acc(static_cast<std::size_t>(L));
    std::size_t cut = static_cast<std::size_t>(t) * 2;
    cpu_detail::for_each_row_piece(
        segment, row_ptr, [&](int64_t row, int64_t begin, int64_t end, bool whole) {
          if (whole) {
            row_times_b<kBRowMajor>(values, col_idx, begin, end, b_data, B.ld, L, acc.data());
            write_row(acc.data(), row, c_data, c_strides, L, alpha, beta);
          } else {
            row_times_b<kBRowMajor>(values, col_idx, begin, end, b_data, B.ld, L, &cut_sums[cut * L]);
            cut_rows[cut++] = row;
          }
        });
  }

  // Cut rows: add the pieces in path order, then write each row once.
  std::vector<double> total(static_cast<std::size_t>(L), 0.0);
  int64_t row = -1;
  for (std::size_t s = 0; s < slots; ++s) {
    if (cut_rows[s] < 0) continue;
    if (cut_rows[s] != row) {
      if (row >= 0) write_row(total.data(), row, c_data, c_strides, L, alpha, beta);
      row = cut_rows[s];
      std::fill(total.begin(), total.end(), 0.0);
    }
    for (int64_t j = 0; j < L; ++j) total[j] += cut_sums[s * L + j];
  }
  if (row >= 0) write_row(total.data(), row, c_data, c_strides, L, alpha, beta);
}

template <class T>
void scale_only(Dense<T>& C, double beta) {
  const int64_t L = C.cols;
  const Strides c = strides_of(C);
  T* data = C.data.data();
  const int threads = cpu_detail::segment_count(C.rows * L, max_threads());
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t i = 0; i < C.rows; ++i)
    for (int64_t j = 0; j < L; ++j) {
      T& e = data[i * c.row_stride + j * c.col_stride];
      e = cpu_detail::scaled(beta, e);
    }
}

}  // namespace

template <class T, class I>
void spmm(const Csr<T, I>& A, const Dense<T>& B, Dense<T>& C, T alpha, T beta) {
  cpu_detail::check_spmm_operands("spmm", A.rows, A.cols, B, C);
  cpu_detail::check_csr_arrays("spmm", A);
  if (C.rows == 0 || C.cols == 0) return;
  if (alpha == T{0}) return scale_only(C, beta);
  if (B.layout == Layout::RowMajor)
    spmm_csr<true>(A, B, C, alpha, beta);
  else
    spmm_csr<false>(A, B, C, alpha, beta);
}

#define SPX_OMP_SPMM(T, I) template void spmm<T, I>(const Csr<T, I>&, const Dense<T>&, Dense<T>&, T, T);
SPX_OMP_SPMM(float, int32_t)
SPX_OMP_SPMM(float, int64_t)
SPX_OMP_SPMM(double, int32_t)
SPX_OMP_SPMM(double, int64_t)
#undef SPX_OMP_SPMM

}  // namespace spx::omp
