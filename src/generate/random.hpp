// spx's own random numbers for the generators. std::*_distribution is implementation-defined
// (libstdc++, libc++ and MSVC give different streams), so every draw here is integer arithmetic on
// splitmix64 / xoshiro256** output, and every real value is made from integers by exact
// operations: the same seed gives bitwise the same matrix on every platform.
//
// Parallel generators never share a stream between threads: each row (or chunk of edges) gets its
// own stream derived from (seed, purpose, index), so the result does not depend on how many
// threads run or in which order.
#pragma once

#include <cstdint>

#include "common/splitmix64.hpp"

namespace spx::gen::detail {

// splitmix64's output function, a bijective 64-bit mixer, and its increment (src/common).
using spx::detail::splitmix64_mix;
inline constexpr uint64_t kGolden = spx::detail::kSplitmix64Gamma;

// Salts keep the streams of different purposes (row lengths, columns, values, ...) independent
// even when they are keyed by the same seed and index.
enum class Salt : uint64_t {
  Values = 1,
  Pattern = 2,
  Rows = 3,
  RowPlacement = 4,
  Edges = 5,
};

// Key for one purpose of one generator call.
constexpr uint64_t stream_key(uint64_t seed, Salt salt) {
  return splitmix64_mix(splitmix64_mix(seed + kGolden) ^
                        (static_cast<uint64_t>(salt) * 0xd1b54a32d192ed03ULL));
}

// Stateless hash of an index, and of an (i, j) pair: pattern and value decisions that must be
// the same whichever row computes them (symmetric patterns, symmetric values).
constexpr uint64_t hash_index(uint64_t key, uint64_t i) { return splitmix64_mix(key + (i + 1) * kGolden); }
constexpr uint64_t hash_pair(uint64_t key, uint64_t i, uint64_t j) {
  return splitmix64_mix(hash_index(key, i) + (j + 1) * 0xd1b54a32d192ed03ULL);
}

// Multiply-high of two 64-bit numbers, portable (no __int128 needed).
constexpr uint64_t mul_high(uint64_t a, uint64_t b) {
  const uint64_t a_lo = a & 0xffffffffULL, a_hi = a >> 32;
  const uint64_t b_lo = b & 0xffffffffULL, b_hi = b >> 32;
  const uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  const uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffULL) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (cross >> 32);
}

// xoshiro256** (Blackman, Vigna 2018), seeded through splitmix64 as its authors recommend.
class Rng {
 public:
  // Stream `index` of the purpose `key` (see stream_key).
  constexpr Rng(uint64_t key, uint64_t index) {
    uint64_t x = key ^ spx::detail::splitmix64(index);
    for (auto& word : s_) word = spx::detail::splitmix64_next(x);
  }

  constexpr uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n >= 1, without modulo bias (Lemire 2019, multiply and reject).
  constexpr uint64_t below(uint64_t n) {
    uint64_t x = next();
    uint64_t low = x * n;
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        x = next();
        low = x * n;
      }
    }
    return mul_high(x, n);
  }

  // Uniform double in [0, 1) with 53 random bits: an exact conversion, the same everywhere.
  constexpr double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4] = {};
};

// A probability as a 64-bit threshold: an event happens when a uniform 64-bit draw is below it.
// p * 2^64 is exact (a power-of-two scaling), so the threshold is the same on every platform.
struct Chance {
  uint64_t threshold = 0;
  bool always = false;
  explicit Chance(double p)
      : threshold(p >= 1.0 ? 0 : static_cast<uint64_t>(p * 0x1.0p64)), always(p >= 1.0) {}
  bool operator()(uint64_t draw) const { return always || draw < threshold; }
};

// Off-diagonal values: magnitude uniform in [0.1, 1], random sign (never 0, never tiny, so no
// cancellation surprises in tests). Built from integers: q * 2^-53 is exact.
constexpr double value_from_bits(uint64_t bits) {
  constexpr uint64_t kLow = 900719925474100ULL;  // ceil(0.1 * 2^53)
  constexpr uint64_t kSpan = (1ULL << 53) - kLow + 1;
  const uint64_t q = kLow + mul_high(bits << 1, kSpan);  // bits 1..63 choose the magnitude
  const double magnitude = static_cast<double>(q) * 0x1.0p-53;
  return (bits >> 63) ? -magnitude : magnitude;  // the top bit chooses the sign
}

// Value of entry (i, j), the same for (j, i): symmetric matrices get symmetric values.
constexpr double symmetric_value(uint64_t key, uint64_t i, uint64_t j) {
  return i < j ? value_from_bits(hash_pair(key, i, j)) : value_from_bits(hash_pair(key, j, i));
}

// Value of entry (i, j), independent of (j, i).
constexpr double entry_value(uint64_t key, uint64_t i, uint64_t j) {
  return value_from_bits(hash_pair(key, i, j));
}

}  // namespace spx::gen::detail
