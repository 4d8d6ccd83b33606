// Matrix Market reading and writing (.mtx and .mtx.gz).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "spx/convert.hpp"
#include "spx/matrix.hpp"

namespace spx {

struct MatrixMarketHeader {
  enum class Format { Coordinate, Array };
  enum class Field { Real, Integer, Pattern, Complex };
  enum class Symmetry { General, Symmetric, SkewSymmetric, Hermitian };

  Format format = Format::Coordinate;
  Field field = Field::Real;
  Symmetry symmetry = Symmetry::General;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t entries = 0;  ///< entry lines in the file (coordinate) or rows*cols (array)
};

struct ReadOptions {
  /// Repeated (row, col) entries: summed by default.
  Duplicates duplicates = Duplicates::Sum;
  /// NaN and Inf values are an error naming the line unless this is set.
  bool allow_nonfinite = false;
  /// Array-format files: zeros are dropped from the sparse result unless this is set.
  bool keep_array_zeros = false;
};

/// Reads coordinate (real, integer, pattern; general, symmetric, skew-symmetric — expanded to the
/// full matrix) and array files; gzip is detected from the content, not the name. Every problem is
/// an spx::Error "PATH:LINE: what is wrong". Pattern values are 1. The result is canonical CSR.
/// Symmetric files must store only the lower triangle (an entry above the diagonal is an error), a
/// skew-symmetric file no diagonal. Comment ('%') and blank lines may appear anywhere after the
/// banner; tabs and CRLF line endings are accepted. Memory is never reserved for more entries or
/// values than the text can hold, so a hostile size line cannot exhaust memory (docs/io.md).
template <class T, class I = int32_t>
Csr<T, I> read_matrix_market(const std::string& path, const ReadOptions& options = {});

/// The same, from text already in memory; `name` stands for the path in error messages.
template <class T, class I = int32_t>
Csr<T, I> parse_matrix_market(std::string_view text, std::string_view name = "<memory>",
                              const ReadOptions& options = {});

/// Dense result (either format); for coordinate files missing entries are 0.
template <class T>
Dense<T> read_matrix_market_dense(const std::string& path, const ReadOptions& options = {});

/// Banner and size line only (fast: stops after the size line).
MatrixMarketHeader read_matrix_market_header(const std::string& path);

/// Writes "coordinate real general", 1-based, values in shortest round-trip form; gzip when the
/// path ends in ".gz". Throws spx::Error when the file cannot be written completely.
template <class T, class I>
void write_matrix_market(const std::string& path, const Csr<T, I>& A);

}  // namespace spx
