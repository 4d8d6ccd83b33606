// log / exp / pow built only from +, -, *, / and the exact frexp/ldexp, for the few generator
// decisions that need them (power-law row lengths). libm's log and pow may differ in the last
// bit between platforms, and a last-bit difference can move a floor() and change a row length;
// IEEE basic operations are correctly rounded everywhere, so these are bitwise reproducible
// (spx builds host code as ISO C++, where GCC does not contract a*b+c into an FMA).
#pragma once

#include <cmath>
#include <limits>

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace spx::gen::detail {

inline constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2, high part (exact in k * hi)
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;  // ln 2 - kLn2Hi
inline constexpr double kLn2 = 0.69314718055994530942;

// Natural logarithm of a finite x > 0 (about 1 ulp).
inline double det_log(double x) {
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // x = m * 2^exponent, m in [0.5, 1)
  if (m < 0.70710678118654752440) {     // move m into [sqrt(1/2), sqrt(2))
    m *= 2;
    exponent -= 1;
  }
  // log m = 2 atanh(t), t = (m - 1) / (m + 1), |t| <= 0.1716: the odd series converges fast.
  const double t = (m - 1) / (m + 1);
  const double t2 = t * t;
  double series = 1.0 / 25;
  for (int k = 23; k >= 1; k -= 2) series = series * t2 + 1.0 / k;
  return static_cast<double>(exponent) * kLn2Hi + (static_cast<double>(exponent) * kLn2Lo + 2 * t * series);
}

// e^x (about 1 ulp); overflows to +inf, underflows to 0, NaN stays NaN.
inline double det_exp(double x) {
  if (std::isnan(x)) return x;  // the exponent below would convert NaN to int
  if (x > 709.78) return std::numeric_limits<double>::infinity();
  if (x < -745.2) return 0.0;
  const double k = std::floor(x / kLn2 + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;  // |r| <= ln2 / 2
  double series = 1.0;                             // Taylor series to r^17 / 17!
  for (int n = 17; n >= 1; --n) series = 1.0 + series * r / n;
  return std::ldexp(series, static_cast<int>(k));
}

// base^power for base > 0.
inline double det_pow(double base, double power) { return det_exp(power * det_log(base)); }

}  // namespace spx::gen::detail
