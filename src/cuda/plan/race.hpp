// Mode::Auto's race (plan::decide_auto): the model's top candidates take turns on the caller's first
// calls, each call timed by an event pair read later without waiting, and the fastest is kept. What
// the front door (sparse_matrix.cpp) holds while a plan races.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cuda/plan/executor.hpp"
#include "spx/cuda/stream.hpp"

namespace spx::cuda::detail {

template <class T>
struct Race {
  struct Entry {
    std::string kernel;
    std::unique_ptr<Executor<T>> exec;
    std::vector<double> us;  // timed calls (the untimed first call excluded)
  };
  struct Trial {
    std::size_t entry = 0;
    bool timed = false;  // each entry's first call only warms (lazy module loading, first-call work)
    Event start, stop;
  };
  std::vector<Entry> entries;  // the model's order: entries[0] is its top
  std::vector<Trial> trials;   // in call order: round robin over the entries
  std::size_t launched = 0;    // trials launched so far
  std::size_t read = 0;        // trials whose time was read (in order: one stream)
  bool finished = false;       // the winner moved to the plan; the rest wait to be freed
  // The report's decided_by when no time came back (a graph captured from the first call on): the
  // ranking that ordered the entries.
  std::string untimed_decided_by = "model";

  // `samples` timed calls per entry after one untimed; the events are made here, not per call.
  void schedule(int samples) {
    const std::size_t per = static_cast<std::size_t>(std::max(samples, 1)) + 1;
    trials = std::vector<Trial>(per * entries.size());
    for (std::size_t i = 0; i < trials.size(); ++i) {
      trials[i].entry = i % entries.size();
      trials[i].timed = i >= entries.size();
    }
  }
  bool done() const { return read == trials.size(); }

  // The median of an entry's timed calls; NaN when none was read.
  static double median(std::vector<double> v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    if (v.size() % 2 == 1) return *mid;
    return 0.5 * (*mid + *std::max_element(v.begin(), mid));
  }
  // The entry with the smallest median; entry 0 (the model's top) when nothing was read.
  std::size_t winner() const {
    std::size_t best = 0;
    double best_us = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const double m = median(entries[i].us);
      if (!std::isnan(m) && m < best_us) best = i, best_us = m;
    }
    return best;
  }
};

}  // namespace spx::cuda::detail
