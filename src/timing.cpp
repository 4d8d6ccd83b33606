#include "spx/timing.hpp"

#include <algorithm>
#include <cstddef>

namespace spx {

Timing summarize(std::vector<double> samples_ms) {
  Timing t;
  t.runs = static_cast<int>(samples_ms.size());
  if (samples_ms.empty()) return t;
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  t.median_ms = n % 2 == 1 ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  t.min_ms = samples_ms.front();
  t.max_ms = samples_ms.back();
  return t;
}

}  // namespace spx
