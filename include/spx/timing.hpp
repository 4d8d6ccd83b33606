// The statistics of a repeated timing, one vocabulary for the library's event timing
// (spx/cuda/timing.hpp) and the benchmark engine (bench/timing.hpp, the report's ms_* fields).
#pragma once

#include <vector>

namespace spx {

/// Median, min and max of the timed runs, in milliseconds.
struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int runs = 0;
};

/// The statistics of `samples_ms`: the median (mean of the two middle samples for an even count),
/// min and max; all zero for no samples.
Timing summarize(std::vector<double> samples_ms);

}  // namespace spx
