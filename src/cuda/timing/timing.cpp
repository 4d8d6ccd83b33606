// Event timing, shared by our kernels and the vendor baselines (docs/cuda-runtime.md, "Timing").
#include "spx/cuda/timing.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "cuda/common/check.hpp"
#include "spx/cuda/context.hpp"

namespace spx::cuda {

EventTimer::EventTimer(Context& ctx) : ctx_(ctx) {}

void EventTimer::start() { start_.record(ctx_.stream()); }
void EventTimer::stop() { stop_.record(ctx_.stream()); }

double EventTimer::elapsed_ms() {
  stop_.synchronize();
  return cuda::elapsed_ms(start_, stop_);
}

namespace {

// A growing set of event pairs, recorded back to back and read after one synchronisation, so a
// batch of timed calls runs without host round trips between them (the gaps a solver loop has).
class EventPairs {
 public:
  void reserve_pairs(std::size_t pairs) {
    while (events_.size() < 2 * pairs) events_.emplace_back();
  }
  const Event& start(std::size_t i) const { return events_[2 * i]; }
  const Event& stop(std::size_t i) const { return events_[2 * i + 1]; }

 private:
  std::vector<Event> events_;
};

}  // namespace

Timing time_kernel(Context& ctx, const std::function<void()>& launch, const TimingOptions& options) {
  for (int i = 0; i < options.warmup; ++i) launch();
  ctx.synchronize();

  const int min_runs = std::max(1, options.min_runs);
  const int max_runs = std::max(min_runs, options.max_runs);
  std::vector<double> times;
  double total_ms = 0;
  EventPairs events;
  std::size_t batch = static_cast<std::size_t>(min_runs);
  while (true) {
    batch = std::min<std::size_t>(batch, static_cast<std::size_t>(max_runs) - times.size());
    events.reserve_pairs(batch);
    for (std::size_t i = 0; i < batch; ++i) {
      if (options.flush_l2) ctx.flush_l2();
      events.start(i).record(ctx.stream());
      launch();
      events.stop(i).record(ctx.stream());
    }
    ctx.synchronize();
    for (std::size_t i = 0; i < batch; ++i) {
      const double ms = elapsed_ms(events.start(i), events.stop(i));
      times.push_back(ms);
      total_ms += ms;
    }
    if (static_cast<int>(times.size()) >= max_runs || total_ms >= 1e3 * options.min_seconds) break;
    // Enough further runs to reach min_seconds at the mean so far (at least as many again,
    // capped at 1024 per batch so events stay few).
    const double mean = std::max(total_ms / static_cast<double>(times.size()), 1e-4);
    const double needed = (1e3 * options.min_seconds - total_ms) / mean;
    batch = static_cast<std::size_t>(std::clamp(needed + 1.0, 1.0, 1024.0));
  }

  return summarize(std::move(times));
}

}  // namespace spx::cuda
