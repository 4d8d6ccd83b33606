#include "io/mm_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <new>

#include "common/host_memory.hpp"
#include "io/mm_header_scan.hpp"
#include "spx/error.hpp"

namespace spx::io {
namespace {

// First read of a stream: usually holds the whole header.
constexpr std::size_t kHeaderPiece = std::size_t{64} << 10;

// Reads more of the text into `text`, never past limit + 1 bytes in all (so passing the limit
// shows), growing the buffer by doubling to at least `first_capacity`; returns the bytes read (0
// at the end of the text). A doubling larger than the memory the host
// has left is refused: the stream's own limit may still be far away.
std::size_t read_piece(TextReader& reader, TextBuffer& text, std::size_t first_capacity, std::size_t limit,
                       const std::string& path) {
  if (text.size() == text.capacity()) {
    const std::size_t grown = std::max(text.capacity() * 2, first_capacity);
    const std::size_t wanted = std::min(grown, std::max(limit, text.size() + 1));
    const uint64_t available = detail::host_memory_available();
    if (available != 0 && wanted - text.capacity() > available) {
      throw Error(fmt::format(
          "{}: out of memory reading the text: {} read so far, growing the buffer by "
          "{} needs more than the {} available",
          path, bytes_text(text.size()), bytes_text(wanted - text.capacity()), bytes_text(available)));
    }
    try {
      text.reserve(wanted);
    } catch (const std::bad_alloc&) {
      throw Error(
          fmt::format("{}: out of memory reading the text ({} read so far)", path, bytes_text(text.size())));
    }
  }
  const std::size_t room = std::min(text.capacity() - text.size(), limit - std::min(limit, text.size()) + 1);
  const std::size_t got = reader.read(text.data() + text.size(), room);
  text.set_size(text.size() + got);
  return got;
}

// Reads a stream until its header is complete (or the text ends); returns the header's length,
// or npos when the text ended first.
std::size_t read_header_part(TextReader& reader, TextBuffer& text, const std::string& path) {
  HeaderScan scan(path);
  while (true) {
    const std::size_t length = scan.scan(text.view());
    if (length != std::string_view::npos) return length;
    if (read_piece(reader, text, kHeaderPiece, text.size() + kHeaderPiece, path) == 0)
      return std::string_view::npos;
  }
}

}  // namespace

MatrixMarketText read_matrix_market_text(const std::string& path, const ResultSizes& sizes) {
  TextReader reader(path);
  MatrixMarketText m;
  // A plain file is mapped, not copied: parsing then reads the page cache directly. (A file
  // truncated by another process while it is parsed would fault; Matrix Market inputs are not
  // rewritten in place in practice.)
  if (const int fd = reader.mappable_fd(); fd >= 0 && m.text.map(fd, reader.file_size())) {
    HeaderScan(path).scan(m.text.view());
    m.header = parse_header(m.text.view(), path);
    check_read_memory(m.header, path, m.text.size() - std::min(m.header.body_offset, m.text.size()), false,
                      sizes);
    return m;
  }
  read_header_part(reader, m.text, path);
  m.header = parse_header(m.text.view(), path);
  check_read_memory(m.header, path, 0, true, sizes);
  const StreamTextLimit limit = stream_text_limit(m.header);
  // Matrix Market text compresses about 5:1: a gzip file's text starts at 5x its size.
  const std::size_t first = std::max<std::size_t>(reader.gzip() ? reader.file_size() * 5 : 0, kHeaderPiece);
  while (read_piece(reader, m.text, std::min(first, limit.bytes + 1), limit.bytes, path) != 0) {
    if (m.text.size() > limit.bytes) throw_text_limit(m.header, path, limit);
  }
  return m;
}

ParsedHeader read_matrix_market_header_only(const std::string& path) {
  TextReader reader(path);
  TextBuffer text;
  read_header_part(reader, text, path);
  return parse_header(text.view(), path);
}

}  // namespace spx::io
