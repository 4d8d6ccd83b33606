#include "cuda/convert/convert_checks.hpp"

#include <fmt/format.h>

#include <limits>

#include "cuda/common/check.hpp"
#include "cuda/common/format_bytes.hpp"
#include "matrix/index_checks.hpp"
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

}  // namespace spx::cuda::detail
