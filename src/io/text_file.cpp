#include "io/text_file.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

#include "spx/error.hpp"

namespace spx::io {
namespace {

// Large pieces keep zlib and stdio call overhead negligible against the parser.
constexpr std::size_t kInputChunk = std::size_t{1} << 20;

std::string errno_text(int err) { return err != 0 ? std::strerror(err) : "unknown error"; }

// Only a regular file is removed: writing to /dev/full or a pipe must not delete the device.
void remove_partial_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) std::filesystem::remove(path, ec);
}

}  // namespace

// ---- TextBuffer -------------------------------------------------------------------------------

TextBuffer::~TextBuffer() { release(); }

void TextBuffer::release() {
  if (mapped_) {
    munmap(data_, capacity_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
  size_ = capacity_ = 0;
  mapped_ = false;
}

TextBuffer::TextBuffer(TextBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      mapped_(std::exchange(other.mapped_, false)) {}

TextBuffer& TextBuffer::operator=(TextBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

bool TextBuffer::map(int fd, std::size_t size) {
  release();
  if (size == 0) return false;
  // MAP_POPULATE maps the whole page-cached file in one call instead of one fault per page.
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) return false;
  madvise(p, size, MADV_SEQUENTIAL);
  data_ = static_cast<char*>(p);
  size_ = capacity_ = size;
  mapped_ = true;
  return true;
}

void TextBuffer::reserve(std::size_t capacity) {
  if (capacity <= capacity_) return;
  if (mapped_) throw std::logic_error("TextBuffer::reserve on a mapped file");
  // realloc of a large block remaps pages instead of copying them.
  void* p = std::realloc(data_, capacity);
  if (p == nullptr) throw std::bad_alloc();
  data_ = static_cast<char*>(p);
  capacity_ = capacity;
}

// ---- TextReader -------------------------------------------------------------------------------

struct TextReader::Gzip {
  z_stream z{};
  std::vector<unsigned char> input = std::vector<unsigned char>(kInputChunk);
  bool member_done = false;  // the current gzip member ended; another may follow
  bool finished = false;
  ~Gzip() { inflateEnd(&z); }
};

TextReader::TextReader(const std::string& path) : path_(path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("{}: is a directory, not a file", path));
  file_ = std::fopen(path.c_str(), "rb");
  if (file_ == nullptr) throw Error(fmt::format("{}: cannot open: {}", path, errno_text(errno)));
  const auto size = std::filesystem::file_size(path, ec);
  file_size_ = ec ? 0 : static_cast<std::size_t>(size);

  try {  // the destructor does not run for a constructor that throws
    peeked_count_ = read_file(peeked_, 2);
    if (peeked_count_ == 2 && peeked_[0] == 0x1f && peeked_[1] == 0x8b) {
      gzip_ = std::make_unique<Gzip>();
      // 15 + 16: maximal window, gzip wrapper only (the magic said so).
      if (inflateInit2(&gzip_->z, 15 + 16) != Z_OK) {
        throw Error(fmt::format("{}: cannot start gzip decompression (out of memory)", path));
      }
      gzip_->input[0] = peeked_[0];
      gzip_->input[1] = peeked_[1];
      gzip_->z.next_in = gzip_->input.data();
      gzip_->z.avail_in = 2;
      peeked_count_ = 0;
    }
  } catch (...) {
    std::fclose(file_);
    file_ = nullptr;
    throw;
  }
}

int TextReader::mappable_fd() const {
  if (gzip_ || peeked_count_ != 2 || file_size_ < 2) return -1;
  struct stat st {};
  const int fd = fileno(file_);
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) != file_size_)
    return -1;
  return fd;
}

TextReader::~TextReader() {
  if (file_ != nullptr) std::fclose(file_);
}

std::size_t TextReader::read_file(unsigned char* dst, std::size_t n) {
  const std::size_t got = std::fread(dst, 1, n, file_);
  if (got < n && std::ferror(file_)) {
    throw Error(fmt::format("{}: read error: {}", path_, errno_text(errno)));
  }
  return got;
}

std::size_t TextReader::read(char* dst, std::size_t n) {
  if (gzip_) return read_gzip(dst, n);
  std::size_t done = 0;
  while (peeked_count_ > 0 && done < n) {
    dst[done++] = static_cast<char>(peeked_[0]);
    peeked_[0] = peeked_[1];
    --peeked_count_;
  }
  return done + read_file(reinterpret_cast<unsigned char*>(dst) + done, n - done);
}

