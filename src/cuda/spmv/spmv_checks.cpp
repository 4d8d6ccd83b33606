#include "cuda/spmv/spmv_checks.hpp"

#include <fmt/format.h>

#include "spx/error.hpp"

namespace spx::cuda {

void check_spmv_vectors(const char* who, int64_t rows, int64_t cols, const void* x, std::size_t x_size,
                        std::size_t x_bytes, const void* y, std::size_t y_size, std::size_t y_bytes) {
  if (static_cast<int64_t>(x_size) < cols)
    throw Error(fmt::format("{}: x has {} entries, matrix has {} columns", who, x_size, cols));
  if (static_cast<int64_t>(y_size) < rows)
    throw Error(fmt::format("{}: y has {} entries, matrix has {} rows", who, y_size, rows));
  const auto* xb = static_cast<const char*>(x);
  const auto* yb = static_cast<const char*>(y);
  // Only the parts the product touches must be disjoint (x and y may be longer than A needs).
  x_bytes = x_size == 0 ? 0 : x_bytes / x_size * static_cast<std::size_t>(cols);
  y_bytes = y_size == 0 ? 0 : y_bytes / y_size * static_cast<std::size_t>(rows);
  if (x_bytes > 0 && y_bytes > 0 && xb < yb + y_bytes && yb < xb + x_bytes)
    throw Error(fmt::format("{}: x and y overlap; the product cannot be computed in place", who));
}

}  // namespace spx::cuda
