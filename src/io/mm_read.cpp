// The public Matrix Market readers: file -> text -> header -> body reader.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/mm_header.hpp"
#include "io/mm_readers.hpp"
#include "io/text_file.hpp"
#include "spx/io.hpp"

namespace spx {
namespace {

// Sparse result of an array file: every value, or every nonzero one, row by row.
template <class T, class I>
Csr<T, I> array_to_csr(const std::vector<T>& column_major, const io::ParsedHeader& header,
                       std::string_view name, bool keep_zeros) {
  const auto rows = static_cast<std::size_t>(header.header.rows);
  const auto cols = static_cast<std::size_t>(header.header.cols);
  const auto keep = [&](T v) { return keep_zeros || v != T{0}; };
  int64_t nnz = 0;
  for (T v : column_major) nnz += keep(v) ? 1 : 0;
  io::check_nnz_fits<I>(nnz, header, name);
  Csr<T, I> A(static_cast<I>(rows), static_cast<I>(cols));
  A.col_idx.reserve(static_cast<std::size_t>(nnz));
  A.values.reserve(static_cast<std::size_t>(nnz));
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const T v = column_major[i + j * rows];
      if (!keep(v)) continue;
      A.col_idx.push_back(static_cast<I>(j));
      A.values.push_back(v);
    }
    A.row_ptr[i + 1] = static_cast<I>(A.col_idx.size());
  }
  return A;
}

}  // namespace

template <class T, class I>
Csr<T, I> parse_matrix_market(std::string_view text, std::string_view name, const ReadOptions& options) {
  const io::ParsedHeader header = io::parse_header(text, name);
  if (header.header.format == MatrixMarketHeader::Format::Coordinate) {
    return io::read_coordinate<T, I>(text, header, name, options);
  }
  io::check_shape_fits<I>(header, name);
  const std::vector<T> values = io::read_array<T>(text, header, name, options);
  try {
    return array_to_csr<T, I>(values, header, name, options.keep_array_zeros);
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("{}:{}: out of memory building a {} x {} matrix", name, header.size_line,
                            header.header.rows, header.header.cols));
  }
}

template <class T, class I>
Csr<T, I> read_matrix_market(const std::string& path, const ReadOptions& options) {
  const io::TextBuffer text = io::read_text_file(path);
  return parse_matrix_market<T, I>(text.view(), path, options);
}

template <class T>
Dense<T> read_matrix_market_dense(const std::string& path, const ReadOptions& options) {
  const io::TextBuffer text = io::read_text_file(path);
  const io::ParsedHeader header = io::parse_header(text.view(), path);
  const int64_t rows = header.header.rows, cols = header.header.cols;
  if (cols != 0 && rows > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(sizeof(T)) / cols) {
    throw Error(fmt::format("{}:{}: a dense {} x {} matrix is too large to allocate", path, header.size_line,
                            rows, cols));
  }
  if (header.header.format == MatrixMarketHeader::Format::Array) {
    Dense<T> D;
    D.rows = rows;
    D.cols = cols;
    D.ld = std::max<int64_t>(rows, 1);
    D.layout = Layout::ColMajor;
    D.data = io::read_array<T>(text.view(), header, path, options);
    return D;
  }
  // Coordinate: the sparse reader validates, expands symmetry and applies the duplicate policy.
  const Csr<T, int64_t> A = io::read_coordinate<T, int64_t>(text.view(), header, path, options);
  try {
    Dense<T> D(rows, cols, Layout::ColMajor);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) D(i, A.col_idx[k]) = A.values[k];
    }
    return D;
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("{}:{}: out of memory allocating a dense {} x {} matrix", path, header.size_line,
                            rows, cols));
  } catch (const std::length_error&) {
    throw Error(fmt::format("{}:{}: a dense {} x {} matrix is too large to allocate", path, header.size_line,
                            rows, cols));
  }
}

MatrixMarketHeader read_matrix_market_header(const std::string& path) {
  io::TextReader reader(path);
  std::string prefix;
  constexpr std::size_t kPiece = 64 * 1024;
  // Usually one piece holds the banner, the comments and the size line.
  while (io::header_length(prefix) == std::string_view::npos) {
    const std::size_t before = prefix.size();
    prefix.resize(before + kPiece);
    const std::size_t got = reader.read(prefix.data() + before, kPiece);
    prefix.resize(before + got);
    if (got == 0) break;
  }
  return io::parse_header(prefix, path).header;
}

#define SPX_INSTANTIATE(T, I)                                                                           \
  template Csr<T, I> parse_matrix_market<T, I>(std::string_view, std::string_view, const ReadOptions&); \
  template Csr<T, I> read_matrix_market<T, I>(const std::string&, const ReadOptions&);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE
template Dense<float> read_matrix_market_dense<float>(const std::string&, const ReadOptions&);
template Dense<double> read_matrix_market_dense<double>(const std::string&, const ReadOptions&);

}  // namespace spx
