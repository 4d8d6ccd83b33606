// The host passes over a matrix (statistics, fingerprint, validation, column spans, casts) run on
// one thread below kMinParallelItems rows or nonzeros: a parallel region costs ~10 us, what one core
// needs for about that many rows of such a pass.
#pragma once

#include <cstdint>

namespace spx::detail {

inline constexpr int64_t kMinParallelItems = int64_t{1} << 16;

}  // namespace spx::detail