std::size_t TextReader::read_gzip(char* dst, std::size_t n) {
  Gzip& g = *gzip_;
  z_stream& z = g.z;
  std::size_t produced = 0;
  while (produced < n && !g.finished) {
    if (z.avail_in == 0) {
      z.next_in = g.input.data();
      z.avail_in = static_cast<uInt>(read_file(g.input.data(), g.input.size()));
      if (z.avail_in == 0) {
        if (g.member_done) {
          g.finished = true;
          break;
        }
        throw Error(
            fmt::format("{}: truncated gzip stream: the compressed data ends before its end marker", path_));
      }
    }
    if (g.member_done) {
      // Between members: zero padding (tar, some copy tools) is tolerated, anything else must be
      // the next member's header (inflate checks the rest of it).
      while (z.avail_in > 0 && *z.next_in == 0) {
        ++z.next_in;
        --z.avail_in;
      }
      if (z.avail_in == 0) continue;
      if (*z.next_in != 0x1f) {
        throw Error(fmt::format(
            "{}: corrupt gzip stream: unexpected data after the end of the compressed text", path_));
      }
      inflateReset(&z);
      g.member_done = false;
    }
    const std::size_t want = std::min<std::size_t>(n - produced, UINT_MAX);
    z.next_out = reinterpret_cast<Bytef*>(dst + produced);
    z.avail_out = static_cast<uInt>(want);
    const int rc = inflate(&z, Z_NO_FLUSH);
    produced += want - z.avail_out;
    if (rc == Z_STREAM_END) {
      g.member_done = true;
    } else if (rc == Z_MEM_ERROR) {
      throw Error(fmt::format("{}: out of memory while decompressing", path_));
    } else if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      continue;  // needs more input
    } else if (rc != Z_OK) {
      throw Error(
          fmt::format("{}: corrupt gzip stream ({})", path_, z.msg != nullptr ? z.msg : "inflate failed"));
    }
  }
  return produced;
}

TextBuffer read_text_file(const std::string& path) {
  TextReader reader(path);
  TextBuffer text;
  // A plain file is mapped, not copied: parsing then reads the page cache directly. (A file
  // truncated by another process while it is parsed would fault; Matrix Market inputs are not
  // rewritten in place in practice.)
  if (const int fd = reader.mappable_fd(); fd >= 0 && text.map(fd, reader.file_size())) return text;
  // Plain: the file size plus one byte, so the end shows without growing. Gzip: Matrix Market
  // text compresses about 5:1; the buffer doubles when that guess is short.
  const std::size_t guess =
      reader.gzip() ? std::max<std::size_t>(reader.file_size() * 5, kInputChunk) : reader.file_size() + 1;
  try {
    text.reserve(guess);
    while (true) {
      if (text.size() == text.capacity()) text.reserve(text.capacity() * 2);
      const std::size_t got = reader.read(text.data() + text.size(), text.capacity() - text.size());
      if (got == 0) break;
      text.set_size(text.size() + got);
    }
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("{}: out of memory reading the file ({} bytes read so far)", path, text.size()));
  }
  return text;
}

// ---- TextWriter -------------------------------------------------------------------------------

TextWriter::TextWriter(const std::string& path) : path_(path) {
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  errno = 0;
  if (gzip) {
    // Level 1: on G3_circuit's 177 MB of text, 1.4 s and 39 MB against level 6's 5.4 s and
    // 31 MB (gzip's default). Compression, not formatting, dominates a .gz write.
    gzFile gz = gzopen(path.c_str(), "wb1");
    if (gz == nullptr) throw Error(fmt::format("{}: cannot open for writing: {}", path, errno_text(errno)));
    gzbuffer(gz, 1u << 20);
    gz_ = gz;
  } else {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr)
      throw Error(fmt::format("{}: cannot open for writing: {}", path, errno_text(errno)));
  }
}

TextWriter::~TextWriter() {
  if (file_ == nullptr && gz_ == nullptr) return;
  if (file_ != nullptr) std::fclose(file_);
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
  remove_partial_file(path_);  // incomplete: an exception is on its way
}

void TextWriter::write(std::string_view text) {
  while (!text.empty()) {
    const std::size_t piece = std::min<std::size_t>(text.size(), std::size_t{1} << 30);
    bool ok;
    if (gz_ != nullptr) {
      ok = gzwrite(static_cast<gzFile>(gz_), text.data(), static_cast<unsigned>(piece)) ==
           static_cast<int>(piece);
    } else {
      ok = std::fwrite(text.data(), 1, piece, file_) == piece;
    }
    if (!ok) throw Error(fmt::format("{}: write failed: {}", path_, errno_text(errno)));
    text.remove_prefix(piece);
  }
}

void TextWriter::close() {
  int rc = 0;
  errno = 0;
  if (gz_ != nullptr) {
    rc = gzclose(static_cast<gzFile>(gz_)) == Z_OK ? 0 : -1;
    gz_ = nullptr;
  } else if (file_ != nullptr) {
    rc = std::fclose(file_);
    file_ = nullptr;
  }
  if (rc != 0) {
    const int err = errno;
    remove_partial_file(path_);
    throw Error(fmt::format("{}: could not finish writing: {}", path_, errno_text(err)));
  }
}

}  // namespace spx::io
