// The emulated DGEMM's choices and its host reference (gemm_ozaki_host.hpp).
#include "cpu/gemm_ozaki_host.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "spx/error.hpp"

namespace spx::ozaki {
namespace {

// x^-1 mod m for gcd(x, m) = 1 (extended Euclid).
int inverse_mod(int x, int m) {
  int r0 = m, r1 = x % m, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const int q = r0 / r1;
    int t = r0 - q * r1;
    r0 = r1;
    r1 = t;
    t = t0 - q * t1;
    t0 = t1;
    t1 = t;
  }
  if (r0 != 1) throw Error(fmt::format("ozaki: {} has no inverse modulo {}", x, m));
  return t0 < 0 ? t0 + m : t0;
}

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

}  // namespace

bool vector_stats(const double* x, int64_t count, int64_t len, int64_t stride_v, int64_t stride_h,
                  VectorStats* out, int64_t* where) {
  for (int64_t v = 0; v < count; ++v) {
    double biggest = 0;
    for (int64_t h = 0; h < len; ++h) {
      const double a = x[v * stride_v + h * stride_h];
      if (!std::isfinite(a)) {
        if (where) *where = v;
        return false;
      }
      biggest = std::max(biggest, std::fabs(a));
    }
    VectorStats s;
    if (biggest > 0) {
      s.exp = std::ilogb(biggest);
      for (int64_t h = 0; h < len; ++h)
        s.rel_sum += std::ldexp(std::fabs(x[v * stride_v + h * stride_h]), -s.exp);
    }
    out[v] = s;
  }
  return true;
}

double moduli_bits(int count) {
  double bits = 0;
  for (int l = 0; l < count; ++l) bits += std::log2(static_cast<double>(kModuli[l]));
  return bits;
}

int moduli_for(int bits, int64_t k) {
  const double need = 2.0 * bits + 1.0 + std::log2(static_cast<double>(std::max<int64_t>(k, 1)));
  for (int count = 1; count <= kMaxModuli; ++count)
    if (moduli_bits(count) > need + 1e-9) return count;
  return 0;
}

CrtTable crt_table(int count) {
  if (count < 1 || count > kMaxModuli)
    throw Error(fmt::format("ozaki: {} moduli is outside [1, {}]", count, kMaxModuli));
  CrtTable t;
  t.count = count;
  Wide M = wide_zero();
  M.limb[0] = 1;
  for (int l = 0; l < count; ++l) {
    t.moduli[l] = kModuli[l];
    t.inverse[l] = 1.0 / kModuli[l];
    for (int e = 0, p = 1 % kModuli[l]; e < 64; ++e, p = 2 * p % kModuli[l])
      t.pow2[l][e] = static_cast<uint8_t>(p);
    Wide next = wide_zero();
    wide_add_mul(next, M, static_cast<uint32_t>(kModuli[l]));
    M = next;
  }
  for (int l = 0; l < count; ++l) {
    // M / m_l as a product of the others, and its residue mod m_l.
    Wide others = wide_zero();
    others.limb[0] = 1;
    int others_mod = 1;
    for (int j = 0; j < count; ++j) {
      if (j == l) continue;
      Wide next = wide_zero();
      wide_add_mul(next, others, static_cast<uint32_t>(kModuli[j]));
      others = next;
      others_mod = others_mod * (kModuli[j] % kModuli[l]) % kModuli[l];
    }
    t.weight[l] = wide_zero();
    wide_add_mul(t.weight[l], others, static_cast<uint32_t>(inverse_mod(others_mod, kModuli[l])));
  }
  t.modulus = M;
  t.modulus_d = wide_approx(M);
  t.log2_modulus = moduli_bits(count);
  return t;
}

