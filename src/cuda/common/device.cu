#include <cuda_runtime.h>

#include <string>

#include "spx/cuda/device.hpp"

namespace spx::cuda {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

std::string gpu_unavailable_reason() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
  }
  if (n == 0) return "no CUDA device found";
  return {};
}

}  // namespace spx::cuda
