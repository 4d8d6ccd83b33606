// NCCL status checks and type mapping for the distributed layer (spx/cuda/dist.hpp).
#pragma once

#include <nccl.h>

#include <type_traits>

namespace spx::cuda::dist::detail {

[[noreturn]] void throw_nccl_error(ncclResult_t status, const char* call, const char* file, int line);

template <class T>
constexpr ncclDataType_t nccl_type() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
  return std::is_same_v<T, float> ? ncclFloat32 : ncclFloat64;
}

}  // namespace spx::cuda::dist::detail

// Every NCCL call goes through this: a failure becomes an spx::Error naming the call, where it was
// made, NCCL's message and its last error text ("unhandled cuda error ...").
#define SPX_NCCL_CHECK(call)                                                                    \
  do {                                                                                          \
    const ncclResult_t spx_nccl_status_ = (call);                                               \
    if (spx_nccl_status_ != ncclSuccess && spx_nccl_status_ != ncclInProgress)                  \
      ::spx::cuda::dist::detail::throw_nccl_error(spx_nccl_status_, #call, __FILE__, __LINE__); \
  } while (0)
