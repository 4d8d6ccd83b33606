// The planner's storage formats (plan/format_table.hpp). The padded and COO formats spx has had
// from the start are defined here; the formats with their own statistics in format_*.cpp.
#include "plan/format_table.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "plan/format_bsr.hpp"
#include "plan/format_csrc16.hpp"
#include "plan/format_rcm.hpp"
#include "plan/format_sellc16.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {

namespace {

using Rules = PlannerRuleTable;
using Refusal = std::optional<std::string>;

double rows32(const Problem& p) { return std::ceil(static_cast<double>(p.stats.rows) / 32.0) * 32.0; }
double slot_bytes(const Problem& p) { return p.value_bytes + 4.0; }  // a value and a 32-bit index
double coo_bytes(const Problem& p, double nnz) { return nnz * (p.value_bytes + 8.0); }

// Conversions on the GPU: their read-backs and launches, their format's device allocations (the
// count is the format's: cuda/convert), and their bytes at a share of the copy bandwidth; host
// conversions (with their upload) at host_convert_gbs.
double device_write_us(double bytes, const model::DeviceBasics& d, const Rules& t) {
  return bytes / (d.copy_gbs * t.device_convert_fraction_of_copy * 1e3);
}
template <int Allocations>
double device_convert_us(const Problem&, double bytes, const model::DeviceBasics& d, const Rules& t) {
  return t.device_convert_fixed_us + Allocations * t.device_allocation_us + device_write_us(bytes, d, t);
}
double host_convert_us(const Problem&, double bytes, const model::DeviceBasics&, const Rules& t) {
  return bytes / (t.host_convert_gbs * 1e3);
}
double no_setup(const Problem&, double, const model::DeviceBasics&, const Rules&) { return 0; }
Refusal no_refusal(const Problem&, const Rules&) { return std::nullopt; }

double ell_bytes(const Problem& p) {
  return rows32(p) * static_cast<double>(p.stats.max_row) * slot_bytes(p);
}
double ellr_bytes(const Problem& p) { return ell_bytes(p) + 4.0 * rows32(p); }
double hyb_bytes(const Problem& p) {
  const double width = p.features ? static_cast<double>(p.features->hyb_width) : p.stats.avg_row;
  const double ell_nnz = p.features ? static_cast<double>(p.features->hyb_ell_nnz) : 0.0;
  return rows32(p) * width * slot_bytes(p) + coo_bytes(p, static_cast<double>(p.stats.nnz) - ell_nnz);
}
double sell_bytes(const Problem& p) {
  const double slots = p.features ? static_cast<double>(p.features->sell_slots)
                                  : rows32(p) * static_cast<double>(p.stats.max_row);
  return slots * slot_bytes(p) + 4.0 * rows32(p) / 32.0;
}

Refusal ell_refusal(const Problem& p, const Rules& t) {
  const double pad = p.stats.ell_padding_ratio;
  if (pad > t.ell_max_padding)
    return fmt::format("ELL padding {:.1f} slots per nonzero > {:.0f}", pad, t.ell_max_padding);
  return std::nullopt;
}
Refusal ellr_refusal(const Problem& p, const Rules& t) {
  const double pad = p.stats.ell_padding_ratio;
  const double limit = p.op == Operation::Spmm ? t.spmm_ellr_max_padding : t.ellr_max_padding;
  if (pad > limit) return fmt::format("ELLR padding {:.1f} slots per nonzero > {:.0f}", pad, limit);
  return std::nullopt;
}
Refusal sell_refusal(const Problem& p, const Rules& t) {
  if (!p.features) return "SELL needs the matrix features (sell slots)";
  if (p.stats.nnz == 0) return std::nullopt;
  const double slots = static_cast<double>(p.features->sell_slots) / static_cast<double>(p.stats.nnz);
  if (slots > t.sell_max_slots_per_nnz)
    return fmt::format("SELL-32 would store {:.1f} slots per nonzero > {:.0f}", slots,
                       t.sell_max_slots_per_nnz);
  return std::nullopt;
}

double csrc16_setup(const Problem&, double bytes, const model::DeviceBasics&, const Rules& t) {
  return csrc16_setup_us(bytes, t);
}
// SELL-C16 is converted on the device from the CSR there (cuda::to_sell_c16: slice pointers, row
// bases, offsets, values).
double sellc16_setup(const Problem& p, double bytes, const model::DeviceBasics& d, const Rules& t) {
  return device_convert_us<4>(p, bytes, d, t);
}
double bsr_setup(const Problem&, double bytes, const model::DeviceBasics&, const Rules& t) {
  return bsr_setup_us(bytes, t);
}
double rcm_setup(const Problem& p, double, const model::DeviceBasics&, const Rules&) {
  return rcm_setup_us(p, 0);
}
Refusal rcm_refusal_row(const Problem& p, const Rules&) {
  std::string why = rcm_refusal(p);
  return why.empty() ? Refusal{} : Refusal{std::move(why)};
}
double rcm_sell_setup(const Problem& p, double, const model::DeviceBasics& d, const Rules& t) {
  return rcm_sell_setup_us(p, d.copy_gbs * t.device_convert_fraction_of_copy);
}
Refusal rcm_sell_refusal_row(const Problem& p, const Rules&) {
  std::string why = rcm_sell_refusal(p);
  return why.empty() ? Refusal{} : Refusal{std::move(why)};
}

// csr_param_mixed: a float copy of the values beside the CSR (4 bytes a nonzero), rounded on the host
// and uploaded; the model reads 4 + 4 bytes a nonzero where CSR's are 8 + 4. Double matrices only.
double mixed_bytes(const Problem& p) { return 4.0 * static_cast<double>(p.stats.nnz); }
Refusal mixed_refusal(const Problem& p, const Rules&) {
  if (p.value_bytes != 8) return "mixed precision rounds double values to float: the matrix is float already";
  return std::nullopt;
}
double mixed_model_bytes(const Problem& p) {
  return 8.0 * static_cast<double>(p.stats.nnz) + 4.0 * static_cast<double>(p.stats.rows + 1);
}

double sellc16_dict_setup(const Problem& p, double bytes, const model::DeviceBasics& d, const Rules& t) {
  // The table is the front door's count of the values (Problem::distinct_values, kept with it), so
  // no host pass; then SELL-C16 and the codes converted on the device: SELL-C16's slab is written,
  // then this row's bytes. Without the count, one host pass over the values first.
  const double table_us =
      p.distinct_values ? 0.0 : host_convert_us(p, static_cast<double>(p.stats.nnz) * p.value_bytes, d, t);
  // SELL-C16's four allocations, the table's and the codes'.
  return table_us + device_convert_us<6>(p, sellc16_device_bytes(p) + bytes, d, t);
}
Refusal sellc16_dict_refusal_row(const Problem& p, const Rules& t) { return sellc16_dict_refusal(p, t); }

const std::array<FormatRow, 13> kFormats = {{
    {"csr", [](const Problem&) { return 0.0; }, no_setup, no_refusal},
    {"ell", ell_bytes, device_convert_us<2>, ell_refusal},     // columns, values
    {"ellr", ellr_bytes, device_convert_us<3>, ellr_refusal},  // and row lengths
    {"coo", [](const Problem& p) { return coo_bytes(p, static_cast<double>(p.stats.nnz)); }, host_convert_us,
     no_refusal},
    {"hyb", hyb_bytes, device_convert_us<5>, no_refusal},  // ELL's two, the tail's three
    {"sell", sell_bytes, host_convert_us, sell_refusal},
    {kCsrC16Format, csrc16_device_bytes, csrc16_setup, csrc16_refusal},
    {kSellC16Format, sellc16_device_bytes, sellc16_setup, sellc16_refusal},
    {"rcm", rcm_extra_bytes, rcm_setup, rcm_refusal_row},
    {"rcmsell", rcm_sell_extra_bytes, rcm_sell_setup, rcm_sell_refusal_row, rcm_sell_matrix_bytes},
    {kBsrFormat, bsr_device_bytes, bsr_setup, bsr_refusal, bsr_model_matrix_bytes},
    {"csrmixed", mixed_bytes, host_convert_us, mixed_refusal, mixed_model_bytes},
    {kSellC16DictFormat, sellc16_dict_device_bytes, sellc16_dict_setup, sellc16_dict_refusal_row,
     sellc16_dict_device_bytes},
}};

}  // namespace

std::span<const FormatRow> format_rows() { return kFormats; }

const FormatRow* find_format(std::string_view name) {
  for (const FormatRow& f : kFormats)
    if (name == f.name) return &f;
  return nullptr;
}

std::string format_names() {
  std::string s;
  for (const FormatRow& f : kFormats) s += fmt::format("{}{}", s.empty() ? "" : ", ", f.name);
  return s;
}

}  // namespace spx::plan
