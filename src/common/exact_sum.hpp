// The exact sum of doubles, as a fixed-point integer: adding is associative and commutative, so
// the same terms give the same bits whatever their order, however they are split over threads or
// MPI ranks, and whatever order MPI's all-reduce combines the ranks in. The distributed CG reduces
// its inner products with it, which is what makes its iterates independent of the rank count.
//
// A finite double is M·2^q with |M| < 2^53 and q in [-1074, 971]: shifted by kBias it is an integer
// of at most 2098 bits, held as 32-bit digits in int64 limbs (limb i weighs 2^(32i − kBias)). A
// term adds less than 2^33 to each of the three limbs it touches, so carries are propagated every
// kDepositsPerNormalize terms, long before a limb could overflow. Inf and NaN terms are counted
// apart (Inf − Inf is NaN, as a double sum would give). Every field is an int64, so a rank's sums
// travel as one MPI_INT64_T MPI_SUM all-reduce (ExactSum::kWords words each).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace spx::detail {

class ExactSum {
 public:
  static constexpr int kBias = 1074;
  static constexpr int kLimbs = 68;  // 2098 bits plus 63 of headroom for the carries of 2^63 terms
  static constexpr int kWords = kLimbs + 3;
  static constexpr int64_t kDepositsPerNormalize = int64_t{1} << 28;

  void add(double v) {
    // The fields of the double itself (frexp and ldexp are library calls, several times slower).
    const auto bits = std::bit_cast<uint64_t>(v);
    const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
    uint64_t a = bits & ((uint64_t{1} << 52) - 1);
    if (biased == 0x7ff) {
      w_[a != 0 ? kNan : (bits >> 63) ? kNegInf : kPosInf] += 1;
      return;
    }
    if (biased != 0) a |= uint64_t{1} << 52;  // normal: the implicit bit; subnormal: exponent as for 1
    if (a == 0) return;
    const int p = std::max(biased, 1) - 1075 + kBias;  // v = ±a·2^(p − kBias), p >= 0
    const int i = p / 32, s = p % 32;
    const uint64_t lo = (a & kMask) << s, hi = (a >> 32) << s;
    const auto d0 = static_cast<int64_t>(lo & kMask);
    const auto d1 = static_cast<int64_t>((lo >> 32) + (hi & kMask));
    const auto d2 = static_cast<int64_t>(hi >> 32);
    const int64_t sign = (bits >> 63) ? -1 : 1;
    w_[static_cast<std::size_t>(i)] += sign * d0;
    w_[static_cast<std::size_t>(i) + 1] += sign * d1;
    w_[static_cast<std::size_t>(i) + 2] += sign * d2;
    if (++deposits_ == kDepositsPerNormalize) normalize();
  }

  // this += other (exact).
  void add(ExactSum other) {
    normalize();
    other.normalize();
    for (std::size_t i = 0; i < w_.size(); ++i) w_[i] += other.w_[i];
  }

  // Carries propagated: limbs 0 .. kLimbs−2 in [0, 2^32), the top limb signed. The words are then
  // a function of the exact value alone.
  void normalize() {
    for (std::size_t i = 0; i + 1 < kLimbs; ++i) {
      const int64_t carry = w_[i] >> 32;  // floor division (C++20 arithmetic shift)
      w_[i] -= carry * (int64_t{1} << 32);
      w_[i + 1] += carry;
    }
    deposits_ = 0;
  }

  // The words an all-reduce adds (normalize() first, so the sum of 2^31 ranks' words cannot
  // overflow a limb).
  int64_t* words() { return w_.data(); }

  // The sum rounded to a double (within an ulp; deterministic: the same exact sum, the same bits).
  double value() const {
    const int64_t nan = w_[kNan], pos = w_[kPosInf], neg = w_[kNegInf];
    if (nan > 0 || (pos > 0 && neg > 0)) return std::numeric_limits<double>::quiet_NaN();
    if (pos > 0) return std::numeric_limits<double>::infinity();
    if (neg > 0) return -std::numeric_limits<double>::infinity();
    ExactSum s = *this;
    s.normalize();
    const bool negative = s.w_[kLimbs - 1] < 0;
    if (negative) {
      for (int i = 0; i < kLimbs; ++i) s.w_[static_cast<std::size_t>(i)] = -s.w_[static_cast<std::size_t>(i)];
      s.normalize();
    }
    int top = kLimbs - 1;
    while (top > 0 && s.w_[static_cast<std::size_t>(top)] == 0) --top;
    // The three highest limbs carry at least 65 significant bits: enough for a double.
    double v = 0;
    for (int i = top; i >= 0 && i > top - 3; --i)
      v += std::ldexp(static_cast<double>(s.w_[static_cast<std::size_t>(i)]), 32 * i - kBias);
    return negative ? -v : v;
  }

 private:
  static constexpr uint64_t kMask = 0xffffffffu;
  static constexpr std::size_t kPosInf = kLimbs, kNegInf = kLimbs + 1, kNan = kLimbs + 2;
  // kLimbs limbs, then the counts of +Inf, −Inf and NaN terms.
  std::array<int64_t, kWords> w_{};
  int64_t deposits_ = 0;
};

}  // namespace spx::detail
