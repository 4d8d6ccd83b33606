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
// for the statistics. gemm_emulation_plan predicts it; GemmParams::emulation forces or forbids it.
#pragma once

#include <cstdint>
#include <string>

#include "spx/cpu.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/gemm.hpp"

namespace spx::cuda {

// The cost model's figures (predicted, not fitted: docs/dgemm.md says what they rest on).
struct GemmEmulationTable {
  double int8_tops = 1979.0;  // H100 SXM dense INT8 tensor peak, 132 SMs (scaled by the SM count)
  // Of it the emulation's own cuBLASLt INT8 GEMMs reach (int32 out, k-padded): ~1150 TOPS, fitted to
  // the emulated calls measured on an H200 at 4096^3-16384^3 (bench/results/h200/gemm/emulation-*).
  double int8_fraction = 0.58;
  int int8_tile_m = 256;  // the INT8 GEMM's block tile (waves = tiles / SMs, one per SM)
  int int8_tile_n = 128;
  double convert_efficiency = 0.8;  // share of the streaming bandwidth the conversion kernels reach
  // The CRT reconstruction's integer arithmetic, per element of C and modulus (compute-bound: it
  // costs ~5x the int32 product's read-back), fitted to the same H200 calls (8192^2 x 256: 8.7 ms).
  double reconstruct_ps = 6.0;
  double launch_us = 3.0;  // per kernel or GEMM launch
  double sync_us = 20.0;   // the host round trip that reads the statistics
  double margin = 0.1;     // Auto emulates only where predicted (1 + margin) x faster
  int min_cc_major = 9;    // the figures are Hopper's; other devices: no prediction
};
const GemmEmulationTable& default_gemm_emulation_table();

// Auto's emulation candidate for a shape (m, n, k >= 1): the moduli count random-like inputs need
// (or `moduli` when > 0: the count a call's statistics asked for), the predicted times, and whether
// Auto emulates: params.emulation Always (where the inputs allow), or Auto and predicted faster than
// `native_us` (gemm_plan's predicted_us) by the margin.
struct GemmEmulationChoice {
  bool emulate = false;
  bool considered = false;  // false: f32, an explicit version or knob, Never, or no figures
  int moduli = 0;           // INT8 products besides the bound product
  int bits = 0;             // width of the scaled integers
  double emulated_us = 0;   // predicted: all of it
  double int8_us = 0;       // predicted: the (moduli + 1) INT8 GEMMs
  double convert_us = 0;    // predicted: conversions, reconstruction, launches, the round trip
  double native_us = 0;     // gemm_plan's prediction for native
  std::string why;          // one sentence: what runs and why
};
GemmEmulationChoice gemm_emulation_plan(int64_t m, int64_t n, int64_t k, bool reads_c,
                                        const DeviceProps& device, const GemmParams& params, double native_us,
                                        int moduli = 0,
                                        const GemmEmulationTable& table = default_gemm_emulation_table());

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
