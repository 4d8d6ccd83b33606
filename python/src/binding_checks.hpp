// The checks every binding entry point makes on its own arguments (spx._spx is importable by itself:
// the Python layer's checks are not relied on). A host array's shape, strides, dtype and overlap
// with the other operands are checked before any pointer is handed to the library, so a wrong call
// is a ValueError (TypeError for a dtype nanobind's overloads do not take), never an access out of
// bounds. Device entry points take raw pointers; what can be checked of them (sizes, leading
// dimensions, null pointers) is checked here too.
#pragma once

#include <fmt/format.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "common/overlap.hpp"
#include "matrix.hpp"

namespace spx::python {

// ValueError with `message` unless `ok`.
inline void require(bool ok, const std::string& message) {
  if (!ok) throw nanobind::value_error(message.c_str());
}

// The matrix holds values of type T (the overload nanobind chose from the arrays' dtype).
template <class T>
void require_dtype(const char* who, const Matrix& A) {
  const bool f32 = std::is_same_v<T, float>;
  require(A.is_f32() == f32, fmt::format("{}: the matrix holds {}, the operands {}", who, A.dtype(),
                                         f32 ? "float32" : "float64"));
}

// A 1-D operand of exactly n entries.
inline void require_length(const char* who, const char* name, std::size_t size, int64_t n) {
  require(static_cast<int64_t>(size) == n,
          fmt::format("{}: {} has {} entries, needs {}", who, name, size, n));
}

// A 2-D operand of shape (rows, cols).
template <class Array>
void require_shape(const char* who, const char* name, const Array& a, int64_t rows, int64_t cols) {
  require(static_cast<int64_t>(a.shape(0)) == rows && static_cast<int64_t>(a.shape(1)) == cols,
          fmt::format("{}: {} has shape ({}, {}), needs ({}, {})", who, name, a.shape(0), a.shape(1), rows,
                      cols));
}

// (leading dimension, row-major) of a 2-D host array with a unit stride in one dimension and a
// leading dimension that keeps its rows (or columns) apart; strides in elements. ValueError for any
// other view (negative, zero or interleaved strides).
template <class Array>
std::pair<int64_t, bool> dense_layout(const char* who, const char* name, const Array& a) {
  const auto r = static_cast<int64_t>(a.shape(0)), c = static_cast<int64_t>(a.shape(1));
  const int64_t s0 = a.stride(0), s1 = a.stride(1);
  if (r == 0 || c == 0) return {std::max<int64_t>(c, 1), true};  // no elements: any strides
  if ((s1 == 1 || c <= 1) && (r <= 1 || s0 >= std::max<int64_t>(c, 1)))
    return {r <= 1 ? std::max<int64_t>(c, 1) : s0, true};
  if ((s0 == 1 || r <= 1) && (c <= 1 || s1 >= std::max<int64_t>(r, 1)))
    return {c <= 1 ? std::max<int64_t>(r, 1) : s1, false};
  throw nanobind::value_error(
      fmt::format("{}: {} ({} x {}, strides {} and {} elements) needs a unit stride in one dimension "
                  "(C or Fortran order)",
                  who, name, r, c, s0, s1)
          .c_str());
}

// The bytes a 2-D array of (ld, row_major) touches.
template <class Array>
ByteRange dense_array_bytes(const Array& a, int64_t ld, bool row_major, std::size_t element_bytes) {
  const auto r = static_cast<int64_t>(a.shape(0)), c = static_cast<int64_t>(a.shape(1));
  return row_major ? dense_bytes(a.data(), r, c, ld, element_bytes)
                   : dense_bytes(a.data(), c, r, ld, element_bytes);
}

// The output does not share memory with an input (the raw bindings compute nothing in place; the
// package copies the input first: docs/python.md, "Aliasing").
inline void require_disjoint(const char* who, const char* out, ByteRange out_bytes, const char* in,
                             ByteRange in_bytes) {
  require(!overlap(out_bytes, in_bytes),
          fmt::format("{}: {} overlaps {}; the binding does not compute in place", who, out, in));
}

// A device pointer that must be set when its operand has elements.
inline void require_pointer(const char* who, const char* name, uintptr_t ptr, bool has_elements) {
  require(ptr != 0 || !has_elements, fmt::format("{}: {} is a null pointer", who, name));
}

// A device operand of `outer` runs of `inner` elements, `ld` apart: ld >= max(1, inner).
inline void require_leading_dimension(const char* who, const char* name, int64_t ld, int64_t inner) {
  require(ld >= std::max<int64_t>(1, inner), fmt::format("{}: {} has leading dimension {}, needs at least {}",
                                                         who, name, ld, std::max<int64_t>(1, inner)));
}

}  // namespace spx::python
