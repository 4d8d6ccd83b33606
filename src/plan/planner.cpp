// The planner's host side (spx/plan.hpp): candidate lists, eligibility, setup and memory estimates,
// and the rule and model rankings. Numbers live in PlannerRuleTable (rule_tables.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "plan/catalogue.hpp"
#include "plan/format_table.hpp"
#include "spx/error.hpp"
#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {

const char* to_string(Mode m) {
  switch (m) {
    case Mode::Rule:
      return "rule";
    case Mode::Model:
      return "model";
    case Mode::Measure:
      return "measure";
    case Mode::Tune:
      return "tune";
    case Mode::Auto:
      return "auto";
  }
  return "unknown";
}

Mode mode_from_string(const std::string& s) {
  for (Mode m : {Mode::Rule, Mode::Model, Mode::Measure, Mode::Tune, Mode::Auto})
    if (s == to_string(m)) return m;
  throw Error(fmt::format("unknown planning mode '{}' (rule, model, measure, tune or auto)", s));
}

namespace {

bool glob(const char* p, const char* s) {
  for (; *p != '\0'; ++p, ++s) {
    if (*p == '*') {
      for (const char* t = s;; ++t) {
        if (glob(p + 1, t)) return true;
        if (*t == '\0') return false;
      }
    }
    if (*s == '\0' || (*p != '?' && *p != *s)) return false;
  }
  return *s == '\0';
}

// The model's name for a candidate (its catalogue row's model key).
model::KernelKey model_key(const KernelRow& row, const Problem& p) {
  return {row.model_key, p.value_bytes, p.op == Operation::Spmm ? p.cols_dense : 0};
}

double padding(const MatrixStats& s) { return s.ell_padding_ratio; }

// The candidate's format row (plan/format_table.hpp); the catalogue checks every row's format.
const FormatRow& format_of(const std::string& format) {
  const FormatRow* f = find_format(format);
  if (f == nullptr) throw Error(fmt::format("unknown format '{}' ({})", format, format_names()));
  return *f;
}

// Extra device bytes of the candidate's format beyond the CSR (estimates).
std::size_t format_bytes(const FormatRow& f, const Problem& p) {
  const double b = f.extra_bytes(p);
  return b >= 1.8e19 ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(b);
}

double setup_estimate_us(const Candidate& c, const FormatRow& f, const Problem& p,
                         const model::DeviceBasics& device, const PlannerRuleTable& t) {
  double us = t.setup_fixed_us + f.setup_us(p, static_cast<double>(c.extra_bytes), device, t);
  if (c.owner == "cuSPARSE") us += static_cast<double>(p.stats.nnz) * t.vendor_preprocess_ns_per_nnz * 1e-3;
  return us;
}

const std::vector<std::string>& rule_order(const Problem& p, const PlannerRuleTable& t) {
  if (p.op == Operation::Spmm) return p.layout == DenseLayout::RowMajor ? t.spmm_row_major : t.spmm_col_major;
  if (p.stats.avg_row > t.long_row_average) return t.spmv_long_rows;
  if (padding(p.stats) <= t.uniform_padding) return t.spmv_uniform;
  if (padding(p.stats) <= t.spread_padding) return t.spmv_spread;
  return t.spmv_irregular;
}

}  // namespace

bool allowed(const std::string& kernel, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return glob(p.c_str(), kernel.c_str()); });
}

namespace {
// The options' own refusals (why_none leaves them out of an error message).
constexpr std::string_view kNotAllowedKernel = "not among the allowed kernels";
constexpr std::string_view kVendorOff = "vendor candidates are off";
}  // namespace

