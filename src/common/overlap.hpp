// Whether an output operand overlaps an input: the one test behind every product's aliasing check
// (CPU kernels, the CUDA kernels and front door, the Python bindings). Products are not computed
// in place, so the C++ API refuses an output that shares memory with an input (spx::Error naming
// both); the Python package copies the input first instead (docs/python.md, "Aliasing").
//
// The test compares address ranges [first byte, one past the last byte touched): exact for
// contiguous vectors, conservative for strided views (two interleaved views of one array, such as
// the even and the odd entries, are reported as overlapping). Header-only, no fmt: .cu files and
// the bindings include it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace spx {

// The bytes an operand may touch; empty (begin == end) when it has no elements.
struct ByteRange {
  uintptr_t begin = 0;
  uintptr_t end = 0;
  bool empty() const { return begin == end; }
};

// `count` contiguous elements of `element_bytes` each from `data`.
inline ByteRange vector_bytes(const void* data, std::size_t count, std::size_t element_bytes) {
  const auto begin = reinterpret_cast<uintptr_t>(data);
  return {begin, count == 0 ? begin : begin + count * element_bytes};
}

// A dense view of `outer` runs of `inner` contiguous elements, `ld` elements apart (rows of a
// row-major matrix, columns of a column-major one). Callers have checked ld >= inner >= 0.
inline ByteRange dense_bytes(const void* data, int64_t outer, int64_t inner, int64_t ld,
                             std::size_t element_bytes) {
  const auto begin = reinterpret_cast<uintptr_t>(data);
  if (outer <= 0 || inner <= 0) return {begin, begin};
  const auto elements =
      static_cast<uintptr_t>(outer - 1) * static_cast<uintptr_t>(ld) + static_cast<uintptr_t>(inner);
  return {begin, begin + elements * element_bytes};
}

inline bool overlap(ByteRange a, ByteRange b) {
  return !a.empty() && !b.empty() && a.begin < b.end && b.begin < a.end;
}

}  // namespace spx
