// The device matrix's offset width (spx/plan.hpp, IndexWidth): 32 bits where the matrix fits them,
// 64 where it must or where asked. Host code: the CLI and Python parse and check it without a GPU.
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "spx/error.hpp"
#include "spx/plan.hpp"

namespace spx::plan {

std::string to_string(IndexWidth w) {
  switch (w) {
    case IndexWidth::Bits32:
      return "32";
    case IndexWidth::Bits64:
      return "64";
    case IndexWidth::Auto:
      break;
  }
  return "auto";
}

IndexWidth parse_index_width(std::string_view s) {
  if (s == "auto") return IndexWidth::Auto;
  if (s == "32") return IndexWidth::Bits32;
  if (s == "64") return IndexWidth::Bits64;
  throw Error(fmt::format("index width '{}': expected auto, 32 or 64", s));
}

int offset_bits(IndexWidth w, int64_t rows, int64_t cols, int64_t nnz) {
  constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
  if (rows < 0 || cols < 0 || nnz < 0)
    throw Error(fmt::format("a {} x {} matrix of {} nonzeros: negative size", rows, cols, nnz));
  if (rows > kMax32 || cols > kMax32)
    throw Error(fmt::format(
        "a {} x {} matrix: the GPU path keeps 32-bit column indices, so rows and columns must be at most "
        "2^31 - 1 = {} (64-bit offsets carry any nonzero count)",
        rows, cols, kMax32));
  const bool fits = nnz <= kMax32;
  switch (w) {
    case IndexWidth::Bits32:
      if (!fits)
        throw Error(
            fmt::format("{} nonzeros do not fit 32-bit row offsets (at most 2^31 - 1 = {}); use index "
                        "width 64 (or auto)",
                        nnz, kMax32));
      return 32;
    case IndexWidth::Bits64:
      return 64;
    case IndexWidth::Auto:
      break;
  }
  return fits ? 32 : 64;
}

std::string offsets32_only_reason(int64_t nnz) {
  return fmt::format("runs with 32-bit row offsets only; this matrix has 64-bit ones ({} nonzeros{})", nnz,
                     nnz > std::numeric_limits<int32_t>::max() ? ", past 2^31 - 1" : ": asked for");
}

}  // namespace spx::plan
