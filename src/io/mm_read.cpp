// The public Matrix Market readers: file -> text -> header -> body reader.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/mm_header.hpp"
#include "io/mm_header_scan.hpp"
#include "io/mm_limits.hpp"
#include "io/mm_readers.hpp"
#include "io/mm_text.hpp"
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

// The body of a file whose header is parsed (and its memory needs checked).
template <class T, class I>
Csr<T, I> read_body(std::string_view text, const io::ParsedHeader& header, std::string_view name,
                    const ReadOptions& options) {
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

}  // namespace

template <class T, class I>
Csr<T, I> parse_matrix_market(std::string_view text, std::string_view name, const ReadOptions& options) {
  io::HeaderScan(name).scan(text);
  const io::ParsedHeader header = io::parse_header(text, name);
  io::check_read_memory(header, name, text.size() - std::min(header.body_offset, text.size()), false,
                        {sizeof(T), sizeof(I), false});
  return read_body<T, I>(text, header, name, options);
}

template <class T, class I>
Csr<T, I> read_matrix_market(const std::string& path, const ReadOptions& options) {
  const io::MatrixMarketText m = io::read_matrix_market_text(path, {sizeof(T), sizeof(I), false});
  return read_body<T, I>(m.text.view(), m.header, path, options);
}

template <class T>
Dense<T> read_matrix_market_dense(const std::string& path, const ReadOptions& options) {
  const io::MatrixMarketText m = io::read_matrix_market_text(path, {sizeof(T), sizeof(int64_t), true});
  const std::string_view text = m.text.view();
  const io::ParsedHeader& header = m.header;
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
    D.data = io::read_array<T>(text, header, path, options);
    return D;
  }
  // Coordinate: the sparse reader validates, expands symmetry and applies the duplicate policy.
  const Csr<T, int64_t> A = io::read_coordinate<T, int64_t>(text, header, path, options);
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
  return io::read_matrix_market_header_only(path).header;
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
