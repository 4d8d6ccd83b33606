// Report::explain(): the plan for people — every candidate with its predicted and measured time,
// setup and memory, and why the winner won.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "spx/plan.hpp"

namespace spx::plan {

namespace {

std::string us_or_dash(double us) { return std::isnan(us) ? std::string("-") : fmt::format("{:.2f}", us); }

std::string problem_label(const Problem& p) {
  const char* prec = p.value_bytes == 4 ? "f32" : "f64";
  if (p.op == Operation::Spmv) return fmt::format("SpMV {}", prec);
  return fmt::format("SpMM {} L={} {}-major", prec, p.cols_dense,
                     p.layout == DenseLayout::RowMajor ? "row" : "column");
}

}  // namespace

std::string Report::explain() const {
  std::string s =
      fmt::format("plan: {} on {} x {} ({} nonzeros, {}-bit offsets), {}; mode {}, decided by {}{}\n",
                  problem_label(problem), problem.stats.rows, problem.stats.cols, problem.stats.nnz,
                  problem.offset_bits, device, to_string(mode), decided_by,
                  profile.empty() ? std::string() : fmt::format(" (profile {})", profile));
  if (candidates.empty()) return s + "  no candidates\n";
  const Candidate& w = winner();
  s += fmt::format("chosen: {} ({}){}{}\n", w.kernel, w.owner, w.params.empty() ? "" : ": ", w.params);
  s += fmt::format(
      "planning {:.1f} us (features {:.1f} us, host inputs {:.1f} us), setup of the chosen {:.1f} us, {} "
      "expected calls{}\n",
      planning_us, features_us, extras_us, setup_us, expected_calls,
      frozen
          ? ""
          : fmt::format("; {} ({} calls so far)", decided_by == "racing" ? "racing" : "tuning", tuner_calls));
  const double calls = static_cast<double>(std::max<int64_t>(expected_calls, 1));
  s += fmt::format("  {:<28} {:<9} {:>12} {:>12} {:>10} {:>10} {:>10} {:>12}  {}\n", "candidate", "owner",
                   "predicted us", "measured us", "setup us", "setup/call", "MiB", "score us", "note");
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    std::string note = c.eligible ? (i == chosen ? "<- chosen" : "") : "not eligible: " + c.why_not;
    if (c.eligible && !c.deterministic) note += note.empty() ? "not deterministic" : ", not deterministic";
    s += fmt::format("  {:<28} {:<9} {:>12} {:>12} {:>10.1f} {:>10.3f} {:>10.1f} {:>12}  {}\n", c.kernel,
                     c.owner, us_or_dash(c.predicted_us), us_or_dash(c.measured_us), c.setup_us,
                     c.setup_us / calls, static_cast<double>(c.extra_bytes) / 1048576.0,
                     std::isfinite(c.score) ? fmt::format("{:.2f}", c.score) : std::string("-"), note);
  }
  s += fmt::format("score = time per call (measured, else predicted) + setup / {} calls (setup/call); ",
                   expected_calls);
  if (!auto_reason.empty()) s += "auto: " + auto_reason + "; ";
  if (decided_by == "rule")
    s += "ranked by the rule's order for this class of matrix (statistics only)\n";
  else if (decided_by == "model")
    s += "ranked by the performance model's prediction\n";
  else if (decided_by == "cache")
    s += "taken from the tuning cache\n";
  else if (decided_by == "racing")
    s += "the model's top candidates take turns on the first calls, each timed; the fastest is kept\n";
  else if (decided_by == "light")
    s += "the light kernel, with no planning (planning would cost more than it can save)\n";
  else if (decided_by == "raced")
    s += "the fastest of the model's top candidates, timed on the first calls\n";
  else
    s += "the fastest measured of the model's top candidates\n";
  return s;
}

}  // namespace spx::plan
