// The median of a sample (the upper middle value for an even count; 0 for none): how every timing
// in spx is summarised across runs and rounds.
#pragma once

#include <algorithm>
#include <vector>

namespace spx {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace spx
