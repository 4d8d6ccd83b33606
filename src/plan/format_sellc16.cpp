// The planner's rules for SELL-C16 (format_sellc16.hpp).
#include "plan/format_sellc16.hpp"

#include <fmt/format.h>

#include <cmath>

#include "spx/column_spans.hpp"
#include "spx/sell_c16.hpp"
#include "spx/sell_c16_dict.hpp"

namespace spx::plan {

namespace {

double slots_of(const Problem& p) {
  if (p.features) return static_cast<double>(p.features->sell_slots);
  const double rows32 = std::ceil(static_cast<double>(p.stats.rows) / kSellC16SliceRows) * kSellC16SliceRows;
  return rows32 * static_cast<double>(p.stats.max_row);
}

}  // namespace

double sellc16_device_bytes(const Problem& p) {
  const double slots = slots_of(p), rows = static_cast<double>(p.stats.rows);
  return slots * (p.value_bytes + 2) + 4.0 * rows + 8.0 * (std::ceil(rows / kSellC16SliceRows) + 1.0);
}

std::optional<std::string> sellc16_refusal(const Problem& p, const PlannerRuleTable& t) {
  if (!p.column_spans) return std::string("SELL-C16 needs the rows' column spans");
  if (p.column_spans->wide_rows > 0)
    return fmt::format("{} rows span more than {} columns (widest {}): SELL-C16 has no escape path",
                       p.column_spans->wide_rows, kC16MaxSpan, p.column_spans->max_span);
  if (!p.features) return std::string("SELL-C16 needs the matrix features (sell slots)");
  if (p.stats.nnz > 0) {
    const double slots = static_cast<double>(p.features->sell_slots) / static_cast<double>(p.stats.nnz);
    if (slots > t.sell_max_slots_per_nnz)
      return fmt::format("SELL-32 would store {:.1f} slots per nonzero > {:.0f}", slots,
                         t.sell_max_slots_per_nnz);
  }
  return std::nullopt;
}

double sellc16_dict_device_bytes(const Problem& p) {
  const double slots = slots_of(p), rows = static_cast<double>(p.stats.rows);
  const double distinct = p.distinct_values ? static_cast<double>(*p.distinct_values) : kSellC16DictMaxValues;
  return slots * (2.0 + (distinct > 1 ? 1.0 : 0.0)) + 4.0 * rows +
         8.0 * (std::ceil(rows / kSellC16SliceRows) + 1.0) + distinct * p.value_bytes;
}

std::optional<std::string> sellc16_dict_refusal(const Problem& p, const PlannerRuleTable& t) {
  if (auto why = sellc16_refusal(p, t)) return why;
  if (!p.distinct_values) return std::string("needs the count of distinct values");
  if (*p.distinct_values > kSellC16DictMaxValues)
    return fmt::format("more than {} distinct values: no table", kSellC16DictMaxValues);
  return std::nullopt;
}

}  // namespace spx::plan
