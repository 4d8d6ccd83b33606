// The emulated DGEMM's cost model (gemm_emulation_plan over GemmEmulationRuleTable, spx/plan/rules.hpp):
// the moduli count random-like inputs need, the INT8 GEMMs timed by waves of the INT8 tile at
// cuBLAS's measured INT8 rate, the conversions' bytes at the streaming bandwidth; Auto emulates where
// that beats native's predicted time.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cpu/gemm_ozaki_host.hpp"
#include "spx/model.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {
namespace {

double ceil_div(double a, double b) { return std::ceil(a / b); }

// The room random-like inputs leave, relative to (k - 1) u: uniform [-1, 1] entries have row and
// column absolute sums of ~k times their largest entry and |A||B| of ~k/4 (host probe, k = 256-8192:
// the widths this predicts are the ones gemm_host chose).
constexpr double kTypicalRoomRatio = 0.5;

}  // namespace

GemmEmulationChoice gemm_emulation_plan(int64_t m, int64_t n, int64_t k, bool reads_c,
                                        const cuda::DeviceProps& device, const cuda::GemmParams& params,
                                        double native_us, int moduli, const RuleTables& tables) {
  using cuda::GemmEmulation;
  const GemmEmulationRuleTable& t = tables.gemm_emulation;
  GemmEmulationChoice c;
  c.native_us = native_us;
  const bool always = params.emulation == GemmEmulation::Always;
  if (params.emulation == GemmEmulation::Never) {
    c.why = "emulation forbidden (GemmEmulation::Never)";
    return c;
  }
  if (params.version != cuda::GemmVersion::Auto || params.tile != cuda::GemmTile::Auto ||
      params.split_k != 0) {
    c.why = "an explicit version, tile or split runs spx's own kernel";
    return c;
  }
  if (m <= 0 || n <= 0 || k <= 0) {
    c.why = "nothing to multiply";
    return c;
  }
  constexpr double u = 0x1p-53;
  c.bits = ozaki::bits_for_room(kTypicalRoomRatio * static_cast<double>(k - 1) * u);
  c.moduli = moduli > 0 ? moduli : (c.bits <= ozaki::kMaxBits ? ozaki::moduli_for(c.bits, k) : 0);
  if (c.moduli == 0) {
    c.emulate = always;
    c.why = fmt::format("k = {}: random-like inputs need more than {} moduli for the native bound{}", k,
                        ozaki::kMaxModuli, always ? " (forced: the call's statistics decide)" : "");
    return c;
  }
  // Figures: the H100's without a device (spx gemm --explain on a machine without a GPU).
  const bool figures = device.sm_count == 0 || device.cc_major >= t.min_cc_major;
  const model::DeviceBasics d = model::device_basics(device);
  const double sms = d.sm_count, hbm = streaming_gbs(device) * 1e3;  // bytes per µs
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  const double kpad = std::ceil(kd / ozaki::kPadK) * ozaki::kPadK;
  // One INT8 GEMM: waves of the tile on every SM at the measured rate, or its bytes (operands once,
  // the int32 product written), plus its launch.
  const double per_sm = t.int8_tops * t.int8_fraction * 1e6 / 132.0;  // int ops per µs per SM
  const double waves = ceil_div(ceil_div(md, t.int8_tile_m) * ceil_div(nd, t.int8_tile_n), sms);
  const double compute = waves * 2.0 * t.int8_tile_m * t.int8_tile_n * kpad / per_sm;
  const double gemm_bytes = (md + nd) * kpad + 4.0 * md * nd;
  const double one_gemm = std::max(compute, gemm_bytes / hbm) + t.launch_us;
  c.int8_us = (c.moduli + 1) * one_gemm;
  // The conversions: A and B read three times (statistics, bound integers, residues), the bound and
  // residue integers written, the int32 products read back (the bound's once, each modulus's once),
  // C written (and read for beta != 0); the reconstruction's arithmetic; six kernels and the round trip.
  const double ab = 8.0 * (md + nd) * kd;
  const double bytes = 3.0 * ab + (c.moduli + 1) * (md + nd) * kpad + 4.0 * md * nd * (c.moduli + 1) +
                       8.0 * md * nd * (reads_c ? 2.0 : 1.0);
  const double reconstruct = md * nd * (c.moduli + 1) * t.reconstruct_ps * 1e-6;
  c.convert_us = bytes / (hbm * t.convert_efficiency) + reconstruct + 6.0 * t.launch_us + t.sync_us;
  c.emulated_us = c.int8_us + c.convert_us;
  c.considered = figures;
  const bool faster = figures && c.emulated_us * (1.0 + t.margin) < native_us;
  c.emulate = always || faster;
  const std::string model = fmt::format(
      "{} moduli + 1 bound product at {}-bit integers (random-like inputs): predicted {:.1f} us ({:.1f} INT8 "
      "GEMMs + {:.1f} conversions) against native's {:.1f} us",
      c.moduli, c.bits, c.emulated_us, c.int8_us, c.convert_us, native_us);
  if (always)
    c.why = "emulation forced (GemmEmulation::Always); " + model;
  else if (!figures)
    c.why = fmt::format("no INT8 figures for sm_{}{} (the model is Hopper's): native", device.cc_major,
                        device.cc_minor);
  else
    c.why = fmt::format("{}: {} (Auto emulates where predicted {:.2f}x faster)", model,
                        faster ? "emulation" : "native", 1.0 + t.margin);
  return c;
}

}  // namespace spx::plan
