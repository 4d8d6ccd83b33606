#include "cuda/common/device_memory.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "cuda/common/check.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {

void require_device_memory(std::size_t needed, std::string_view what) {
  std::size_t free_bytes = 0, total = 0;
  SPX_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  if (needed > free_bytes)
    throw Error(fmt::format("{}: needs {:.1f} MiB of device memory, {:.1f} MiB free of {:.1f} MiB", what,
                            static_cast<double>(needed) / 1048576.0,
                            static_cast<double>(free_bytes) / 1048576.0,
                            static_cast<double>(total) / 1048576.0));
}

}  // namespace spx::cuda::detail
