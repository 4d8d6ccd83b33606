// The threads of spx's CPU kernels (spx::omp, spx/cpu.hpp): the one entry that sets them, bounded.
#pragma once

namespace spx::omp {

/// The most threads set_threads() takes: kThreadsPerHardwareThread times the hardware threads.
/// More only oversubscribes the cores, and tens of thousands crash libgomp while it starts them.
inline constexpr int kThreadsPerHardwareThread = 8;
int max_settable_threads();

/// Sets the threads of the CPU kernels (omp_set_num_threads); spx::Error, naming the bound, outside
/// 1..max_settable_threads().
void set_threads(int threads);

}  // namespace spx::omp
