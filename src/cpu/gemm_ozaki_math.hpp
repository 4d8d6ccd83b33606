// The arithmetic of the emulated DGEMM (Ozaki scheme II: Chinese-remainder moduli on INT8 products),
// shared by the host reference (gemm_ozaki_host.cpp) and the CUDA kernels (src/cuda/gemm/ozaki_*.cu)
// so that the CPU tests check the very code the GPU runs. docs/dgemm.md, "Emulated DGEMM", derives
// the error bound these constants serve.
//
// Scaling: row i of op(A) is scaled by 2^(P-1-e_i), e_i = ilogb(max_h |a_ih|), and rounded to an
// integer a'_ih with |a'_ih| <= 2^P (P <= kMaxBits, so a' fits int64); columns of op(B) likewise.
// Residues: a' mod m_l in the symmetric range of m_l <= 256, so every residue is an int8 and one
// INT8 product of k <= kChunkK terms is exact in int32. Reconstruction: the exact integer
// C'_ij mod M (M = prod m_l > 2 max |C'_ij|) by the Chinese remainder theorem in 192-bit integers,
// rounded once to double and unscaled by 2^(2 - 2P + e_i + g_j).
#pragma once

#include <cmath>
#include <cstdint>

#include "cuda/common/host_device.hpp"

namespace spx::ozaki {

// Pairwise coprime moduli, each <= 256, greedily the largest (tests/cpu/gemm_ozaki_test.cpp checks
// coprimality and the bits): the first 12 give log2(M) = 94.8 bits, 14 give 110.2, 16 give 125.4,
// 20 give 155.4.
inline constexpr int kMaxModuli = 20;
inline constexpr int kModuli[kMaxModuli] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                                            223, 217, 211, 199, 197, 193, 191, 181, 179, 173};
// k per exact INT8 product: |r_a r_b| <= 128 * 128 = 2^14, so 2^16 terms stay below 2^30 < 2^31
// (the bound product's 127 * 127 too). Longer k is cut into chunks whose residues are summed mod m.
inline constexpr int64_t kChunkK = 65536;
// The bound product sums the first kBoundK terms of k only (a lower bound still): 127^2 2^17 < 2^31,
// one exact int32 product.
inline constexpr int64_t kBoundK = 131072;
// Integer width P at most: |a'| <= 2^P must fit int64 and 2P + log2(k) + 1 bits the moduli.
inline constexpr int kMaxBits = 62;
// The bound product's integers: floor(|x| 2^(kBoundShift - e)) in [0, 127] (|x| 2^-e < 2).
inline constexpr int kBoundShift = 6;
// Exponent of an all-zero row or column (its scaled values are all 0; no error, no constraint).
inline constexpr int kZeroExp = -100000;
// Padding of k in the residue matrices: the IMMA kernels want leading dimensions that are
// multiples of 16 bytes; zeros past k add nothing to the products.
inline constexpr int64_t kPadK = 16;

// 192-bit unsigned integer, little-endian 32-bit limbs: sums of up to 20 residue × weight terms
// (< 20 · 256 · M < 2^170 for M < 2^156).
inline constexpr int kLimbs = 6;
struct Wide {
  uint32_t limb[kLimbs];
};

// The moduli of one emulation and their CRT weights w_l = (M / m_l) · ((M / m_l)^-1 mod m_l) < M,
// so that x = sum_l (x mod m_l) w_l mod M; 1 / m_l and 2^E mod m_l for the residues. Built on the
// host (crt_table), passed to kernels by value (2.1 KB).
struct CrtTable {
  int count = 0;
  int moduli[kMaxModuli] = {};
  double inverse[kMaxModuli] = {};    // 1 / m_l rounded (quotient estimates)
  uint8_t pow2[kMaxModuli][64] = {};  // 2^E mod m_l
  Wide weight[kMaxModuli] = {};
  Wide modulus = {};        // M
  double modulus_d = 0;     // M rounded to double (quotient estimates)
  double log2_modulus = 0;  // log2(M)
};

