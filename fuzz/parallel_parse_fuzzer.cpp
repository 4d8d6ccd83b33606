// libFuzzer harness: the parallel coordinate parser, which runs only on bodies of 4 MiB and more
// with two or more OpenMP threads (src/io/mm_coordinate.cpp, kParallelMinBytes). The input is a
// Matrix Market text; its body (the lines after the size line) is repeated until the text passes
// 4 MiB, so the pieces the parser cuts start mid-body, mid-comment or mid-line wherever the fuzzer
// puts them. The first byte says whether the size line keeps its declared count (0) or declares
// the repeated entry lines (1: the deep path, where counts and duplicates are merged across
// pieces). spx::Error is the only acceptable failure (fuzz_support.hpp).
#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "spx/io.hpp"

namespace {

constexpr std::size_t kTargetBytes = (std::size_t{4} << 20) + 4096;  // past kParallelMinBytes

// Lines holding an entry: not blank, not a comment.
int64_t entry_lines(std::string_view body) {
  int64_t n = 0;
  for (std::size_t at = 0; at < body.size();) {
    std::size_t end = body.find('\n', at);
    if (end == std::string_view::npos) end = body.size();
    const std::string_view line = body.substr(at, end - at);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos && line[first] != '%') ++n;
    at = end + 1;
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  omp_set_num_threads(4);  // four pieces, whatever OMP_NUM_THREADS says
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const bool declare_all = (data[0] & 1) != 0;
  const std::string_view text = spx::fuzz::as_text(data + 1, size - 1);
  if (spx::fuzz::huge_valid_shape(text)) return 0;

  // The banner, comments and size line: everything up to the first line with a digit after
  // the banner. Inputs without one are left to the other harnesses.
  spx::io::ParsedHeader parsed;
  try {
    parsed = spx::io::parse_header(text, "fuzz");
  } catch (const spx::Error&) {
    return 0;
  }
  if (parsed.header.format != spx::MatrixMarketHeader::Format::Coordinate) return 0;
  const std::size_t body_at = parsed.body_offset;
  if (body_at > text.size()) return 0;
  std::string body(text.substr(body_at));
  if (body.empty() || body.size() > 4096) return 0;
  if (body.back() != '\n') body += '\n';
  const std::size_t reps = kTargetBytes / body.size() + 1;

  std::string big(text.substr(0, body_at));
  if (declare_all) {
    // Replace the size line (the last line of the header part) by one declaring every entry line.
    const std::size_t cut = big.find_last_of('\n', big.size() >= 2 ? big.size() - 2 : 0);
    big.resize(cut == std::string::npos ? 0 : cut + 1);
    big += std::to_string(parsed.header.rows) + ' ' + std::to_string(parsed.header.cols) + ' ' +
           std::to_string(entry_lines(body) * static_cast<int64_t>(reps)) + '\n';
  }
  big.reserve(big.size() + reps * body.size());
  for (std::size_t r = 0; r < reps; ++r) big += body;

  spx::Csr<double, int32_t> A;
  try {
    A = spx::parse_matrix_market<double, int32_t>(big, "fuzz");
  } catch (const spx::Error&) {
    return 0;
  }
  spx::fuzz::expect_valid(A, "parse_matrix_market (parallel)");
  return 0;
}
