// The persistent per-rank threads of a distributed product (src/common/worker_group.hpp): every
// index runs exactly once per call and all of them at once, calls follow each other quickly, errors
// come back as the lowest index's, a failed setup is reported by every call, and idle workers sleep.
#include "common/worker_group.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using spx::detail::WorkerGroup;

TEST(WorkerGroup, EveryIndexRunsOncePerCallOnItsOwnThread) {
  WorkerGroup workers(4);
  std::vector<std::atomic<int>> count(4);
  std::vector<std::thread::id> who(4);
  for (int call = 0; call < 2000; ++call)
    workers.run([&](int i) {
      count[static_cast<std::size_t>(i)].fetch_add(1);
      who[static_cast<std::size_t>(i)] = std::this_thread::get_id();
    });
  for (int i = 0; i < 4; ++i) EXPECT_EQ(count[static_cast<std::size_t>(i)].load(), 2000);
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      EXPECT_NE(who[static_cast<std::size_t>(i)], who[static_cast<std::size_t>(j)]);
  EXPECT_NE(who[0], std::this_thread::get_id());
}

// Each index waits until all have arrived: only threads running at the same time get past it.
TEST(WorkerGroup, IndicesRunConcurrently) {
  WorkerGroup workers(3);
  std::atomic<int> arrived{0};
  std::atomic<bool> timed_out{false};
  workers.run([&](int) {
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 3)
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out = true;
        return;
      }
  });
  EXPECT_FALSE(timed_out.load());
}

TEST(WorkerGroup, TheLowestIndexsErrorComesBackAndTheOthersStillRun) {
  WorkerGroup workers(4);
  std::atomic<int> ran{0};
  try {
    workers.run([&](int i) {
      ran.fetch_add(1);
      if (i == 3) throw std::runtime_error("three");
      if (i == 1) throw std::runtime_error("one");
    });
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "one");
  }
  EXPECT_EQ(ran.load(), 4);
  workers.run([&](int) { ran.fetch_add(1); });  // the group works on after an error
  EXPECT_EQ(ran.load(), 8);
}

TEST(WorkerGroup, AFailedSetupIsReportedByEveryCall) {
  WorkerGroup workers(2, [](int i) {
    if (i == 1) throw std::runtime_error("no GPU 1");
  });
  for (int call = 0; call < 2; ++call) EXPECT_THROW(workers.run([](int) {}), std::runtime_error);
}

TEST(WorkerGroup, CallsAfterTheWorkersSleptStillRun) {
  WorkerGroup workers(2);
  std::atomic<int> ran{0};
  workers.run([&](int) { ran.fetch_add(1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the spinning: asleep
  workers.run([&](int) { ran.fetch_add(1); });
  EXPECT_EQ(ran.load(), 4);
}

}  // namespace
