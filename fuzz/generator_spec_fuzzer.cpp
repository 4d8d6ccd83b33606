// libFuzzer harness: generator specs ("stencil27:n=64", "fem2d:dofs=1e6,p=4", ...) as a user types
// them on the command line or passes them to spx.generate. The input is the spec text. Sizes are
// checked against the memory available before anything is allocated (src/generate); the harness
// caps that memory at 8 MiB through SPX_HOST_MEMORY_LIMIT, so every spec either builds a small
// matrix quickly or is refused with the size it needs — never an allocation the fuzzer's RSS limit
// or timeout would catch. spx::Error is the only acceptable failure (fuzz_support.hpp); a matrix a
// generator returns must be canonical CSR.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "spx/generate.hpp"

namespace {
constexpr std::size_t kMaxSpecBytes = 256;  // longer specs only repeat keys
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("SPX_HOST_MEMORY_LIMIT", "8388608", 1);  // ASan runs fem2d:p=4,n=64 (64 MiB) for > 10 s
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size > kMaxSpecBytes) return 0;
  const std::string spec(spx::fuzz::as_text(data, size));
  spx::Csr<double, int32_t> A;
  try {
    A = spx::gen::generate<double, int32_t>(spec);
  } catch (const spx::Error&) {
    return 0;
  }
  spx::fuzz::expect_valid(A, "generate");
  return 0;
}
