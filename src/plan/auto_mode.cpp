// Mode::Auto (spx/plan.hpp, decide_auto): rank by the model, or time the model's top candidates
// (racing them on the caller's first calls, or timing them at plan time), whichever the value of the
// timing says. The model is 8-40% off per kernel on unseen matrices
// (docs/model.md) while the best candidates are often closer than that: timing then finds the
// faster one, but costs milliseconds that only many calls repay.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {

namespace {

double error_of(const Candidate& c, const PlannerRuleTable& t) {
  return std::isnan(c.model_error) ? t.auto_unknown_error : c.model_error;
}

}  // namespace

AutoDecision decide_auto(const std::vector<Candidate>& ranked, const Options& o) {
  const PlannerRuleTable& t = default_rule_tables().planner;
  AutoDecision d;
  if (ranked.empty() || !ranked[0].eligible || std::isnan(ranked[0].predicted_us) ||
      !std::isfinite(ranked[0].score)) {
    d.why = "no model prediction for the top candidate: its ranking as it stands";
    return d;
  }
  const Candidate& top = ranked[0];
  const double e_top = error_of(top, t);
  // Contenders: candidates the model cannot tell from the top within the two errors.
  std::vector<const Candidate*> contenders = {&top};
  double overlap = 0;  // the largest overlap of the error bands, as a fraction of the top's score
  for (std::size_t i = 1; i < ranked.size() && static_cast<int>(contenders.size()) < o.measure_top; ++i) {
    const Candidate& c = ranked[i];
    if (!c.eligible || std::isnan(c.predicted_us) || !std::isfinite(c.score)) continue;
    const double e = error_of(c, t);
    if (c.score * (1 - e) >= top.score * (1 + e_top)) continue;
    contenders.push_back(&c);
    overlap = std::max(overlap, (top.score * (1 + e_top) - c.score * (1 - e)) / top.score);
  }
  if (contenders.size() == 1) {
    const Candidate* next = nullptr;
    for (std::size_t i = 1; i < ranked.size() && next == nullptr; ++i)
      if (ranked[i].eligible && std::isfinite(ranked[i].score)) next = &ranked[i];
    d.why = next == nullptr ? "one candidate: nothing to time"
                            : fmt::format(
                                  "the model's gap to {} ({:.0f}%) exceeds its known errors ({:.0f}% + "
                                  "{:.0f}%): ranked by the model",
                                  next->kernel, 100 * (next->score / top.score - 1), 100 * e_top,
                                  100 * error_of(*next, t));
    return d;
  }
  const double calls = static_cast<double>(std::max<int64_t>(o.expected_calls, 1));
  const double gain_us = top.predicted_us * overlap * t.auto_gain_share * calls;
  // Timing at plan time: fixed cost per contender, whatever the calls.
  double measure_us = 0;
  for (const Candidate* c : contenders) {
    measure_us += std::max(t.auto_timing_us, t.auto_timing_runs * c->predicted_us);
    if (c != &top) measure_us += c->setup_us;  // the top's setup is paid either way
  }
  // A race on real calls: as many contenders as get the minimum of samples (plus their untimed
  // first call) within the share of the expected calls, as many samples each as that share allows.
  const auto race_calls = static_cast<int64_t>(std::floor(calls * t.auto_race_share));
  const int64_t per_min = t.auto_race_min_samples + 1;
  const auto racers = static_cast<int>(
      std::min<int64_t>(static_cast<int64_t>(contenders.size()), race_calls / std::max<int64_t>(per_min, 1)));
  int samples = 0;
  double race_us = std::numeric_limits<double>::infinity();
  if (racers >= 2 && !o.deterministic_only) {
    samples = static_cast<int>(std::min<int64_t>(t.auto_race_max_samples, race_calls / racers - 1));
    race_us = 0;
    for (int i = 1; i < racers; ++i)
      race_us += contenders[static_cast<std::size_t>(i)]->setup_us +
                 (samples + 1) * t.auto_race_loss * contenders[static_cast<std::size_t>(i)]->predicted_us;
  }
  const bool race = race_us <= measure_us;
  const double cost_us = race ? race_us : measure_us;
  const int n = race ? racers : static_cast<int>(contenders.size());
  if (gain_us > cost_us) {
    d.race = race;
    d.measure = !race;
    d.time_top = n;
    d.race_samples = race ? samples : 0;
  }
  const std::string how =
      race ? fmt::format("racing the top {} on the first calls ({} timed calls each)", n, samples)
           : fmt::format("timing the top {} now", n);
  d.why = fmt::format(
      "{} candidates within the model's errors of {}; {} costs {:.0f} us, the expected saving over {} calls "
      "is {:.0f} us: {}",
      contenders.size(), top.kernel, how, cost_us, o.expected_calls, gain_us,
      d.race      ? fmt::format("raced the top {}", n)
      : d.measure ? fmt::format("timed the top {}", n)
                  : std::string("ranked by the model"));
  return d;
}

}  // namespace spx::plan