std::vector<Candidate> candidates(const Problem& p, const Options& o, const model::DeviceBasics& device,
                                  std::size_t free_bytes) {
  if (p.value_bytes != 4 && p.value_bytes != 8)
    throw Error(fmt::format("the planner knows f32 and f64 products, not {}-byte values", p.value_bytes));
  if (p.op == Operation::Spmm && p.cols_dense < 1)
    throw Error(fmt::format("an SpMM plan needs L >= 1 dense columns, got {}", p.cols_dense));
  if (o.expected_calls < 1) throw Error(fmt::format("expected_calls must be >= 1, got {}", o.expected_calls));
  if (o.measure_top < 1) throw Error(fmt::format("measure_top must be >= 1, got {}", o.measure_top));
  if (o.tune_calls < 1) throw Error(fmt::format("tune_calls must be >= 1, got {}", o.tune_calls));
  for (const std::string& f : o.formats)
    if (find_format(f) == nullptr) throw Error(fmt::format("unknown format '{}' ({})", f, format_names()));
  const PlannerRuleTable& t = default_rule_tables().planner;
  const cuda::DeviceProps props = model::device_props(device);
  const int64_t long_rows = csr_long_row_threshold(p.stats.nnz, csr_fixed_rule(p.stats, props), props);
  const std::size_t budget =
      o.memory_budget_bytes > 0 ? std::min(o.memory_budget_bytes, free_bytes) : free_bytes;
  std::vector<Candidate> out;
  for (const KernelRow* row : rows_for(p.op, p.layout)) {
    Candidate c;
    c.kernel = row->name;
    c.owner = row->owner;
    c.format = row->format;
    c.deterministic = deterministic(*row, p.stats, long_rows);
    const FormatRow& format = format_of(c.format);
    c.extra_bytes = format_bytes(format, p);
    c.setup_us = setup_estimate_us(c, format, p, device, t);
    const auto refuse = [&](std::string why) {
      if (c.eligible) c.why_not = std::move(why);
      c.eligible = false;
    };
    if (!allowed(c.kernel, o.kernels)) refuse(std::string(kNotAllowedKernel));
    if (!o.formats.empty() && std::find(o.formats.begin(), o.formats.end(), c.format) == o.formats.end())
      refuse(fmt::format("format {} not among the allowed formats", c.format));
    if (!o.vendor && c.owner == "cuSPARSE") refuse(std::string(kVendorOff));
    if (o.deterministic_only && !c.deterministic) refuse("not deterministic");
    if (row->rounds_values && !o.mixed_precision)
      refuse("rounds the values to float: allowed only with Options::mixed_precision");
    if (p.offset_bits == 64) {
      if (!row->offsets64)
        refuse(offsets32_only_reason(p.stats.nnz));
      else if (c.owner == "cuSPARSE")
        c.extra_bytes += 8 * static_cast<std::size_t>(p.stats.nnz);  // its copy of the columns, widened
    }
    if (auto why = format.refusal(p, t)) refuse(*why);
    const double pad = padding(p.stats);
    if (p.op == Operation::Spmm && p.layout == DenseLayout::ColMajor && c.owner == "spx" &&
        p.cols_dense * p.value_bytes > t.spmm_col_spx_max_row_bytes)
      refuse(
          fmt::format("column-major spx SpMM past {}-byte rows of B (L = {} x {} bytes) loses to cuSPARSE's",
                      t.spmm_col_spx_max_row_bytes, p.cols_dense, p.value_bytes));
    if (p.op == Operation::Spmm && p.layout == DenseLayout::ColMajor && c.owner == "spx" &&
        c.format == "csr" && pad > t.spmm_col_csr_max_padding)
      refuse(fmt::format(
          "column-major CSR SpMM on rows this uneven (ELL padding {:.1f} > {:.0f}) loses to cuSPARSE's", pad,
          t.spmm_col_csr_max_padding));
    // CSR ALG3 on row-major operands needs rows that start on 16-byte boundaries (it faults
    // otherwise, docs/cuda-runtime.md): with a tight leading dimension, L values must fill them.
    if (row->needs_16_byte_rows && (p.cols_dense * p.value_bytes) % 16 != 0)
      refuse(fmt::format("needs L x {} bytes a multiple of 16 (row-major rows on 16-byte boundaries)",
                         p.value_bytes));
    if (c.extra_bytes > budget)
      refuse(fmt::format("needs {:.1f} MiB beyond the CSR, over the {:.1f} MiB {}",
                         static_cast<double>(c.extra_bytes) / 1048576.0,
                         static_cast<double>(budget) / 1048576.0,
                         o.memory_budget_bytes > 0 ? "budget" : "free on the device"));
    out.push_back(std::move(c));
  }
  return out;
}

