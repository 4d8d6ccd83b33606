// Argument checks shared by every SpMV entry point (ours and the vendor baselines). The message
// is built in spmv_checks.cpp, so .cu files can include this without fmt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace spx::cuda {

// x.size() >= cols and y.size() >= rows (as on the CPU: entries past them are untouched), and the
// parts used do not overlap; else spx::Error naming `who`.
void check_spmv_vectors(const char* who, int64_t rows, int64_t cols, const void* x, std::size_t x_size,
                        std::size_t x_bytes, const void* y, std::size_t y_size, std::size_t y_bytes);

template <class T>
void check_spmv_operands(const char* who, int64_t rows, int64_t cols, std::span<const T> x, std::span<T> y) {
  check_spmv_vectors(who, rows, cols, x.data(), x.size(), x.size_bytes(), y.data(), y.size(), y.size_bytes());
}

}  // namespace spx::cuda