int bits_for_room(double room) {
  if (!(room > 0)) return kMaxBits + 1;
  if (room >= 0.5) return 1;  // no element constrains the width (all-zero rows or columns: room infinite)
  int bits = std::max(1, static_cast<int>(std::ceil(-std::log2(room))));
  while (bits <= kMaxBits && std::ldexp(1.0, -bits) > room) ++bits;
  while (bits > 1 && std::ldexp(1.0, -(bits - 1)) <= room) --bits;
  return std::min(bits, kMaxBits + 1);
}

OzakiChoice choose_emulation(int64_t k, double min_room, int64_t uncertified, int forced_bits) {
  OzakiChoice c;
  c.room = min_room;
  if (forced_bits <= 0 && uncertified > 0) {
    c.reason = fmt::format(
        "{} element{} of C ha{} no lower bound on |A||B| at the bound product's 7 bits (an exponent "
        "spread within a row of op(A) or column of op(B), or structural zeros): the error bound cannot "
        "be certified",
        uncertified, uncertified == 1 ? "" : "s", uncertified == 1 ? "s" : "ve");
    return c;
  }
  c.bits = forced_bits > 0 ? forced_bits : bits_for_room(min_room);
  if (c.bits > kMaxBits) {
    c.reason =
        fmt::format("the error bound needs integers of more than {} bits (room {:.3g})", kMaxBits, min_room);
    return c;
  }
  c.moduli = moduli_for(c.bits, k);
  if (c.moduli == 0) {
    c.reason = fmt::format(
        "the error bound needs {}-bit integers, k = {}: {:.1f} bits of moduli, more than "
        "the {} moduli give ({:.1f})",
        c.bits, k, 2.0 * c.bits + 1 + std::log2(static_cast<double>(k)), kMaxModuli, moduli_bits(kMaxModuli));
    return c;
  }
  c.emulate = true;
  return c;
}

