// Milliseconds per call of a distributed product over a team (spx/cuda/dist.hpp): every rank
// records a start event on its compute stream, the product runs `reps` times, every rank records a
// stop event; a round's time is the slowest rank's (stop − start) / reps, and the median of
// `rounds` rounds is returned. A rank's events bracket its waits for the others (NCCL), so the
// slowest rank's span is the product's. Where the team spans processes (one MPI rank each),
// `slowest_of_job` takes a value's maximum over the job: every process then runs the same number
// of products and reports the same time.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "common/median.hpp"
#include "spx/cuda/dist.hpp"
#include "spx/cuda/stream.hpp"

namespace spx::bench {

template <class F>
double time_team(cuda::dist::Team& team, F&& run, double min_seconds, int rounds,
                 const std::function<double(double)>& slowest_of_job = {}) {
  namespace cd = cuda::dist;
  const auto job = [&](double v) { return slowest_of_job ? slowest_of_job(v) : v; };
  run();
  run();
  team.synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  run();
  team.synchronize();
  const double once =
      job(std::max(1e-6, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  const int reps = static_cast<int>(std::clamp(min_seconds / rounds / once, 1.0, 2000.0));
  std::vector<cuda::Event> start, stop;
  const std::vector<int>& members = team.members();
  for (int r : members) {
    cd::DeviceScope scope(team.context(r).device());
    start.emplace_back();
    stop.emplace_back();
  }
  std::vector<double> per_round;
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < members.size(); ++i) {
      cd::DeviceScope scope(team.context(members[i]).device());
      start[i].record(team.context(members[i]).stream());
    }
    for (int i = 0; i < reps; ++i) run();
    for (std::size_t i = 0; i < members.size(); ++i) {
      cd::DeviceScope scope(team.context(members[i]).device());
      stop[i].record(team.context(members[i]).stream());
    }
    team.synchronize();
    double slowest = 0;
    for (std::size_t i = 0; i < members.size(); ++i)
      slowest = std::max(slowest, cuda::elapsed_ms(start[i], stop[i]));
    per_round.push_back(job(slowest) / reps);
  }
  return median(per_round);
}

}  // namespace spx::bench
