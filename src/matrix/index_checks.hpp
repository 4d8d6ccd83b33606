// Internal helpers for src/matrix: checked size arithmetic and index-type narrowing. Every size in
// the conversions is computed in 64 bits and narrowed through these, so an overflow becomes an
// spx::Error naming what did not fit instead of a wrapped index and a heap overrun.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "spx/error.hpp"
#include "spx/matrix.hpp"

namespace spx::detail {

// Ends "does not fit the index type" messages of conversions (ELL slots, ...): what a user can do.
inline constexpr std::string_view kWideIndexHint =
    "a matrix this large needs 64-bit indices, which the C++ API offers (Csr<T, int64_t>)";

// End the readers' and the generators' "does not fit" messages: each surface that reads or builds a
// matrix with 64-bit indices, by the name it has there.
inline constexpr std::string_view kWideIndexReadHint =
    "read it with 64-bit indices: `spx cg --index 64`, `spx spmv --index 64`, `spx spmm --index 64` or "
    "`spx bench --index 64` (or auto); in Python, spx.read(path, index='64'); in C++, "
    "read_matrix_market<T, int64_t>, and spx::cuda::SparseMatrix multiplies it on the GPU "
    "(docs/index-width.md)";
inline constexpr std::string_view kWideIndexBuildHint =
    "build it with 64-bit indices: `spx gen --index int64`, `spx cg --index 64`, `spx spmv --index 64`, "
    "`spx spmm --index 64` or `spx bench --index 64` (or auto); in Python, spx.generate(spec, index='64'); "
    "in C++, gen::generate<T, int64_t> (docs/index-width.md)";

template <class I>
constexpr std::string_view index_type_name() {
  if constexpr (sizeof(I) == 4)
    return "int32_t";
  else
    return "int64_t";
}

template <class I>
constexpr int64_t max_index() {
  return static_cast<int64_t>(std::numeric_limits<I>::max());
}

// Narrows a non-negative 64-bit count to I; `what` names the quantity for the message.
template <class I>
I to_index(int64_t value, std::string_view what) {
  if (value < 0 || value > max_index<I>()) {
    throw Error(fmt::format("{} = {} does not fit in index type {} (max {}); {}", what, value,
                            index_type_name<I>(), max_index<I>(), kWideIndexHint));
  }
  return static_cast<I>(value);
}

// a * b for non-negative a, b; throws when the product exceeds int64_t.
inline int64_t checked_mul(int64_t a, int64_t b, std::string_view what) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    throw Error(fmt::format("{}: {} x {} overflows 64-bit arithmetic", what, a, b));
  }
  return product;
}

// Ell's ld and EllR's rows_padded: rows rounded up to a multiple of 32, so every slot column
// starts on a 128-byte boundary for 32-bit indices (coalesced warp loads).
inline constexpr int64_t kSlotAlignment = 32;
inline int64_t round_up_to_alignment(int64_t rows) {
  return (rows + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
}

template <class I>
constexpr I padding_index() {
  return static_cast<I>(kPadding);
}

// Checks the shared Csr invariants; with require_canonical also strictly increasing columns.
// canonicalize() needs the structure checks without the ordering check.
template <class T, class I>
void check_csr(const Csr<T, I>& A, bool require_canonical);

}  // namespace spx::detail