SPX_HOST_DEVICE inline Wide wide_zero() {
  Wide w;
  for (int i = 0; i < kLimbs; ++i) w.limb[i] = 0;
  return w;
}

// s += w · r (r < 2^32; no overflow for the sums above).
SPX_HOST_DEVICE inline void wide_add_mul(Wide& s, const Wide& w, uint32_t r) {
  uint64_t carry = 0;
  for (int i = 0; i < kLimbs; ++i) {
    const uint64_t t = static_cast<uint64_t>(w.limb[i]) * r + s.limb[i] + carry;
    s.limb[i] = static_cast<uint32_t>(t);
    carry = t >> 32;
  }
}

SPX_HOST_DEVICE inline bool wide_less(const Wide& a, const Wide& b) {
  for (int i = kLimbs - 1; i >= 0; --i)
    if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i];
  return false;
}

// a - b for a >= b.
SPX_HOST_DEVICE inline Wide wide_sub(const Wide& a, const Wide& b) {
  Wide d;
  int64_t borrow = 0;
  for (int i = 0; i < kLimbs; ++i) {
    const int64_t t = static_cast<int64_t>(a.limb[i]) - b.limb[i] - borrow;
    d.limb[i] = static_cast<uint32_t>(t);
    borrow = t < 0 ? 1 : 0;
  }
  return d;
}

// An estimate of the value (relative error a few ulps): the quotient step of the reduction.
SPX_HOST_DEVICE inline double wide_approx(const Wide& a) {
  double v = 0;
  for (int i = kLimbs - 1; i >= 0; --i) v = v * 4294967296.0 + a.limb[i];
  return v;
}

SPX_HOST_DEVICE inline int clz32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));
#else
  return x == 0 ? 32 : __builtin_clz(x);
#endif
}

// a · 2^scale rounded once to nearest double (the top 64 bits with a sticky bit, converted by the
// correctly rounding uint64 → double; 11 guard bits make the sticky bit exact). A result in the
// subnormal range rounds a second time (the underflow term every DGEMM bound carries).
SPX_HOST_DEVICE inline double wide_round(const Wide& a, int scale) {
  int top = kLimbs - 1;
  while (top >= 0 && a.limb[top] == 0) --top;
  if (top < 0) return 0.0;
  const int msb = 32 * top + 31 - clz32(a.limb[top]);
  const int shift = msb - 63;
  if (shift <= 0) {
    const uint64_t v = (static_cast<uint64_t>(a.limb[1]) << 32) | a.limb[0];
    return std::ldexp(static_cast<double>(v), scale);
  }
  const int w = shift / 32, off = shift % 32;
  const auto limb = [&](int i) -> uint64_t { return i < kLimbs ? a.limb[i] : 0u; };
  const uint64_t lo = limb(w) | (limb(w + 1) << 32);
  uint64_t top64 = off == 0 ? lo : (lo >> off) | (limb(w + 2) << (64 - off));
  bool sticky = off != 0 && (a.limb[w] & ((1u << off) - 1u)) != 0;
  for (int i = 0; i < w; ++i) sticky = sticky || a.limb[i] != 0;
  if (sticky) top64 |= 1u;
  return std::ldexp(static_cast<double>(top64), shift + scale);
}

// x mod m in [0, m) for an integer-valued double |x| < 2^53 (inv = 1 / m rounded): the quotient
// estimate is off by at most one, and the fma remainder is exact (a small integer). FP64 CUDA-core
// work instead of an integer division, on the GPU as on the host.
SPX_HOST_DEVICE inline int mod_exact(double x, int m, double inv) {
  const double q = std::floor(x * inv);
  double r = std::fma(-q, static_cast<double>(m), x);
  if (r < 0) r += m;
  if (r >= m) r -= m;
  return static_cast<int>(r);
}

