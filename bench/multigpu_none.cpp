// Builds without CUDA have no multi-GPU benchmark.
#include "bench/multigpu.hpp"
#include "spx/error.hpp"

namespace spx::bench {

nlohmann::ordered_json run_multigpu(const MultiGpuOptions&, std::ostream&) {
  throw Error("--gpus: this spx was built without CUDA");
}

}  // namespace spx::bench
