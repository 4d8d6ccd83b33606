// Matrix Market banner and size line: the part every reader (sparse, dense, header-only) shares.
// Internal to src/io (the fuzz harness also uses it to skip inputs that declare huge shapes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "spx/io.hpp"

namespace spx::io {

struct ParsedHeader {
  MatrixMarketHeader header;
  int64_t size_line = 0;        // 1-based line number of the size line
  std::size_t body_offset = 0;  // byte offset of the first line after the size line
  int64_t body_line = 0;        // its 1-based line number
};

// Parses the banner, comment lines and the size line. Rejects malformed and unsupported headers
// (complex, hermitian, vector objects, pattern arrays, ...) with spx::Error "NAME:LINE: ...".
// For array files header.entries is the number of values stored in the file (rows*cols for
// general, the lower triangle for symmetric / skew-symmetric); it throws when that product
// overflows int64_t.
ParsedHeader parse_header(std::string_view text, std::string_view name);

}  // namespace spx::io
