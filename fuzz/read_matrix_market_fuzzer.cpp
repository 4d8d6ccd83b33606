// libFuzzer harness: arbitrary bytes as Matrix Market text for parse_matrix_market<double,
// int32_t> (the sequential parser: inputs stay below the parallel parser's 4 MiB). spx::Error is
// the only acceptable failure (fuzz_support.hpp); a matrix the reader accepts must also pass
// validate() (canonical CSR).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "spx/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text = spx::fuzz::as_text(data, size);
  if (spx::fuzz::huge_valid_shape(text)) return 0;
  spx::Csr<double, int32_t> A;
  try {
    A = spx::parse_matrix_market<double, int32_t>(text, "fuzz");
  } catch (const spx::Error&) {
    return 0;
  }
  spx::fuzz::expect_valid(A, "parse_matrix_market");
  return 0;
}
