// The emulated DGEMM's decisions (the integer width and the moduli count from the inputs'
// statistics, or native DGEMM with the reason) and its host reference, which runs the same
// arithmetic as the GPU path (gemm_ozaki_math.hpp) one element at a time. docs/dgemm.md,
// "Emulated DGEMM", states the bound: |fl_emul(op(A) op(B)) - op(A) op(B)| <= gamma_k |op(A)||op(B)|
// elementwise, gamma_k = k u / (1 - k u), before alpha and beta are applied.
#pragma once

#include <cstdint>
#include <string>

#include "cpu/gemm_ozaki_math.hpp"
#include "spx/cpu.hpp"

namespace spx::ozaki {

// One row of op(A) or column of op(B): e = ilogb(max |x|) (kZeroExp when all zero) and
// sum |x| 2^-e (in [1, 2 k)), the relative absolute sum the bound's sigma adds.
struct VectorStats {
  int exp = kZeroExp;
  double rel_sum = 0;
};
// The statistics of `count` vectors of length `len`, vector v's element h at x[v * stride_v + h * stride_h];
// false when one holds Inf or NaN (then `where` is that vector's index).
bool vector_stats(const double* x, int64_t count, int64_t len, int64_t stride_v, int64_t stride_h,
                  VectorStats* out, int64_t* where);

// The moduli table of the first `count` of kModuli (1..kMaxModuli).
CrtTable crt_table(int count);
// log2 of the product of the first `count` moduli.
double moduli_bits(int count);
// The least moduli count whose product M exceeds 2 k 2^(2 bits) (so that |C'| < M / 2), or 0 when
// even kMaxModuli fall short.
int moduli_for(int bits, int64_t k);

// What the emulation runs with, or why it does not.
struct OzakiChoice {
  bool emulate = false;
  int bits = 0;        // P: |a'|, |b'| <= 2^P
  int moduli = 0;      // INT8 products (besides the bound product)
  double room = 0;     // the least q = 2^-P over the elements (element_room)
  std::string reason;  // why native DGEMM runs instead (empty when emulating)
};
// From the least room over the elements (0: some element has no lower bound), for depth k.
// forced_bits > 0 overrides the width (tests only: a width below the room's breaks the bound).
OzakiChoice choose_emulation(int64_t k, double min_room, int64_t uncertified, int forced_bits = 0);
// The smallest P with 2^-P <= room (kMaxBits + 1 past the limit).
int bits_for_room(double room);

// The host reference of the emulated DGEMM, BLAS column-major: C = alpha op(A) op(B) + beta C, the
// same checks as spx::ref::gemm. Inputs holding Inf/NaN, or elements the bound cannot certify
// within kMaxModuli, run spx::ref::gemm instead; the returned choice says which ran and why.
OzakiChoice gemm_host(Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha, const double* A,
                      int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc,
                      int forced_bits = 0);

}  // namespace spx::ozaki
