#include "cuda/common/launch.hpp"

#include <fmt/format.h>

#include "spx/error.hpp"

namespace spx::cuda::detail {

void throw_grid_too_large(int64_t items, int block) {
  throw Error(fmt::format("{} work items need {} blocks of {} threads, over CUDA's 2^31-1 grid limit", items,
                          (items + block - 1) / block, block));
}

}  // namespace spx::cuda::detail
