// The planner's view of SELL-C16 (spx/sell_c16.hpp; format string "sellc16"): its device bytes,
// its setup estimate and when it is eligible. planner.cpp calls these, one line each.
#pragma once

#include <optional>
#include <string>

#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {

inline constexpr const char* kSellC16Format = "sellc16";

// Device bytes of the SellC16 copy (a whole copy of the matrix, kept beside the CSR):
// sell_slots (v + 2) + 4 rows + 8 slices from the features' SELL-32 slot count, else with every
// slice as wide as the longest row.
double sellc16_device_bytes(const Problem& p);

// Why SELL-C16 is not a candidate for p, or nullopt when it is: it needs the column spans and the
// features (SELL-32 slots); every row must span at most 65535 columns (no escape path), and the
// slots per nonzero stay within SELL's t.sell_max_slots_per_nnz.
std::optional<std::string> sellc16_refusal(const Problem& p, const PlannerRuleTable& t);

// SELL-C16 with a value dictionary (format string "sellc16d"): SELL-C16's slots with a uint8 code
// each (none when the matrix holds one value) and the table. Eligible where SELL-C16 is and the
// matrix holds at most 256 distinct values (Problem::distinct_values).
inline constexpr const char* kSellC16DictFormat = "sellc16d";
double sellc16_dict_device_bytes(const Problem& p);
std::optional<std::string> sellc16_dict_refusal(const Problem& p, const PlannerRuleTable& t);

}  // namespace spx::plan