// The scaled integer a' = round(x 2^(P-1-e)) of x in a row (column) of exponent e at width P, as
// mantissa · 2^shift with an integer |mantissa| < 2^53 (a' itself when below 2^52; past that the
// scaled double is already an integer, |a'| <= 2^P <= 2^62).
struct ScaledInteger {
  double mantissa;
  int shift;
};
SPX_HOST_DEVICE inline ScaledInteger scaled_integer(double x, int e, int bits) {
  if (e == kZeroExp) return {0.0, 0};
  const double y = std::ldexp(x, bits - 1 - e);
  if (std::fabs(y) < 0x1p52) return {std::nearbyint(y), 0};
  const int shift = std::ilogb(y) - 52;
  return {std::ldexp(y, -shift), shift};
}

// a' mod m_l in m_l's symmetric range (-m/2 .. (m-1)/2): an int8 for m <= 256.
SPX_HOST_DEVICE inline int symmetric_residue(const ScaledInteger& a, const CrtTable& t, int l) {
  const int m = t.moduli[l];
  int r = mod_exact(a.mantissa, m, t.inverse[l]);
  if (a.shift > 0) r = mod_exact(static_cast<double>(r * t.pow2[l][a.shift]), m, t.inverse[l]);
  return r >= (m + 1) / 2 ? r - m : r;
}

// The bound product's integer of x: floor(|x| 2^(kBoundShift - e)) in [0, 127]; 0 for a zero row.
SPX_HOST_DEVICE inline int bound_integer(double x, int e) {
  if (e == kZeroExp) return 0;
  return static_cast<int>(std::floor(std::ldexp(std::fabs(x), kBoundShift - e)));
}

// The integer C'_ij from its residues (product(l): the int32 product, or folded residue, of
// modulus l), reconstructed exactly and returned as C' · 2^scale rounded once to double.
template <class Product>
SPX_HOST_DEVICE inline double crt_reconstruct(const CrtTable& t, Product product, int scale) {
  Wide s = wide_zero();
  for (int l = 0; l < t.count; ++l) {
    const int r = mod_exact(static_cast<double>(product(l)), t.moduli[l], t.inverse[l]);
    wide_add_mul(s, t.weight[l], static_cast<uint32_t>(r));
  }
  // s mod M: the quotient (< 20 · 256) from doubles, off by at most one either way.
  const double q = std::floor(wide_approx(s) / t.modulus_d);
  Wide qm = wide_zero();
  wide_add_mul(qm, t.modulus, static_cast<uint32_t>(q > 0 ? q : 0));
  while (wide_less(s, qm)) qm = wide_sub(qm, t.modulus);
  Wide x = wide_sub(s, qm);
  while (!wide_less(x, t.modulus)) x = wide_sub(x, t.modulus);
  // The symmetric representative: |C'| < M / 2 by the choice of the moduli.
  Wide twice = wide_zero();
  wide_add_mul(twice, x, 2u);
  const bool negative = !wide_less(twice, t.modulus);
  const double v = wide_round(negative ? wide_sub(t.modulus, x) : x, scale);
  return negative ? -v : v;
}

// The largest q = 2^-P the elementwise bound allows for one element (docs/dgemm.md, "Emulated
// DGEMM"): k q^2 + sigma q <= Z, Z = (gamma_k - u) / (1 + u) · 2^(-2 kBoundShift) · bound, where
// sigma = sigma_A,i + sigma_B,j (row and column absolute sums relative to 2^e, 2^g) and `bound` the
// bound product's integer (2^(e+g-12) bound <= (|A||B|)_ij). Rounding margins make it a lower
// estimate of the true root. 0 where the bound is 0 (nothing certifies the element).
SPX_HOST_DEVICE inline double element_room(double k, double sigma, double bound) {
  constexpr double u = 0x1p-53;
  const double gamma = k * u / (1.0 - k * u);
  const double z = (gamma - u) / (1.0 + u) * std::ldexp(bound, -2 * kBoundShift) * (1.0 - 0x1p-40);
  if (!(z > 0)) return 0.0;
  const double s = sigma * (1.0 + 2.0 * k * u) + 0x1p-1000;
  return 2.0 * z / (s + std::sqrt(s * s + 4.0 * k * z)) * (1.0 - 0x1p-40);
}

}  // namespace spx::ozaki
