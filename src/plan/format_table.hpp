// The planner's storage formats, one row each: what a candidate's format (KernelRow::format) adds to
// the CSR the front door already holds — its device bytes, its setup estimate beyond the fixed cost
// of building a candidate, why it cannot hold a given matrix, and the matrix bytes the model should
// read when they differ from CSR's. The planner reads only this table, so a new format is one row
// here and its functions in its own file (format_<name>.cpp); the catalogue refuses a kernel row
// whose format has no row.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "spx/model.hpp"
#include "spx/plan.hpp"

namespace spx::plan {

struct PlannerRuleTable;

struct FormatRow {
  const char* name;  // csr, ell, ellr, coo, hyb, sell, csrc16, sellc16, rcm, bsr
  // Device bytes beyond the CSR (estimates: from the statistics, the features where given).
  double (*extra_bytes)(const Problem& p);
  // Setup beyond PlannerRuleTable::setup_fixed_us: the conversion of `extra_bytes` and the like.
  double (*setup_us)(const Problem& p, double extra_bytes, const model::DeviceBasics& device,
                     const PlannerRuleTable& t);
  // Why this format cannot hold the matrix (padding, spans, no blocks...); nullopt when it can.
  std::optional<std::string> (*refusal)(const Problem& p, const PlannerRuleTable& t);
  // The matrix bytes the model reads for kernels of this format; null: CSR's (from the features).
  double (*model_matrix_bytes)(const Problem& p) = nullptr;
};

std::span<const FormatRow> format_rows();
const FormatRow* find_format(std::string_view name);  // null when unknown
std::string format_names();                           // "csr, ell, ..., bsr" for messages

}  // namespace spx::plan
