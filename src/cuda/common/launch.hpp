// Launch-size rules shared by the kernels. (No fmt here: this header is included by .cu files,
// and nvcc rejects fmt's compile-time format checks; messages are built in launch.cpp.)
#pragma once

#include <algorithm>
#include <cstdint>

#include "spx/cuda/context.hpp"

namespace spx::cuda {

namespace detail {
[[noreturn]] void throw_grid_too_large(int64_t items, int block);
}

// Blocks of `block` threads that cover `items` work items, one item per thread (at least 1, so
// the launch is valid; callers skip the launch when items == 0).
inline unsigned grid_for(int64_t items, int block) {
  const int64_t blocks = std::max<int64_t>(1, (items + block - 1) / block);
  if (blocks > int64_t{0x7fffffff}) detail::throw_grid_too_large(items, block);
  return static_cast<unsigned>(blocks);
}

// For grid-stride kernels: enough blocks to fill every SM `blocks_per_sm` times (the occupancy the
// kernel was written for), but never more than the items need — extra blocks would only exit.
inline unsigned grid_for_resident(const Context& ctx, int64_t items, int block, int blocks_per_sm) {
  const int64_t resident = int64_t{ctx.props().sm_count} * std::max(1, blocks_per_sm);
  return static_cast<unsigned>(std::min<int64_t>(grid_for(items, block), std::max<int64_t>(1, resident)));
}

}  // namespace spx::cuda
