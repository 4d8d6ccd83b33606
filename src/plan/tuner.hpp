// The run-time tuner (Reguly & Giles §6, re-derived for spx's parameter spaces): when products
// repeat on the same matrix, try neighbouring parameters of the planned kernel on real calls, one
// knob at a time, keep a move that is faster by more than the noise, and freeze.
//
// Host logic only: the device side times each configuration with events on a real call and
// reports the time here (src/cuda/plan/sparse_matrix.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spx::plan {

enum class Ladder;  // plan/catalogue.hpp

using Knobs = std::vector<std::pair<std::string, int64_t>>;

// The values one knob may take, in order, and the direction tried first (+1: towards later values).
struct KnobLadder {
  std::string name;
  std::vector<int64_t> values;
  int first_direction = +1;
};

// A configuration tried right after the start, before the ladders: knobs set to a value, or scaled
// from the start's value (snapped to the nearest rung of the knob's ladder). The tuner keeps the
// fastest of the start and its openers (by the same noise rule as a move), then climbs the ladders
// from there.
struct Opener {
  std::vector<std::pair<std::string, int64_t>> set;
  std::vector<std::pair<std::string, double>> scale;
};

// The ladders of a kernel, by its catalogue row (empty: nothing to tune; an unknown kernel too). csr_param:
// block size, coop, repeat (the paper's knobs; the order and the power-of-two block steps re-derived on the
// H100, tuner.cpp); ELLR-T its BS then T; the segmented sum T, S, then BS; the SpMM kernels G, L_c, then BS.
std::vector<KnobLadder> tuning_ladders(const std::string& kernel);  // its catalogue row's ladder
std::vector<KnobLadder> tuning_ladders(Ladder ladder);
// Its openers (csr_param: two, learned from the H100 grids; the others none).
std::vector<Opener> tuning_openers(const std::string& kernel);
std::vector<Opener> tuning_openers(Ladder ladder);

int64_t knob(const Knobs& k, const std::string& name, int64_t fallback);
Knobs with_knob(Knobs k, const std::string& name, int64_t value);
std::string to_string(const Knobs& k);  // "coop=8 block_size=256"

class Tuner {
 public:
  // `start`: the planned configuration (its knobs by the ladders' names). A move is kept when it is
  // faster by more than `min_gain` (a fraction) and by more than `min_gain_us` (one event-timed call
  // of a 5 µs product varies by about 0.3 µs); at most `max_trials` configurations are timed, the
  // start included.
  Tuner(Knobs start, std::vector<KnobLadder> ladders, int max_trials = 12, double min_gain = 0.02,
        double min_gain_us = 0.4, const std::vector<Opener>& openers = {});

  bool frozen() const { return frozen_; }
  const Knobs& next() const { return next_; }  // the configuration to time next (valid until frozen)
  // The time of next() (µs; +inf when the kernel refused the configuration). Moves to the next one.
  void report(double us);
  const Knobs& best() const { return best_; }
  double best_us() const { return best_us_; }
  int trials() const { return trials_; }

 private:
  void advance();  // sets next_ to the next untried neighbour, or freezes
  void turn();     // the other direction, or the next knob
  bool step(Knobs& k) const;
  bool kept(double us) const;  // faster than the best by more than the noise

  std::vector<KnobLadder> ladders_;
  std::vector<Knobs> openers_;  // resolved against the start, in order; consumed from the front
  std::size_t opener_ = 0;      // the next opener to time
  Knobs best_, next_;
  double best_us_;
  int max_trials_;
  double min_gain_;
  double min_gain_us_;
  int trials_ = 0;
  std::size_t dim_ = 0;
  int dir_ = 0;
  bool tried_other_ = false;
  bool frozen_ = false;
};

}  // namespace spx::plan
