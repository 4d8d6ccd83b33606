// Size guards of the GPU conversions (messages built here, in a .cpp: .cu files avoid fmt). They
// mirror the host conversions' guards (src/matrix/convert_ell.cpp) and add the device's free memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace spx::cuda::detail {

// Rows rounded up to a multiple of 32 (Ell's ld, EllR's rows_padded); spx::Error when that does not
// fit in an index type whose largest value is index_max.
int64_t padded_rows(const char* who, int64_t rows, int64_t index_max);

// Slots of a padded_rows × width slab, or spx::Error naming the padding ratio (slots per nonzero)
// when they exceed max_slots, do not fit in the index type, or need more than the device's free
// memory at bytes_per_slot each plus extra_bytes.
int64_t checked_device_slab(const char* who, int64_t padded_rows, int64_t width, int64_t nnz,
                            std::size_t max_slots, int64_t index_max, std::size_t bytes_per_slot,
                            std::size_t extra_bytes);

// SELL-C16's refusals (to_sell_c16.cu), worded as the host conversions word them.
[[noreturn]] void throw_row_span_too_wide(const char* who, int64_t row, int64_t first_col, int64_t last_col);
void check_dict_table(const char* who, std::size_t size, int max_size);
[[noreturn]] void throw_dict_table_repeats(const char* who, int first, int second);
[[noreturn]] void throw_values_not_in_table(const char* who, unsigned slots, std::size_t table_size);

[[noreturn]] void throw_row_longer_than_width(const char* who, int64_t row, int64_t length, int64_t width);

}  // namespace spx::cuda::detail
