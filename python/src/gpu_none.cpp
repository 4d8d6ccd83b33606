// The extension built without CUDA: the package imports and runs on the CPU; every GPU call says why
// it cannot run.
#include "gpu.hpp"
#include "spx/error.hpp"

namespace spx::python {

namespace {
[[noreturn]] void no_cuda() {
  throw Error(
      "spx was built without CUDA (nvcc was not found when the package was built): GPU calls are not "
      "available; reinstall on a machine with the CUDA toolkit (pip install .) to use them");
}
}  // namespace

std::shared_ptr<GpuMatrix> to_gpu(const HostCsr&, int, plan::IndexWidth) { no_cuda(); }
bool built_with_cuda() { return false; }
int gpu_count() { return 0; }
std::string gpu_unavailable() { return "spx was built without CUDA"; }
int pointer_device(uintptr_t) { no_cuda(); }
int current_device() { return -1; }
void synchronize(int, uintptr_t) { no_cuda(); }

}  // namespace spx::python
