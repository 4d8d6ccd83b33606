// Matrix Market writer: "coordinate real general", 1-based, values in shortest round-trip form
// (std::to_chars without precision), so read_matrix_market gives back the same bits.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "io/text_file.hpp"
#include "spx/io.hpp"
#include "spx/version.hpp"

namespace spx {
namespace {

// Rows are formatted in blocks of about this many entries, several blocks at once by OpenMP
// threads, and written in order: to_chars of a double costs about as much as writing it.
constexpr int64_t kEntriesPerBlock = int64_t{1} << 18;

template <class T, class I>
void check_writable(const std::string& path, const Csr<T, I>& A) {
  const auto fail = [&](const std::string& what) {
    throw Error(fmt::format("{}: cannot write an inconsistent matrix: {}", path, what));
  };
  if (A.rows < 0 || A.cols < 0) fail(fmt::format("negative shape {} x {}", A.rows, A.cols));
  if (A.row_ptr.size() != static_cast<std::size_t>(A.rows) + 1) {
    fail(
        fmt::format("row_ptr has {} entries, expected rows + 1 = {}", A.row_ptr.size(), int64_t{A.rows} + 1));
  }
  if (A.row_ptr[0] != 0) fail(fmt::format("row_ptr[0] is {}, expected 0", A.row_ptr[0]));
  for (std::size_t r = 0; r < static_cast<std::size_t>(A.rows); ++r) {
    if (A.row_ptr[r + 1] < A.row_ptr[r]) fail(fmt::format("row_ptr decreases at row {}", r));
  }
  const auto nnz = static_cast<std::size_t>(A.row_ptr.back());
  if (A.col_idx.size() != nnz || A.values.size() != nnz) {
    fail(fmt::format("row_ptr ends at {} but there are {} column indices and {} values", nnz,
                     A.col_idx.size(), A.values.size()));
  }
  for (std::size_t k = 0; k < nnz; ++k) {
    if (A.col_idx[k] < 0 || A.col_idx[k] >= A.cols) {
      fail(fmt::format("column index {} at position {} out of range 0..{}", A.col_idx[k], k,
                       int64_t{A.cols} - 1));
    }
  }
}

template <class T, class I>
void format_rows(const Csr<T, I>& A, int64_t first_row, int64_t last_row, std::string& out) {
  out.clear();
  // Longest line: two 19-digit indices, a 24-character double, separators.
  out.resize(static_cast<std::size_t>(A.row_ptr[last_row] - A.row_ptr[first_row]) * 72);
  char* p = out.data();
  char* const end = p + out.size();
  for (int64_t r = first_row; r < last_row; ++r) {
    char row_text[24];
    char* row_end = std::to_chars(row_text, row_text + sizeof row_text, r + 1).ptr;
    *row_end++ = ' ';
    const auto row_len = static_cast<std::size_t>(row_end - row_text);
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      std::copy_n(row_text, row_len, p);
      p += row_len;
      p = std::to_chars(p, end, int64_t{A.col_idx[k]} + 1).ptr;
      *p++ = ' ';
      p = std::to_chars(p, end, A.values[k]).ptr;
      *p++ = '\n';
    }
  }
  out.resize(static_cast<std::size_t>(p - out.data()));
}

}  // namespace

template <class T, class I>
void write_matrix_market(const std::string& path, const Csr<T, I>& A) {
  check_writable(path, A);
  io::TextWriter writer(path);
  writer.write(fmt::format("%%MatrixMarket matrix coordinate real general\n% written by spx {}\n{} {} {}\n",
                           kVersionString, A.rows, A.cols, A.nnz()));

  // Cut the rows into blocks of about kEntriesPerBlock entries (at least one row each).
  std::vector<int64_t> block_start{0};
  for (int64_t r = 0, in_block = 0; r < A.rows; ++r) {
    in_block += A.row_length(static_cast<I>(r));
    if (in_block >= kEntriesPerBlock) {
      block_start.push_back(r + 1);
      in_block = 0;
    }
  }
  if (block_start.back() != A.rows) block_start.push_back(A.rows);
  const auto blocks = static_cast<int64_t>(block_start.size()) - 1;

  const int threads = std::max(1, omp_get_max_threads());
  std::vector<std::string> text(static_cast<std::size_t>(threads));
  for (int64_t first = 0; first < blocks; first += threads) {
    const int64_t count = std::min<int64_t>(threads, blocks - first);
    bool out_of_memory = false;
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (count > 1)
    for (int64_t b = 0; b < count; ++b) {
      try {  // an exception must not leave an OpenMP region
        format_rows(A, block_start[first + b], block_start[first + b + 1], text[b]);
      } catch (const std::bad_alloc&) {
#pragma omp atomic write
        out_of_memory = true;
      }
    }
    if (out_of_memory) throw Error(fmt::format("{}: out of memory while formatting the matrix", path));
    for (int64_t b = 0; b < count; ++b) writer.write(text[b]);
  }
  writer.close();
}

#define SPX_INSTANTIATE(T, I) template void write_matrix_market<T, I>(const std::string&, const Csr<T, I>&);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE

}  // namespace spx