OzakiChoice gemm_host(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha, const double* A,
                      int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc,
                      int forced_bits) {
  const auto native = [&](OzakiChoice c) {
    ref::gemm<double>(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return c;
  };
  if (m <= 0 || n <= 0 || k <= 0 || alpha == 0.0) {
    OzakiChoice c;
    c.reason = "nothing to multiply (m, n or k is 0, or alpha = 0)";
    return native(c);  // ref::gemm checks the arguments and applies beta
  }
  if (lda < (op_a == Op::N ? m : k) || ldb < (op_b == Op::N ? k : n) || ldc < m) {
    OzakiChoice c;
    return native(c);  // its error names the leading dimension
  }
  // op(A)(i, h) at A[i * sa_i + h * sa_h]; op(B)(h, j) at B[j * sb_j + h * sb_h].
  const int64_t sa_i = op_a == Op::N ? 1 : lda, sa_h = op_a == Op::N ? lda : 1;
  const int64_t sb_j = op_b == Op::N ? ldb : 1, sb_h = op_b == Op::N ? 1 : ldb;
  std::vector<VectorStats> ra(static_cast<std::size_t>(m)), cb(static_cast<std::size_t>(n));
  int64_t where = 0;
  if (!vector_stats(A, m, k, sa_i, sa_h, ra.data(), &where)) {
    OzakiChoice c;
    c.reason = fmt::format("row {} of op(A) holds Inf or NaN", where);
    return native(c);
  }
  if (!vector_stats(B, n, k, sb_j, sb_h, cb.data(), &where)) {
    OzakiChoice c;
    c.reason = fmt::format("column {} of op(B) holds Inf or NaN", where);
    return native(c);
  }
  const auto a_at = [&](int64_t i, int64_t h) { return A[i * sa_i + h * sa_h]; };
  const auto b_at = [&](int64_t h, int64_t j) { return B[j * sb_j + h * sb_h]; };

  // The bound product: a lower bound of (|A||B|)_ij per element, and the room it leaves.
  const std::size_t mk = static_cast<std::size_t>(m * k), kn = static_cast<std::size_t>(k * n);
  std::vector<int> la(mk), lb(kn);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t h = 0; h < k; ++h)
      la[static_cast<std::size_t>(i * k + h)] = bound_integer(a_at(i, h), ra[i].exp);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t h = 0; h < k; ++h)
      lb[static_cast<std::size_t>(j * k + h)] = bound_integer(b_at(h, j), cb[j].exp);
  double min_room = std::numeric_limits<double>::infinity();
  int64_t uncertified = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      if (ra[i].exp == kZeroExp || cb[j].exp == kZeroExp) continue;  // an exact zero product
      int64_t bound = 0;
      for (int64_t h = 0; h < std::min(k, kBoundK); ++h)
        bound += la[static_cast<std::size_t>(i * k + h)] * lb[static_cast<std::size_t>(j * k + h)];
      const double room =
          element_room(static_cast<double>(k), ra[i].rel_sum + cb[j].rel_sum, static_cast<double>(bound));
      if (room == 0) ++uncertified;
      min_room = std::min(min_room, room);
    }
  }
  const OzakiChoice choice = choose_emulation(k, min_room, uncertified, forced_bits);
  if (!choice.emulate) return native(choice);

  // Residues of the scaled integers (kPadK-padded k, as the GPU lays them out), per modulus.
  const CrtTable table = crt_table(choice.moduli);
  const int P = choice.bits;
  const int64_t kpad = round_up(k, kPadK);
  std::vector<ScaledInteger> ia(static_cast<std::size_t>(m * kpad), ScaledInteger{0.0, 0});
  std::vector<ScaledInteger> ib(static_cast<std::size_t>(n * kpad), ScaledInteger{0.0, 0});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t h = 0; h < k; ++h)
      if (ra[i].exp != kZeroExp)
        ia[static_cast<std::size_t>(i * kpad + h)] = scaled_integer(a_at(i, h), ra[i].exp, P);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t h = 0; h < k; ++h)
      if (cb[j].exp != kZeroExp)
        ib[static_cast<std::size_t>(j * kpad + h)] = scaled_integer(b_at(h, j), cb[j].exp, P);
  // The products per modulus: one INT8 product per chunk of k, exact in int32; the chunks'
  // residues summed mod m (the GPU path's layout: modulus l's m x n block at l * m * n).
  const std::size_t mn = static_cast<std::size_t>(m * n);
  std::vector<int32_t> products(static_cast<std::size_t>(choice.moduli) * mn);
  std::vector<int8_t> resa(ia.size()), resb(ib.size());
  for (int l = 0; l < choice.moduli; ++l) {
    const int mod = table.moduli[l];
    for (std::size_t x = 0; x < ia.size(); ++x)
      resa[x] = static_cast<int8_t>(symmetric_residue(ia[x], table, l));
    for (std::size_t x = 0; x < ib.size(); ++x)
      resb[x] = static_cast<int8_t>(symmetric_residue(ib[x], table, l));
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i) {
        int64_t acc = 0;
        for (int64_t start = 0; start < kpad; start += kChunkK) {
          int32_t dot = 0;
          for (int64_t h = start; h < std::min(kpad, start + kChunkK); ++h)
            dot +=
                resa[static_cast<std::size_t>(i * kpad + h)] * resb[static_cast<std::size_t>(j * kpad + h)];
          acc = kpad <= kChunkK ? dot : (acc + mod_exact(dot, mod, table.inverse[l])) % mod;
        }
        products[l * mn + static_cast<std::size_t>(i + j * m)] = static_cast<int32_t>(acc);
      }
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double* c = C + i + j * ldc;
      const double old = beta == 0.0 ? 0.0 : beta * *c;
      if (ra[i].exp == kZeroExp || cb[j].exp == kZeroExp) {
        *c = alpha * 0.0 + old;
        continue;
      }
      const std::size_t at = static_cast<std::size_t>(i + j * m);
      const double product = crt_reconstruct(
          table, [&](int l) { return products[l * mn + at]; }, 2 - 2 * P + ra[i].exp + cb[j].exp);
      *c = alpha * product + old;
    }
  }
  return choice;
}

}  // namespace spx::ozaki
