// BSR (spx/bsr.hpp): validation and the CSR <-> BSR conversions. Sizes are computed in 64 bits
// and checked before anything is allocated: the block count times b*b can be far larger than the
// nonzeros on a matrix without block structure.
#include "spx/bsr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/host_parallel.hpp"
#include "matrix/index_checks.hpp"
#include "spx/error.hpp"

namespace spx {
namespace {

void check_block(int block) {
  if (block < kBsrMinBlock || block > kBsrMaxBlock)
    throw Error(fmt::format("BSR block size {} is outside {}..{}", block, kBsrMinBlock, kBsrMaxBlock));
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Calls f(block column) for every nonzero of block row `br` (rows br*b .. br*b+b-1), its row
// pointers and columns range-checked first (the callers do not validate the whole matrix).
template <class T, class I, class F>
void for_block_row_columns(const Csr<T, I>& A, int64_t br, int b, const F& f) {
  const int64_t first = br * b, last = std::min<int64_t>(first + b, A.rows);
  for (int64_t r = first; r < last; ++r) {
    if (A.row_ptr[r] < 0 || A.row_ptr[r + 1] < A.row_ptr[r] || A.row_ptr[r + 1] > A.row_ptr.back())
      throw Error(fmt::format("CSR row_ptr[{}..{}] = {}..{} is not a range of 0..{}", r, r + 1, A.row_ptr[r],
                              A.row_ptr[r + 1], A.row_ptr.back()));
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      const int64_t col = A.col_idx[k];
      if (col < 0 || col >= A.cols)
        throw Error(fmt::format("CSR nonzero {} has column {} outside 0..{}", k, col, int64_t{A.cols} - 1));
      f(col / b);
    }
  }
}

// Blocks of block row `br`: distinct block columns, counted with `mark` (one entry per block column
// holding the last block row that saw it).
template <class T, class I>
int64_t count_block_row(const Csr<T, I>& A, int64_t br, int b, std::vector<int64_t>& mark) {
  int64_t n = 0;
  for_block_row_columns(A, br, b, [&](int64_t bc) {
    if (mark[static_cast<std::size_t>(bc)] != br) {
      mark[static_cast<std::size_t>(bc)] = br;
      ++n;
    }
  });
  return n;
}

// The same without a mark array of the block columns: the block row's block columns sorted and
// counted. For a sample, whose few block rows would not repay clearing O(cols) marks per size (4M
// columns: ~17 ms for the six sizes).
template <class T, class I>
int64_t count_block_row_sorted(const Csr<T, I>& A, int64_t br, int b, std::vector<int64_t>& scratch) {
  scratch.clear();
  for_block_row_columns(A, br, b, [&](int64_t bc) { scratch.push_back(bc); });
  std::sort(scratch.begin(), scratch.end());
  return std::unique(scratch.begin(), scratch.end()) - scratch.begin();
}

}  // namespace

template <class T, class I>
void Bsr<T, I>::validate() const {
  check_block(block);
  if (rows < 0 || cols < 0) throw Error(fmt::format("Bsr: negative shape {} x {}", rows, cols));
  if (block_rows != ceil_div(rows, block) || block_cols != ceil_div(cols, block))
    throw Error(fmt::format("Bsr: {} x {} blocks for a {} x {} matrix with b = {} (expected {} x {})",
                            block_rows, block_cols, rows, cols, block, ceil_div(rows, block),
                            ceil_div(cols, block)));
  if (row_ptr.size() != static_cast<std::size_t>(block_rows) + 1 || row_ptr[0] != 0)
    throw Error(fmt::format("Bsr: row_ptr has {} entries starting at {}, expected block_rows + 1 = {} from 0",
                            row_ptr.size(), row_ptr.empty() ? I{0} : row_ptr[0], int64_t{block_rows} + 1));
  const auto bb = static_cast<std::size_t>(block) * static_cast<std::size_t>(block);
  if (col_idx.size() != static_cast<std::size_t>(blocks()) || values.size() != col_idx.size() * bb)
    throw Error(fmt::format("Bsr: {} block columns and {} values for {} blocks of {} values", col_idx.size(),
                            values.size(), blocks(), bb));
  for (I br = 0; br < block_rows; ++br) {
    if (row_ptr[br + 1] < row_ptr[br]) throw Error(fmt::format("Bsr: row_ptr decreases at block row {}", br));
    for (I k = row_ptr[br]; k < row_ptr[br + 1]; ++k) {
      if (col_idx[k] < 0 || col_idx[k] >= block_cols)
        throw Error(
            fmt::format("Bsr: block {} has block column {} outside 0..{}", k, col_idx[k], block_cols - 1));
      if (k > row_ptr[br] && col_idx[k] <= col_idx[k - 1])
        throw Error(
            fmt::format("Bsr: block columns not strictly increasing in block row {} at block {}", br, k));
      // Padding entries (past rows or cols) must be zero: products skip them, conversions drop them.
      for (int r = 0; r < block; ++r)
        for (int c = 0; c < block; ++c) {
          const int64_t row = int64_t{br} * block + r, col = int64_t{col_idx[k]} * block + c;
          if ((row >= rows || col >= cols) &&
              values[static_cast<std::size_t>(k) * bb + r * block + c] != T{0})
            throw Error(fmt::format("Bsr: block {} holds a nonzero at ({}, {}), outside the {} x {} matrix",
                                    k, row, col, rows, cols));
        }
    }
  }
}

template <class T, class I>
Bsr<T, I> to_bsr(const Csr<T, I>& A, int block, std::size_t max_values) {
  check_block(block);
  A.validate();
  const int b = block;
  Bsr<T, I> B;
  B.rows = A.rows;
  B.cols = A.cols;
  B.block = b;
  B.block_rows = static_cast<I>(ceil_div(A.rows, b));
  B.block_cols = static_cast<I>(ceil_div(A.cols, b));
  // Pass 1: blocks per block row, then the sizes checked before the arrays are allocated.
  std::vector<int64_t> mark(static_cast<std::size_t>(B.block_cols), -1);
  std::vector<int64_t> counts(static_cast<std::size_t>(B.block_rows));
  int64_t blocks = 0;
  for (int64_t br = 0; br < B.block_rows; ++br) blocks += counts[br] = count_block_row(A, br, b, mark);
  const int64_t values = detail::checked_mul(blocks, int64_t{b} * b, "BSR values");
  if (static_cast<uint64_t>(values) > max_values)
    throw Error(fmt::format(
        "BSR with {}x{} blocks would store {} values for {} nonzeros (fill {:.1f} values "
        "per nonzero), over the limit of {}: the matrix has no {}x{} block structure",
        b, b, values, A.nnz(), A.nnz() > 0 ? static_cast<double>(values) / static_cast<double>(A.nnz()) : 0.0,
        max_values, b, b));
  detail::to_index<I>(blocks, "BSR block count");
  B.row_ptr.assign(static_cast<std::size_t>(B.block_rows) + 1, I{0});
  for (int64_t br = 0; br < B.block_rows; ++br)
    B.row_ptr[br + 1] = static_cast<I>(B.row_ptr[br] + counts[br]);
  B.col_idx.resize(static_cast<std::size_t>(blocks));
  B.values.assign(static_cast<std::size_t>(values), T{0});
  // Pass 2: per block row, its block columns in order (a merge of its rows' sorted columns through
  // the marker, then a sort of the block row's few columns), then the values scattered in.
  std::fill(mark.begin(), mark.end(), -1);
  std::vector<int64_t> slot(static_cast<std::size_t>(B.block_cols));  // block column -> block index
  const std::size_t bb = static_cast<std::size_t>(b) * static_cast<std::size_t>(b);
  for (int64_t br = 0; br < B.block_rows; ++br) {
    const int64_t first = br * b, last = std::min<int64_t>(first + b, A.rows);
    I* cols = B.col_idx.data() + B.row_ptr[br];
    int64_t n = 0;
    for (int64_t r = first; r < last; ++r)
      for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
        const int64_t bc = static_cast<int64_t>(A.col_idx[k]) / b;
        if (mark[bc] != br) {
          mark[bc] = br;
          cols[n++] = static_cast<I>(bc);
        }
      }
    std::sort(cols, cols + n);
    for (int64_t j = 0; j < n; ++j) slot[cols[j]] = B.row_ptr[br] + j;
    for (int64_t r = first; r < last; ++r)
      for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
        const int64_t c = A.col_idx[k];
        B.values[static_cast<std::size_t>(slot[c / b]) * bb +
                 static_cast<std::size_t>((r - first) * b + c % b)] = A.values[k];
      }
  }
  return B;
}

