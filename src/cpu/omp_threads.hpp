// Thread queries that also compile without OpenMP (then everything runs on one thread).
// Internal to src/cpu.
#pragma once

#ifdef _OPENMP
#include <omp.h>
#endif

namespace spx::cpu_detail {

inline int thread_id() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// Threads in the current parallel region (OpenMP may give fewer than asked for).
inline int thread_count() {
#ifdef _OPENMP
  return omp_get_num_threads();
#else
  return 1;
#endif
}

}  // namespace spx::cpu_detail
