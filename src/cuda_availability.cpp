// device_count() for builds without CUDA; the CUDA build defines it in cuda/common/device.cu.
#ifndef SPX_HAVE_CUDA
#include "spx/cuda/device.hpp"

namespace spx::cuda {
int device_count() { return 0; }
std::string gpu_unavailable_reason() { return "spx was built without CUDA (-DSPX_CUDA=OFF)"; }
}  // namespace spx::cuda
#endif
