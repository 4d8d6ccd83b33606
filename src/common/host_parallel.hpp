// The host passes over a matrix (statistics, fingerprint, validation, column spans, casts, the
// planner's samples) run on one thread below kMinParallelItems rows or nonzeros: a parallel region
// costs ~10 us, what one core needs for about that many rows of such a pass.
#pragma once

#include <cstdint>
#include <exception>
#include <vector>

namespace spx::detail {

inline constexpr int64_t kMinParallelItems = int64_t{1} << 16;

// f(i, scratch) for i = 0 .. n-1: on the OpenMP threads where `parallel` (each thread with its own
// Scratch, default-constructed once and reused across its items), else on the calling thread. Then
// rethrows the exception of the lowest i that threw: the one a serial loop would have thrown first.
// Results that must not depend on the thread count go to per-item slots, added up in item order.
template <class Scratch, class F>
void for_items_first_error(int64_t n, bool parallel, const F& f) {
  std::vector<std::exception_ptr> failed(static_cast<std::size_t>(n > 0 ? n : 0));
#pragma omp parallel if (parallel)
  {
    Scratch scratch{};
#pragma omp for schedule(dynamic, 1)
    for (int64_t i = 0; i < n; ++i) {
      try {
        f(i, scratch);
      } catch (...) {
        failed[static_cast<std::size_t>(i)] = std::current_exception();
      }
    }
  }
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace spx::detail