template <class T, class I>
Csr<T, I> to_csr(const Bsr<T, I>& B) {
  B.validate();
  const int b = B.block;
  const std::size_t bb = static_cast<std::size_t>(b) * static_cast<std::size_t>(b);
  Csr<T, I> A(B.rows, B.cols);
  int64_t nnz = 0;
  for (int64_t row = 0; row < B.rows; ++row) {
    const int64_t br = row / b, r = row % b;
    for (I k = B.row_ptr[br]; k < B.row_ptr[br + 1]; ++k)
      for (int c = 0; c < b; ++c) {
        const int64_t col = int64_t{B.col_idx[k]} * b + c;
        const T v = B.values[static_cast<std::size_t>(k) * bb + static_cast<std::size_t>(r * b + c)];
        if (col < B.cols && v != T{0}) {
          A.col_idx.push_back(static_cast<I>(col));
          A.values.push_back(v);
          ++nnz;
        }
      }
    A.row_ptr[row + 1] = detail::to_index<I>(nnz, "CSR nonzeros from BSR");
  }
  return A;
}

template <class T, class I>
BsrBlockCounts bsr_block_counts(const Csr<T, I>& A, int64_t sample_rows) {
  // Not A.validate(): that would cost O(nnz) where the sample costs less. The rows visited have
  // their columns range-checked (count_block_row); the row pointers are checked here.
  if (A.row_ptr.size() != static_cast<std::size_t>(A.rows) + 1 || A.row_ptr.front() != 0 ||
      static_cast<std::size_t>(A.row_ptr.back()) != A.col_idx.size())
    throw Error(fmt::format("bsr_block_counts: CSR row_ptr has {} entries for {} rows and {} nonzeros",
                            A.row_ptr.size(), A.rows, A.col_idx.size()));
  BsrBlockCounts out;
  out.rows = A.rows;
  out.cols = A.cols;
  out.nnz = A.nnz();
  out.sampled = sample_rows > 0 && A.rows > sample_rows;
  // One block size a thread (integer counts: the same whatever the thread count; the smallest
  // size's error, as the serial loop would have).
  const int64_t visited = out.sampled ? sample_rows : A.rows;
  const int64_t visited_nnz = A.rows > 0 ? A.nnz() / A.rows * visited : 0;
  struct NoScratch {};
  detail::for_items_first_error<NoScratch>(
      static_cast<int64_t>(BsrBlockCounts::kSizes.size()), visited_nnz >= detail::kMinParallelItems,
      [&](int64_t size, NoScratch&) {
        const auto i = static_cast<std::size_t>(size);
        const int b = BsrBlockCounts::kSizes[i];
        const int64_t block_rows = ceil_div(A.rows, b), block_cols = ceil_div(A.cols, b);
        // Evenly spaced block rows covering about sample_rows rows (all of them when not sampled).
        const int64_t wanted = out.sampled ? std::max<int64_t>(1, sample_rows / b) : block_rows;
        const int64_t stride = std::max<int64_t>(1, block_rows / std::max<int64_t>(wanted, 1));
        // Every block row: marks of the block columns; a sample: each block row's columns sorted.
        std::vector<int64_t> mark(stride == 1 ? static_cast<std::size_t>(block_cols) : 0, -1);
        int64_t blocks = 0, nnz = 0;
        for (int64_t br = 0; br < block_rows; br += stride) {
          blocks += stride == 1 ? count_block_row(A, br, b, mark) : count_block_row_sorted(A, br, b, mark);
          const int64_t first = br * b, last = std::min<int64_t>(first + b, A.rows);
          nnz += A.row_ptr[last] - A.row_ptr[first];
        }
        out.blocks[i] = stride == 1 || nnz == 0 ? blocks
                                                : static_cast<int64_t>(static_cast<double>(blocks) *
                                                                           static_cast<double>(out.nnz) /
                                                                           static_cast<double>(nnz) +
                                                                       0.5);
      });
  return out;
}

#define SPX_INSTANTIATE(T, I)                                          \
  template struct Bsr<T, I>;                                           \
  template Bsr<T, I> to_bsr<T, I>(const Csr<T, I>&, int, std::size_t); \
  template Csr<T, I> to_csr<T, I>(const Bsr<T, I>&);                   \
  template BsrBlockCounts bsr_block_counts<T, I>(const Csr<T, I>&, int64_t);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE

}  // namespace spx
