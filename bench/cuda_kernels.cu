// The CUDA part of the kernel registry: the "cuda" backend (device name, SMs, L2, measured copy
// bandwidth) and every CUDA kernel `spx bench` runs — our CSR-scalar SpMV and the cuSPARSE and
// cuBLAS baselines. CMake compiles this file (and the cuda_*.cpp files it calls) when SPX_CUDA is
// on, cuda_kernels_none.cpp otherwise.
//
// The entries themselves live in .cpp files (cuda_support.cpp, cuda_spmv.cpp, cuda_spmm.cpp,
// cuda_gemm.cpp): they are host code that only calls the spx::cuda layer, so they build with the
// project's full host warnings (-Werror) and may use fmt, which nvcc-compiled files avoid.
#include "bench/cuda_support.hpp"
#include "bench/registry.hpp"

namespace spx::bench {

void register_cuda_spmv_csr(Registry& registry);      // cuda_spmv_csr.cpp
void register_cuda_spmv_formats(Registry& registry);  // cuda_spmv_formats.cpp
void register_cuda_spmv_bsr(Registry& registry);      // cuda_spmv_bsr.cpp
void register_cuda_gemm_spx(Registry& registry);      // cuda_gemm_spx.cpp
void register_cuda_spmv_segsum(Registry& registry);   // cuda_spmv_segsum.cpp
void register_cuda_spmm_spx(Registry& registry);      // cuda_spmm_spx.cpp
void register_cuda_spmm_host(Registry& registry);     // cuda_spmm_host.cpp
void register_cuda_spx_auto(Registry& registry);      // cuda_spx_auto.cpp

void register_cuda_kernels(Registry& registry) {
  register_cuda_backend(registry);
  register_cuda_spmv(registry);
  register_cuda_spmv_csr(registry);      // cuda_spmv_csr.cpp
  register_cuda_spmv_formats(registry);  // cuda_spmv_formats.cpp
  register_cuda_spmv_bsr(registry);      // cuda_spmv_bsr.cpp
  register_cuda_spmm(registry);
  register_cuda_gemm(registry);
  register_cuda_gemm_spx(registry);     // cuda_gemm_spx.cpp
  register_cuda_spmv_segsum(registry);  // cuda_spmv_segsum.cpp
  register_cuda_spmm_spx(registry);     // cuda_spmm_spx.cpp
  register_cuda_spmm_host(registry);    // cuda_spmm_host.cpp
  register_cuda_spx_auto(registry);     // cuda_spx_auto.cpp: the front door
}

}  // namespace spx::bench
