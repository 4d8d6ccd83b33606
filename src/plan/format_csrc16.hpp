// The planner's view of CSR-C16 (spx/csr_c16.hpp; format string "csrc16"): its device bytes, its
// setup estimate and when it is eligible. planner.cpp calls these, one line each.
#pragma once

#include <optional>
#include <string>

#include "spx/model.hpp"
#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {

inline constexpr const char* kCsrC16Format = "csrc16";

// Device bytes of the CsrC16 copy (it is a whole copy of the matrix, kept beside the CSR): exact
// from Problem::column_spans, else with every row narrow.
double csrc16_device_bytes(const Problem& p);

// Host conversion (O(nnz)) and upload of those bytes.
double csrc16_setup_us(double bytes, const PlannerRuleTable& t);

// Why CSR-C16 is not a candidate for p, or nullopt when it is: it needs the column spans; the
// escape part may hold at most t.c16_max_escape_share of the nonzeros, and the bytes an SpMV
// streams must fall by at least t.c16_min_bytes_saved against the CSR's.
std::optional<std::string> csrc16_refusal(const Problem& p, const PlannerRuleTable& t);

}  // namespace spx::plan
