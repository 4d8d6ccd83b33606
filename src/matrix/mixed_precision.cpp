// spx/mixed_precision.hpp: the values' float rounding and the error bound of the mixed product.
#include "spx/mixed_precision.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/host_memory.hpp"
#include "spx/error.hpp"

namespace spx {

std::vector<float> round_values_to_float(std::span<const double> values) {
  detail::require_host_memory(static_cast<double>(values.size()) * sizeof(float),
                              "the float copy of the values");
  std::vector<float> out(values.size());
  const double most = static_cast<double>(std::numeric_limits<float>::max());
  for (std::size_t k = 0; k < values.size(); ++k) {
    const double a = values[k];
    if (std::isfinite(a) && std::abs(a) > most)
      throw Error(
          fmt::format("mixed precision: value {} (nonzero {}) is beyond float's range (|a| > {:g}); "
                      "keep this matrix in double",
                      a, k, most));
    out[k] = static_cast<float>(a);
  }
  return out;
}

double mixed_precision_row_bound(double abs_ax, double abs_x_sum, int64_t n) {
  const double u = std::ldexp(1.0, -53);
  const double nu = static_cast<double>(n) * u;
  const double gamma = nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
  // The float values' own magnitudes are at most (1 + 2^-24) |a| (+ 2^-150) each.
  const double rounding = std::ldexp(1.0, -24) * abs_ax + std::ldexp(1.0, -150) * abs_x_sum;
  return rounding + gamma * (abs_ax + rounding);
}

}  // namespace spx
