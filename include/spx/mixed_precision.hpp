// Opt-in mixed precision for double SpMV (plan::Options::mixed_precision, candidate csr_param_mixed):
// the matrix's values stored as float, x, y and every sum in double. Each value a is replaced by
// its float rounding fl(a), with |a - fl(a)| <= 2^-24 |a| where fl(a) is a normal float and
// <= 2^-150 below (subnormal or zero), so one row's result differs from the exact product by at most
//   sum_j (2^-24 |a_ij| + 2^-150) |x_j|  +  gamma_{n_i} sum_j |fl(a_ij) x_j|,   gamma_n = n u / (1 - n u),
// u = 2^-53, n_i the row's nonzeros: the rounding of the values plus double summation. Never chosen
// by default. docs/formats.md, "Mixed precision".
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace spx {

/// The float rounding of every value (round to nearest). Inf and NaN stay as they are; a finite
/// value beyond float's range (|a| > FLT_MAX) would become Inf, so it is an spx::Error naming the
/// position and the value.
std::vector<float> round_values_to_float(std::span<const double> values);

/// The bound above for one row: its |a_ij|, |x_j| pairs' sums. `abs_ax` = sum_j |a_ij| |x_j|,
/// `n` the row's nonzeros.
double mixed_precision_row_bound(double abs_ax, double abs_x_sum, int64_t n);

}  // namespace spx
