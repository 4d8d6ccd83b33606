// libFuzzer harness: arbitrary bytes as Matrix Market text for parse_matrix_market<double,
// int32_t>. spx::Error is the only acceptable failure; any other exception, a crash, a sanitizer
// report, a leak, an allocation above -rss_limit_mb or a timeout is a bug. A matrix the reader
// accepts must also pass validate() (canonical CSR).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "io/mm_header.hpp"
#include "spx/io.hpp"

namespace {

// A valid file may declare a large matrix with few entries ("2000000000 5 0"): its row pointer
// array (rows + 1 indices) is legitimately gigabytes. The reader never allocates for entries or
// values the text has not paid for, but it must allocate the rows of a valid matrix, so the
// harness skips such shapes. Shapes too large for int32_t still run: they must be rejected
// before any allocation.
constexpr int64_t kMaxFuzzRows = int64_t{1} << 16;

bool huge_valid_shape(std::string_view text) {
  try {
    const auto h = spx::io::parse_header(text, "fuzz");
    const int64_t rows = h.header.rows;
    return rows > kMaxFuzzRows && rows <= std::numeric_limits<int32_t>::max();
  } catch (const spx::Error&) {
    return false;  // the reader reports it below
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (huge_valid_shape(text)) return 0;
  spx::Csr<double, int32_t> A;
  try {
    A = spx::parse_matrix_market<double, int32_t>(text, "fuzz");
  } catch (const spx::Error&) {
    return 0;
  }
  try {
    A.validate();
  } catch (const spx::Error& e) {
    std::fprintf(stderr, "parse_matrix_market returned an invalid matrix: %s\n", e.what());
    std::abort();
  }
  return 0;
}
