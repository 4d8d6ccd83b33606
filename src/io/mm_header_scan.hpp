// Finds where a Matrix Market header (banner, comment lines, size line) ends, in text that may
// still be arriving (a pipe, a gzip stream): each byte is looked at once however the text is cut
// into reads, a header line longer than kMaxHeaderLineBytes is an error, and so is a NUL byte
// (binary data such as /dev/zero is rejected at its first byte, not after reading all of it).
// Internal to src/io.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace spx::io {

// Generous: real banners and comments are under 1 KB; a longer "line" is not a text header.
inline constexpr std::size_t kMaxHeaderLineBytes = std::size_t{1} << 20;

class HeaderScan {
 public:
  explicit HeaderScan(std::string_view name) : name_(name) {}

  // `text` is everything read so far (the same prefix, longer at each call). Returns the length of
  // the complete header (through the size line's newline; for a first line that is no banner,
  // through that line), or npos while more text is needed. Throws spx::Error "NAME:LINE: ..."
  // for a NUL byte or an overlong line.
  std::size_t scan(std::string_view text);

 private:
  std::string_view name_;
  std::size_t scanned_ = 0;     // bytes of text already looked at
  std::size_t line_start_ = 0;  // offset of the line being scanned
  int64_t line_ = 1;            // its 1-based number
};

}  // namespace spx::io
