// A Matrix Market file's text, read with its header checked first. Internal to src/io.
//
// A plain regular file is mapped. Anything else (gzip, a pipe, a FIFO, /dev/stdin, a character
// device) is a stream of unknown length: it is read until the header is complete (HeaderScan:
// linear, bounded lines, NUL rejected), the header is parsed, the memory the whole read needs is
// checked against what the host has, and the rest is read up to the stream's text limit
// (mm_limits.hpp), so neither /dev/zero nor a gzip bomb can exhaust time or memory.
#pragma once

#include <string>

#include "io/mm_header.hpp"
#include "io/mm_limits.hpp"
#include "io/text_file.hpp"

namespace spx::io {

struct MatrixMarketText {
  TextBuffer text;
  ParsedHeader header;
};

MatrixMarketText read_matrix_market_text(const std::string& path, const ResultSizes& sizes);

// Reads only until the size line.
ParsedHeader read_matrix_market_header_only(const std::string& path);

}  // namespace spx::io
