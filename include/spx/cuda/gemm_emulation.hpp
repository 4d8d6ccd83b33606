// DGEMM emulated on the INT8 tensor cores: Ozaki scheme II (Ozaki, Uchino, Imamura 2025), the
// product of Chinese-remainder residues (docs/dgemm.md, "Emulated DGEMM").
//
// Accuracy contract: before alpha and beta, |fl(op(A) op(B)) - op(A) op(B)| <= gamma_k |op(A)||op(B)|
// elementwise, gamma_k = k u / (1 - k u), u = 2^-53 — the native DGEMM bound — plus the underflow
// term of results in the subnormal range; alpha and beta then round as in any DGEMM. The width of
// the scaled integers, and so the moduli count, is chosen per call from the inputs' statistics
// (a 7-bit INT8 lower bound of |A||B| per element); inputs with Inf/NaN, or elements that bound
// cannot certify within 20 moduli, run native DGEMM instead, with the reason.
//
// Cost: the moduli count (+ 1 bound product) INT8 GEMMs of m × n × k (cuBLASLt, int8 in, int32 out)
// plus the conversions' bytes: A and B read three times, (moduli + 1) (m + n) k int8 written, the
// int32 products written and read back, C written (read when beta != 0), and one host round trip
// for the statistics. plan::gemm_emulation_plan (spx/plan/rules.hpp) predicts it; GemmParams::emulation
// forces or forbids it.
#pragma once

#include <string>

namespace spx::cuda {

// What the last spx::cuda::gemm call on this host thread did about emulation: whether it
// emulated, with how many moduli and bits, and if not why (empty before any f64 Auto call).
struct GemmEmulationReport {
  bool emulated = false;
  int moduli = 0;
  int bits = 0;
  double room = 0;     // the least 2^-P the elementwise bound allowed
  std::string reason;  // why native ran (Inf/NaN, spread, memory, the plan), or empty
};
const GemmEmulationReport& gemm_emulation_last();

}  // namespace spx::cuda
