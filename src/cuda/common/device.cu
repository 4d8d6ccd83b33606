#include <cuda_runtime.h>

#include <string>

#include "spx/cuda/device.hpp"

namespace spx::cuda {

namespace {

// "13.0" from CUDA's 1000 * major + 10 * minor encoding.
std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

// Without an NVIDIA driver (libcuda absent: a CUDA toolkit on a machine without a GPU) the runtime
// answers cudaErrorInsufficientDriver, whose text ("driver version is insufficient") sends people
// after a driver upgrade. cudaDriverGetVersion tells the cases apart: it gives 0 when no driver is
// installed, so only a real driver older than the runtime is reported as too old.
std::string gpu_unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess) return n == 0 ? "no CUDA device found" : std::string();
  cudaGetLastError();
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (driver == 0) return "no CUDA device (no NVIDIA driver found)";
  if (e == cudaErrorNoDevice) return "no CUDA device found";
  if (e == cudaErrorInsufficientDriver && cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    return "NVIDIA driver too old: driver supports CUDA " + cuda_version(driver) +
           ", spx's runtime is CUDA " + cuda_version(runtime);
  return std::string("no usable CUDA device: ") + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
}

}  // namespace spx::cuda
