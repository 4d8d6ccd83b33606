// Builds without CUDA kernels register none. CMake compiles this file instead of
// bench/cuda_kernels.cu when SPX_CUDA is off (or the .cu file does not exist yet); the registry
// then explains "--backend cuda" failures through backend_unavailable_reason().
#include "bench/registry.hpp"

namespace spx::bench {

void register_cuda_kernels(Registry& /*registry*/) {}

}  // namespace spx::bench
