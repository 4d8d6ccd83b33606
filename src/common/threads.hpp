// f(i) for i = 0 .. n-1, each on a host thread of its own: the ranks of a distributed matrix are
// split, uploaded and planned side by side (their work is mostly one thread's: allocations zeroed
// by one thread, a serial fingerprint, a GPU of their own).
#pragma once

#include <exception>
#include <thread>
#include <vector>

namespace spx::detail {

// Waits for every call; then rethrows the exception of the lowest i that threw, if any. n = 1
// runs on the calling thread.
template <class F>
void on_threads(int n, F&& f) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n > 0 ? n : 0));
  const auto guarded = [&](int i) {
    try {
      f(i);
    } catch (...) {
      errors[static_cast<std::size_t>(i)] = std::current_exception();
    }
  };
  if (n == 1) {
    guarded(0);
  } else {
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) threads.emplace_back(guarded, i);
    for (auto& t : threads) t.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace spx::detail