std::string why_none(const std::vector<Candidate>& cands) {
  if (cands.empty()) return "none known";
  std::string s;
  int n = 0;
  for (const Candidate& c : cands) {
    // Refused by the caller's own filters (kernels, formats, vendor): not a reason worth naming.
    const bool filtered = c.why_not == kNotAllowedKernel || c.why_not == kVendorOff ||
                          c.why_not.find("not among the allowed formats") != std::string::npos;
    if (c.eligible || filtered || n == 3) continue;
    s += fmt::format("{}{}: {}", n++ == 0 ? "" : "; ", c.kernel, c.why_not);
  }
  return n > 0 ? s : fmt::format("every candidate is excluded by the options ({})", cands.front().why_not);
}

void rank(std::vector<Candidate>& cands, const Problem& p, const Options& o, const model::Profile* profile) {
  const PlannerRuleTable& t = default_rule_tables().planner;
  const std::vector<std::string>& order = rule_order(p, t);
  const double calls = static_cast<double>(std::max<int64_t>(o.expected_calls, 1));
  for (Candidate& c : cands) {
    const auto it = std::find(order.begin(), order.end(), c.kernel);
    c.rule_rank = static_cast<double>(it - order.begin());
    if (c.format != "csr" && o.expected_calls < t.rule_min_calls_to_convert) c.rule_rank += 1000;
    c.predicted_us = std::numeric_limits<double>::quiet_NaN();
    c.model_error = std::numeric_limits<double>::quiet_NaN();
    // At 64-bit offsets no fit applies, and the features hold only the format rows' fields.
    if (o.mode != Mode::Rule && profile != nullptr && p.features && p.offset_bits == 32) {
      const model::KernelKey key = model_key(kernel_row(c.kernel), p);
      const FormatRow& format = format_of(c.format);
      const double format_bytes = format.model_matrix_bytes != nullptr ? format.model_matrix_bytes(p) : 0.0;
      if (auto us = model::predict_us(*profile, key, *p.features, format_bytes)) {
        // A key without a fit of its own runs on a sibling's coefficients: its error is unknown
        // (NaN: auto takes PlannerRuleTable::auto_unknown_error and times it against the others).
        c.model_error = profile->find(key) != nullptr ? model::fit_for(*profile, key)->mean_abs_error
                                                      : std::numeric_limits<double>::quiet_NaN();
        // cuSPARSE's SpMM algorithms share one prediction (its best): each is scaled by how far it
        // typically is from that best; the rule order breaks remaining ties.
        double scale = 1.0;
        if (p.op == Operation::Spmm && c.owner == "cuSPARSE")
          for (const auto& r : t.vendor_spmm_over_best)
            if (r.kernel == c.kernel) scale = p.cols_dense <= 16 ? r.at_l8 : r.at_l32;
        // The model's time, nothing else: the rule order only breaks exact ties in the sort below,
        // and setup enters the score once, as setup / expected_calls.
        c.predicted_us = *us * scale;
      }
    }
    const double per_call = std::isnan(c.measured_us) ? c.predicted_us : c.measured_us;
    c.score = std::isnan(per_call) ? std::numeric_limits<double>::infinity() : per_call + c.setup_us / calls;
  }
  const bool by_time =
      std::any_of(cands.begin(), cands.end(), [](const Candidate& c) { return std::isfinite(c.score); });
  // Once some were timed, a measurement beats any prediction: untimed candidates rank after them.
  const bool any_measured = std::any_of(cands.begin(), cands.end(), [](const Candidate& c) {
    return c.eligible && !std::isnan(c.measured_us);
  });
  std::stable_sort(cands.begin(), cands.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.eligible != b.eligible) return a.eligible;
    if (any_measured && std::isnan(a.measured_us) != std::isnan(b.measured_us))
      return !std::isnan(a.measured_us);
    if (by_time && a.score != b.score) return a.score < b.score;
    return a.rule_rank < b.rule_rank;
  });
}

}  // namespace spx::plan
