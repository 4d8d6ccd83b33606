#include "cuda/spmv/spmv_checks.hpp"

#include <fmt/format.h>

#include "common/overlap.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

void check_spmv_vectors(const char* who, int64_t rows, int64_t cols, const void* x, std::size_t x_size,
                        std::size_t x_bytes, const void* y, std::size_t y_size, std::size_t y_bytes) {
  if (static_cast<int64_t>(x_size) < cols)
    throw Error(fmt::format("{}: x has {} entries, matrix has {} columns", who, x_size, cols));
  if (static_cast<int64_t>(y_size) < rows)
    throw Error(fmt::format("{}: y has {} entries, matrix has {} rows", who, y_size, rows));
  // Only the parts the product touches must be disjoint (x and y may be longer than A needs).
  const std::size_t x_elem = x_size == 0 ? 0 : x_bytes / x_size;
  const std::size_t y_elem = y_size == 0 ? 0 : y_bytes / y_size;
  if (overlap(vector_bytes(x, static_cast<std::size_t>(cols), x_elem),
              vector_bytes(y, static_cast<std::size_t>(rows), y_elem)))
    throw Error(
        fmt::format("{}: the output y overlaps the input x; products are not computed in place "
                    "(pass a separate y)",
                    who));
}

}  // namespace spx::cuda
