// Timing device work the same way for our kernels and for the vendor libraries.
//
// Method (docs/cuda-runtime.md): CUDA events around each call on the context's stream, warm-up
// calls first (module load, handle creation and lazy allocation stay out of the numbers), then
// at least min_runs calls and at least min_seconds of device time; the median is the headline,
// min and max beside it. Warm = repeated calls on the same inputs, back to back (what a solver
// loop sees and what the papers report). Cold = the L2 is flushed before every call (the flush is
// outside the events); it matters when the working set fits in L2 (50 MB on H100).
#pragma once

#include <cstddef>
#include <functional>

#include "spx/cuda/stream.hpp"
#include "spx/timing.hpp"

namespace spx::cuda {

class Context;

/// Two events on ctx's stream; elapsed_ms() waits for the stop event.
class EventTimer {
 public:
  explicit EventTimer(Context& ctx);
  void start();
  void stop();
  double elapsed_ms();

 private:
  Context& ctx_;
  Event start_;
  Event stop_;
};

struct TimingOptions {
  int warmup = 3;            ///< untimed calls first
  int min_runs = 10;         ///< at least this many timed calls...
  double min_seconds = 0.1;  ///< ...and at least this much summed device time
  int max_runs = 10000;      ///< stop here even if min_seconds is not reached
  bool flush_l2 = false;     ///< cold: ctx.flush_l2() before every timed call
};

/// Times `launch`, which must only enqueue work on ctx.stream() (no host synchronisation inside,
/// or the numbers include it). Each call is bracketed by its own pair of events; the statistics are
/// spx::Timing's (spx/timing.hpp), as the benchmark engine reports them.
Timing time_kernel(Context& ctx, const std::function<void()>& launch, const TimingOptions& options = {});
inline Timing time_kernel(Context& ctx, const std::function<void()>& launch, int warmup, int min_runs,
                          double min_seconds) {
  TimingOptions o;
  o.warmup = warmup;
  o.min_runs = min_runs;
  o.min_seconds = min_seconds;
  return time_kernel(ctx, launch, o);
}

/// The device's achievable bandwidth, measured once per `spx bench` run: a large device-to-device
/// copy, counting bytes read plus bytes written (2 × bytes per copy). Two copies are timed, the
/// driver's cudaMemcpyAsync and a 16-byte-per-thread copy kernel; gbs is the faster of the two.
struct CopyBandwidth {
  std::size_t bytes = 0;  ///< size of one buffer
  double memcpy_gbs = 0;  ///< cudaMemcpyAsync device-to-device
  double kernel_gbs = 0;  ///< spx's vectorised copy kernel
  double gbs = 0;         ///< max of the two: the denominator for "% of copy bandwidth"
  double ms_median = 0;   ///< median time of the faster copy
};
/// bytes == 0: 1 GiB per buffer, or a quarter of free memory when less is free.
CopyBandwidth measure_copy_bandwidth(Context& ctx, std::size_t bytes = 0);

}  // namespace spx::cuda
