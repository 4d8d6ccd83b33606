// Status checks: every CUDA, cuSPARSE and cuBLAS call spx makes goes through one of these, so a
// failure becomes an spx::Error naming the call and where it was made, e.g.
//   "cudaMemcpyAsync failed at csr_scalar.cu:42: an illegal memory access was encountered
//    (cudaErrorIllegalAddress)".
// After a kernel launch, SPX_CHECK_LAUNCH catches launch-configuration errors at once; with
// SPX_CUDA_SYNC=1 in the environment it also synchronizes, so an asynchronous fault is reported
// at the kernel that caused it (slow; for debugging).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

namespace spx::cuda::detail {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);
void check_last_launch(const char* kernel, cudaStream_t stream, const char* file, int line);

}  // namespace spx::cuda::detail

#define SPX_CUDA_CHECK(call)                                                         \
  do {                                                                               \
    const cudaError_t spx_status_ = (call);                                          \
    if (spx_status_ != cudaSuccess)                                                  \
      ::spx::cuda::detail::throw_cuda_error(spx_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define SPX_CUSPARSE_CHECK(call)                                                         \
  do {                                                                                   \
    const cusparseStatus_t spx_status_ = (call);                                         \
    if (spx_status_ != CUSPARSE_STATUS_SUCCESS)                                          \
      ::spx::cuda::detail::throw_cusparse_error(spx_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define SPX_CUBLAS_CHECK(call)                                                         \
  do {                                                                                 \
    const cublasStatus_t spx_status_ = (call);                                         \
    if (spx_status_ != CUBLAS_STATUS_SUCCESS)                                          \
      ::spx::cuda::detail::throw_cublas_error(spx_status_, #call, __FILE__, __LINE__); \
  } while (0)

// Right after kernel<<<...>>>(...): `kernel` names it in the message.
#define SPX_CHECK_LAUNCH(kernel, stream) \
  ::spx::cuda::detail::check_last_launch(kernel, stream, __FILE__, __LINE__)
