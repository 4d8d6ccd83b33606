// Host wall time since a steady_clock time point: the front door's planning phases, the CLI's and
// the benchmark's setup and load times.
#pragma once

#include <chrono>

namespace spx::detail {

using WallClock = std::chrono::steady_clock;

inline double seconds_since(WallClock::time_point t0) {
  return std::chrono::duration<double>(WallClock::now() - t0).count();
}

inline double us_since(WallClock::time_point t0) {
  return std::chrono::duration<double, std::micro>(WallClock::now() - t0).count();
}

}  // namespace spx::detail
