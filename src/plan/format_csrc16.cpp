// The planner's rules for CSR-C16 (format_csrc16.hpp) and the escape threshold its executor and
// benchmark convert with.
#include "plan/format_csrc16.hpp"

#include <fmt/format.h>

#include "spx/column_spans.hpp"
#include "spx/cuda/spmv_csr_c16.hpp"

namespace spx {

namespace plan {

int64_t csr_c16_escape_threshold(const MatrixStats& stats, const cuda::DeviceProps& props) {
  return csr_long_row_threshold(stats.nnz, csr_fixed_rule(stats, props), props);
}

namespace {

// Without the spans: every row narrow (what the planner assumes when none are known).
ColumnSpanStats spans_of(const Problem& p) {
  if (p.column_spans) return *p.column_spans;
  ColumnSpanStats s;
  s.rows = p.stats.rows;
  s.nnz = p.stats.nnz;
  return s;
}

}  // namespace

double csrc16_device_bytes(const Problem& p) { return csr_c16_stream_bytes(spans_of(p), p.value_bytes); }

double csrc16_setup_us(double bytes, const PlannerRuleTable& t) { return bytes / (t.host_convert_gbs * 1e3); }

std::optional<std::string> csrc16_refusal(const Problem& p, const PlannerRuleTable& t) {
  if (!p.column_spans) return std::string("CSR-C16 needs the rows' column spans");
  const ColumnSpanStats& s = *p.column_spans;
  const double escape_share = 1.0 - s.narrow_share();
  if (escape_share > t.c16_max_escape_share)
    return fmt::format("{:.1f}% of the nonzeros in rows spanning more than {} columns > {:.1f}%",
                       100.0 * escape_share, kC16MaxSpan, 100.0 * t.c16_max_escape_share);
  const double csr = csr_stream_bytes(s, p.value_bytes);
  const double saved = csr > 0 ? 1.0 - csr_c16_stream_bytes(s, p.value_bytes) / csr : 0.0;
  if (saved < t.c16_min_bytes_saved)
    return fmt::format("16-bit columns save {:.1f}% of the matrix bytes < {:.0f}%", 100.0 * saved,
                       100.0 * t.c16_min_bytes_saved);
  return std::nullopt;
}

}  // namespace plan
}  // namespace spx
