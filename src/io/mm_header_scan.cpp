#include "io/mm_header_scan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "io/mm_lex.hpp"
#include "spx/error.hpp"

namespace spx::io {

std::size_t HeaderScan::scan(std::string_view text) {
  const char* const begin = text.data();
  while (scanned_ < text.size()) {
    const char* p = begin + scanned_;
    // Never look further than the longest allowed line: a mapped 1 GB file without newlines is
    // rejected after 1 MiB.
    const std::size_t allowed = kMaxHeaderLineBytes + 1 - (scanned_ - line_start_);
    const std::size_t left = std::min(text.size() - scanned_, allowed);
    const auto* newline = static_cast<const char*>(std::memchr(p, '\n', left));
    const char* const stop = newline != nullptr ? newline : p + left;
    if (std::memchr(p, '\0', static_cast<std::size_t>(stop - p)) != nullptr) {
      throw Error(fmt::format("{}:{}: NUL byte in the header: binary data, not a Matrix Market text file",
                              name_, line_));
    }
    scanned_ = static_cast<std::size_t>(stop - begin);
    if (scanned_ - line_start_ > kMaxHeaderLineBytes) {
      throw Error(fmt::format("{}:{}: header line longer than {} MiB: not a Matrix Market text file", name_,
                              line_, kMaxHeaderLineBytes >> 20));
    }
    if (newline == nullptr) return std::string_view::npos;  // the line continues in the next read

    const char* const line_begin = begin + line_start_;
    const char* const q = skip_blanks(line_begin, newline);
    const bool banner = newline - q >= 2 && q[0] == '%' && q[1] == '%';
    // Line 1 that is no banner: complete as it is (parse_header names the problem). Later lines:
    // the first one that is neither blank nor a comment is the size line.
    const bool done = line_ == 1 ? !banner : (q != newline && *q != '%');
    ++scanned_;
    line_start_ = scanned_;
    ++line_;
    if (done) return scanned_;
  }
  return std::string_view::npos;
}

}  // namespace spx::io
