#include "cuda/convert/convert_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "cuda/common/check.hpp"
#include "cuda/common/format_bytes.hpp"
#include "matrix/index_checks.hpp"
#include "spx/column_spans.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

double padding_ratio(int64_t slots, int64_t nnz) {
  return nnz > 0 ? static_cast<double>(slots) / static_cast<double>(nnz)
                 : std::numeric_limits<double>::infinity();
}

}  // namespace

int64_t padded_rows(const char* who, int64_t rows, int64_t index_max) {
  const int64_t padded = (rows + 31) / 32 * 32;
  if (padded > index_max)
    throw Error(
        fmt::format("{}: {} rows rounded up to a multiple of 32 = {} do not fit in the index type (max {}); "
                    "{}",
                    who, rows, padded, index_max, spx::detail::kWideIndexHint));
  return padded;
}

int64_t checked_device_slab(const char* who, int64_t padded_rows, int64_t width, int64_t nnz,
                            std::size_t max_slots, int64_t index_max, std::size_t bytes_per_slot,
                            std::size_t extra_bytes) {
  int64_t slots = 0;
  if (__builtin_mul_overflow(padded_rows, width, &slots))
    throw Error(fmt::format("{}: {} rows x width {} overflows 64-bit arithmetic", who, padded_rows, width));
  const double ratio = padding_ratio(slots, nnz);
  if (static_cast<uint64_t>(slots) > max_slots)
    throw Error(
        fmt::format("{}: padding to width {} needs {} rows x {} = {} slots, more than max_slots = {} "
                    "(padding ratio {:.1f} "
                    "slots per nonzero); use spx::cuda::to_hyb for matrices with a few long rows",
                    who, width, padded_rows, width, slots, max_slots, ratio));
  if (slots > index_max)
    throw Error(fmt::format(
        "{}: {} rows x width {} = {} slots do not fit in the index type (max {}; padding ratio {:.1f} slots "
        "per nonzero); use spx::cuda::to_hyb, or {}",
        who, padded_rows, width, slots, index_max, ratio, spx::detail::kWideIndexHint));
  const std::size_t bytes = static_cast<std::size_t>(slots) * bytes_per_slot + extra_bytes;
  std::size_t free_bytes = 0, total_bytes = 0;
  SPX_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes > free_bytes)
    throw Error(
        fmt::format("{}: padding to width {} needs {} slots ({}), more than the {} free on the device "
                    "(padding ratio {:.1f} "
                    "slots per nonzero); use spx::cuda::to_hyb for matrices with a few long rows",
                    who, width, slots, format_bytes(bytes), format_bytes(free_bytes), ratio));
  return slots;
}

void throw_row_longer_than_width(const char* who, int64_t row, int64_t length, int64_t width) {
  throw Error(fmt::format(
      "{}: row {} has {} entries, more than the requested width {}; use spx::cuda::to_hyb to put the entries "
      "past the width in a COO part",
      who, row, length, width));
}

void throw_row_span_too_wide(const char* who, int64_t row, int64_t first_col, int64_t last_col) {
  throw Error(
      fmt::format("{}: row {} spans columns {}..{} ({} > {}): not representable with 16-bit column offsets",
                  who, row, first_col, last_col, last_col - first_col, kC16MaxSpan));
}

void check_dict_table(const char* who, std::size_t size, int max_size) {
  if (size == 0 || size > static_cast<std::size_t>(max_size))
    throw Error(fmt::format("{}: the table holds {} values (1..{}); build it with spx::sell_c16_dict_table",
                            who, size, max_size));
}

void throw_dict_table_repeats(const char* who, int first, int second) {
  throw Error(fmt::format("{}: table entries {} and {} are the same value", who, std::min(first, second),
                          std::max(first, second)));
}

void throw_values_not_in_table(const char* who, unsigned slots, std::size_t table_size) {
  throw Error(
      fmt::format("{}: {} slots hold values that are not in the table of {} values; build the table "
                  "from the matrix's values with spx::sell_c16_dict_table",
                  who, slots, table_size));
}

}  // namespace spx::cuda::detail
