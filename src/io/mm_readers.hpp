// The two Matrix Market body readers behind the public functions in io.hpp. Internal to src/io.
#pragma once

#include <string_view>
#include <vector>

#include "io/mm_header.hpp"
#include "spx/io.hpp"
#include "spx/matrix.hpp"

namespace spx::io {

// Coordinate body -> canonical Csr (symmetry expanded, rows sorted, duplicates summed or rejected).
template <class T, class I>
Csr<T, I> read_coordinate(std::string_view text, const ParsedHeader& header, std::string_view name,
                          const ReadOptions& options);

// Array body -> all rows*cols values, column-major (symmetry expanded).
template <class T>
std::vector<T> read_array(std::string_view text, const ParsedHeader& header, std::string_view name,
                          const ReadOptions& options);

// Throws "NAME:LINE: ... do not fit the index type" when the header's shape does not fit I.
template <class I>
void check_shape_fits(const ParsedHeader& header, std::string_view name);

// Throws "NAME:SIZE_LINE: N nonzeros [after symmetric expansion] do not fit the index type" when
// nnz > max(I).
template <class I>
void check_nnz_fits(int64_t nnz, const ParsedHeader& header, std::string_view name);

}  // namespace spx::io
