// Shared steps of every generator: parameter checks that name the parameter, size checks that
// happen before anything big is allocated, and the two-pass CSR build (row lengths -> row_ptr ->
// one allocation of exactly nnz entries -> parallel fill), which needs no temporaries.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string_view>

#include "common/host_memory.hpp"
#include "matrix/index_checks.hpp"
#include "spx/error.hpp"
#include "spx/matrix.hpp"

namespace spx::gen::detail {

using spx::detail::require_host_memory;

template <class I>
constexpr std::string_view index_name() {
  return sizeof(I) == 4 ? "int32" : "int64";
}

// OpenMP regions cost microseconds when idle cores wait and milliseconds on a loaded machine:
// small matrices (tests make hundreds) are generated serially. Results never depend on it.
inline constexpr int64_t kParallelWork = int64_t{1} << 15;
inline bool worth_threads(int64_t work) { return work >= kParallelWork; }

// a * b for non-negative counts, or an error when it does not fit 64 bits.
inline int64_t checked_mul(int64_t a, int64_t b, std::string_view generator, std::string_view what) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    throw Error(
        fmt::format("{}: {} overflows 64 bits ({} x {}); choose smaller sizes", generator, what, a, b));
  return product;
}
inline int64_t checked_add(int64_t a, int64_t b, std::string_view generator, std::string_view what) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    throw Error(fmt::format("{}: {} overflows 64 bits; choose smaller sizes", generator, what));
  return sum;
}

// Every index array uses I, so rows, cols and nnz must fit it. Called before allocating.
template <class I>
void require_fits(int64_t count, std::string_view generator, std::string_view what) {
  if (count > static_cast<int64_t>(std::numeric_limits<I>::max()))
    throw Error(fmt::format("{}: {} = {} does not fit {} indices (max {}); {}", generator, what, count,
                            index_name<I>(), std::numeric_limits<I>::max(),
                            spx::detail::kWideIndexBuildHint));
}

// "generator: parameter = value must be ..." errors. `parameter` names the C++ parameter and,
// in parentheses, its key in generate() specs, so both kinds of caller know what to change.
template <class V>
void require(bool ok, std::string_view generator, std::string_view parameter, V value,
             std::string_view requirement) {
  if (!ok) throw Error(fmt::format("{}: {} = {} {}", generator, parameter, value, requirement));
}

// An empty rows x cols matrix whose row_ptr (rows + 1 zeros) is ready for row lengths.
template <class T, class I>
Csr<T, I> empty_shape(int64_t rows, int64_t cols, std::string_view generator) {
  require_fits<I>(rows, generator, "rows");
  require_fits<I>(cols, generator, "cols");
  require_host_memory(static_cast<double>(rows + 1) * sizeof(I),
                      fmt::format("{}: {} row pointers", generator, rows + 1));
  try {
    return Csr<T, I>(static_cast<I>(rows), static_cast<I>(cols));
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("{}: out of host memory for {} row pointers", generator, rows + 1));
  } catch (const std::length_error&) {
    throw Error(fmt::format("{}: {} row pointers exceed the largest possible array", generator, rows + 1));
  }
}

template <class T, class I>
void allocate_entries(Csr<T, I>& A, int64_t nnz, std::string_view generator) {
  require_host_memory(static_cast<double>(nnz) * (sizeof(T) + sizeof(I)),
                      fmt::format("{}: {} nonzeros", generator, nnz));
  try {
    A.col_idx.resize(static_cast<std::size_t>(nnz));
    A.values.resize(static_cast<std::size_t>(nnz));
  } catch (const std::exception&) {  // std::bad_alloc, or std::length_error past max_size()
    A.col_idx = {};
    A.values = {};
    throw Error(fmt::format("{}: out of host memory for {} nonzeros", generator, nnz));
  }
}

// row_ptr[r + 1] holds the length of row r: turn the lengths into offsets (checking that nnz fits
// I before anything is written past it), then allocate exactly nnz entries.
template <class T, class I>
void lengths_to_offsets(Csr<T, I>& A, std::string_view generator) {
  int64_t total = 0;
  for (std::size_t r = 1; r < A.row_ptr.size(); ++r) total += static_cast<int64_t>(A.row_ptr[r]);
  require_fits<I>(total, generator, "nnz");
  int64_t running = 0;
  for (std::size_t r = 1; r < A.row_ptr.size(); ++r) {
    running += static_cast<int64_t>(A.row_ptr[r]);
    A.row_ptr[r] = static_cast<I>(running);
  }
  allocate_entries(A, total, generator);
}

}  // namespace spx::gen::detail
