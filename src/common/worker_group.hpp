// A fixed set of persistent threads that run f(i), i = 0 .. n-1, one per thread, on demand: the
// GPUs of a distributed product each get a host thread that enqueues their rank's work (one thread
// for every rank costs ~6 µs a rank per product). A call is a few µs: the workers spin a while on
// the call counter before sleeping, and the caller spins on the count of unfinished workers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace spx::detail {

class WorkerGroup {
 public:
  /// n threads; thread i first runs setup(i) (e.g. selects its GPU).
  explicit WorkerGroup(int n, const std::function<void(int)>& setup = {})
      : errors_(static_cast<std::size_t>(n)), setup_errors_(static_cast<std::size_t>(n)) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this, i, setup] { work(i, setup); });
  }
  ~WorkerGroup() {
    {
      std::lock_guard lock(mutex_);
      stop_.store(true, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
    for (auto& t : threads_) t.join();
  }
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;

  int size() const { return static_cast<int>(threads_.size()); }

  /// f(i) on thread i for every i; returns when all have returned, then rethrows the exception of
  /// the lowest i that threw. Not reentrant: one caller at a time.
  void run(const std::function<void(int)>& f) {
    {
      std::lock_guard lock(mutex_);
      task_ = &f;
      for (auto& e : errors_) e = nullptr;
      pending_.store(size(), std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
    for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < kSpins) continue;
      std::unique_lock lock(mutex_);
      done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    for (const auto& e : errors_)
      if (e) std::rethrow_exception(e);
  }

 private:
  // About 50–100 µs of spinning: longer than the gap between a distributed product's calls, short
  // enough that idle workers soon sleep.
  static constexpr int kSpins = 1 << 15;

  void work(int i, const std::function<void(int)>& setup) {
    const auto I = static_cast<std::size_t>(i);
    try {
      if (setup) setup(i);
    } catch (...) {
      setup_errors_[I] = std::current_exception();  // every run reports it
    }
    uint64_t seen = 0;
    for (;;) {
      uint64_t now = generation_.load(std::memory_order_acquire);
      for (int spin = 0; now == seen && spin < kSpins; ++spin)
        now = generation_.load(std::memory_order_acquire);
      if (now == seen) {
        std::unique_lock lock(mutex_);
        start_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        now = generation_.load(std::memory_order_acquire);
      }
      seen = now;
      if (stop_.load(std::memory_order_acquire)) return;
      if (setup_errors_[I]) {
        errors_[I] = setup_errors_[I];
      } else {
        try {
          (*task_)(i);
        } catch (...) {
          errors_[I] = std::current_exception();
        }
      }
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard lock(mutex_);
        done_.notify_one();
      }
    }
  }

  std::vector<std::thread> threads_;
  std::vector<std::exception_ptr> errors_, setup_errors_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  const std::function<void(int)>* task_ = nullptr;
  std::atomic<bool> stop_{false};
};

}  // namespace spx::detail
