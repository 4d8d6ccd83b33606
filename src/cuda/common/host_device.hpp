// SPX_HOST_DEVICE: __host__ __device__ under nvcc, nothing in plain C++ — for bookkeeping functions
// that the kernels call and the CPU tests check (coo_chunks.hpp, segsum_partition.hpp).
#pragma once

#if defined(__CUDACC__)
#define SPX_HOST_DEVICE __host__ __device__
#else
#define SPX_HOST_DEVICE
#endif
