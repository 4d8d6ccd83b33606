// Between the emulated DGEMM's host side (ozaki.cpp: workspace, cuBLASLt, decisions and messages)
// and its kernels (ozaki_kernels.cu, no fmt). The arithmetic is gemm_ozaki_math.hpp's, shared with
// the host reference the CPU tests check.
#pragma once

#include <cstdint>

#include "cpu/gemm_ozaki_math.hpp"
#include "spx/cuda/context.hpp"

namespace spx::cuda::detail {

// `count` vectors of length `len` (the rows of op(A) or the columns of op(B)): element h of vector v
// at x[v * stride_v + h * stride_h]; one of the strides is 1.
struct OzakiVectors {
  const double* x;
  int64_t count, len, stride_v, stride_h;
};

// What the statistics pass leaves for the host (one round trip).
struct OzakiFlags {
  unsigned long long min_room_bits;  // the least element_room, as the bits of a non-negative double
  unsigned long long uncertified;    // elements whose bound is 0
  long long nonfinite_a;             // the first row of op(A) with Inf/NaN (kNoVector: none)
  long long nonfinite_b;             // the first column of op(B)
};
inline constexpr long long kNoVector = 0x7fffffffffffffffLL;

// Per vector: exp = ilogb(max |x|) (ozaki::kZeroExp when all zero), rel_sum = sum |x| 2^-exp; the
// first vector holding Inf/NaN into *nonfinite (atomicMin).
void launch_ozaki_stats(Context& ctx, const OzakiVectors& v, int* exp, double* rel_sum, long long* nonfinite);

// Integers of the vectors, vector-major with k padded to kpad (zeros past len) and the vectors to
// count_pad (zero vectors past count): bits == 0, the bound integers (one int8 matrix); bits > 0,
// the residues of the bits-wide scaled integers for each of t.count moduli, modulus l's matrix at
// out + l * modulus_stride.
void launch_ozaki_convert(Context& ctx, const OzakiVectors& v, int64_t count_pad, const int* exp,
                          int64_t kpad, int bits, const ozaki::CrtTable& t, int8_t* out,
                          int64_t modulus_stride);

// The least element_room over C's elements from the bound product (ldb rows per column) and the
// statistics, and the count of elements with bound 0, into *flags.
void launch_ozaki_room(Context& ctx, int64_t m, int64_t n, int64_t k, const int32_t* bound, int64_t ldb,
                       const int* exp_a, const double* rel_a, const int* exp_b, const double* rel_b,
                       OzakiFlags* flags);

// acc = acc mod m + chunk mod m (a later chunk of k's product folded in), m × n, ld rows per column.
void launch_ozaki_fold(Context& ctx, int64_t m, int64_t n, int64_t ld, int32_t* acc, const int32_t* chunk,
                       int modulus, double inverse);

// C = alpha · C' 2^(2 - 2P + e_i + g_j) + beta · C (beta == 0: C not read), C' from the t.count
// products (modulus l's m × n block at products + l * product_stride, ldp rows per column).
void launch_ozaki_reconstruct(Context& ctx, const ozaki::CrtTable& t, int bits, int64_t m, int64_t n,
                              const int32_t* products, int64_t ldp, int64_t product_stride, const int* exp_a,
                              const int* exp_b, double alpha, double beta, double* C, int64_t ldc);

}  // namespace spx::cuda::detail
