// Shared pieces of the libFuzzer harnesses: a temporary file holding the input (for the readers
// that take a path) and the one rule every harness checks: spx::Error is the only acceptable
// failure; anything else (another exception, a crash, a sanitizer report, a leak, an allocation
// above -rss_limit_mb, a timeout) is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "io/mm_header.hpp"
#include "spx/error.hpp"

namespace spx::fuzz {

// A valid file may declare a large matrix with few entries ("2000000000 5 0"): its row pointer
// array (rows + 1 indices) is legitimately gigabytes. The readers never allocate for entries or
// values the text has not paid for, but they must allocate the rows of a valid matrix, so the
// harnesses skip such shapes. Shapes too large for int32_t still run: they must be rejected
// before any allocation.
constexpr int64_t kMaxFuzzRows = int64_t{1} << 16;

inline bool huge_valid_shape(std::string_view text) {
  try {
    const auto h = spx::io::parse_header(text, "fuzz");
    const int64_t rows = h.header.rows;
    return rows > kMaxFuzzRows && rows <= std::numeric_limits<int32_t>::max();
  } catch (const spx::Error&) {
    return false;  // the reader reports it
  }
}

// A file in $TMPDIR (default /tmp) holding `bytes`, removed when this goes out of scope.
class TempFile {
 public:
  explicit TempFile(std::string_view bytes, const char* suffix = "") {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/spx-fuzz-XXXXXX" + suffix;
    const int fd = ::mkstemps(path_.data(), static_cast<int>(std::string_view(suffix).size()));
    if (fd < 0) std::abort();  // the harness's own environment is broken: not a finding
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A matrix a reader accepted must be canonical CSR; anything else is a finding.
template <class M>
void expect_valid(const M& A, const char* who) {
  try {
    A.validate();
  } catch (const spx::Error& e) {
    std::fprintf(stderr, "%s returned an invalid matrix: %s\n", who, e.what());
    std::abort();
  }
}

inline std::string_view as_text(const uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace spx::fuzz
