// Reading and writing whole text files, plain or gzip-compressed. Internal to src/io.
//
// Input: gzip is recognized by its magic bytes (1f 8b), not by the name; multi-member streams
// (concatenated .gz files) are read in full. Output: gzip when the path ends in ".gz".
// Every failure is an spx::Error "PATH: what went wrong".
#pragma once

#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace spx::io {

// A byte buffer that is not zero-filled when it grows (std::string would write every byte of a
// multi-gigabyte file twice), or a read-only memory map of a plain file.
class TextBuffer {
 public:
  // Maps [0, size) of the open file read-only; false when the system refuses (then read it).
  bool map(int fd, std::size_t size);
  TextBuffer() = default;
  ~TextBuffer();
  TextBuffer(TextBuffer&& other) noexcept;
  TextBuffer& operator=(TextBuffer&& other) noexcept;
  TextBuffer(const TextBuffer&) = delete;
  TextBuffer& operator=(const TextBuffer&) = delete;

  std::string_view view() const { return {data_, size_}; }
  char* data() { return data_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  // Keeps the content; throws std::bad_alloc.
  void reserve(std::size_t capacity);
  void set_size(std::size_t size) { size_ = size; }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  bool mapped_ = false;
  void release();
};

// The whole (decompressed) content of the file.
TextBuffer read_text_file(const std::string& path);

// Reads (decompressed) text in pieces; used where only the beginning of a file is needed.
class TextReader {
 public:
  explicit TextReader(const std::string& path);
  ~TextReader();
  TextReader(const TextReader&) = delete;
  TextReader& operator=(const TextReader&) = delete;

  // Fills up to n bytes; returns how many (0 only at the end of the text).
  std::size_t read(char* dst, std::size_t n);
  bool gzip() const { return gzip_ != nullptr; }
  // For a plain regular file nothing has been read from yet: its descriptor (to map it), else -1.
  int mappable_fd() const;
  // Size of the file on disk (compressed size for gzip).
  std::size_t file_size() const { return file_size_; }

 private:
  struct Gzip;
  std::string path_;
  std::FILE* file_ = nullptr;
  std::size_t file_size_ = 0;
  unsigned char peeked_[2] = {0, 0};  // bytes read to recognize gzip, not yet delivered (plain files)
  std::size_t peeked_count_ = 0;
  std::unique_ptr<Gzip> gzip_;

  std::size_t read_file(unsigned char* dst, std::size_t n);
  std::size_t read_gzip(char* dst, std::size_t n);
};

// Writes text to a file, gzip-compressed when the path ends in ".gz". close() reports errors
// (disk full shows up there); a writer destroyed without close() removes its partial file.
class TextWriter {
 public:
  explicit TextWriter(const std::string& path);
  ~TextWriter();
  TextWriter(const TextWriter&) = delete;
  TextWriter& operator=(const TextWriter&) = delete;

  void write(std::string_view text);
  void close();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  void* gz_ = nullptr;  // gzFile
};

}  // namespace spx::io
