// spx::detail::on_threads (src/common/threads.hpp): every index runs once, on its own thread, and
// the lowest failing index's exception comes back after all have finished.
#include "common/threads.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

TEST(OnThreads, EveryIndexOnceOnItsOwnThread) {
  for (int n : {1, 2, 5}) {
    std::vector<int> calls(static_cast<std::size_t>(n), 0);
    std::vector<std::thread::id> ids(static_cast<std::size_t>(n));
    spx::detail::on_threads(n, [&](int i) {
      ++calls[static_cast<std::size_t>(i)];
      ids[static_cast<std::size_t>(i)] = std::this_thread::get_id();
    });
    for (int c : calls) EXPECT_EQ(c, 1);
    if (n == 1) {
      EXPECT_EQ(ids[0], std::this_thread::get_id());
    }
    for (int i = 1; i < n; ++i) EXPECT_NE(ids[static_cast<std::size_t>(i)], ids[0]);
  }
  spx::detail::on_threads(0, [](int) { FAIL() << "no index to run"; });
}

TEST(OnThreads, LowestFailingIndexIsRethrownAfterAllFinish) {
  std::atomic<int> finished{0};
  try {
    spx::detail::on_threads(4, [&](int i) {
      finished.fetch_add(1);
      if (i == 1 || i == 3) throw std::runtime_error("rank " + std::to_string(i));
    });
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "rank 1");
  }
  EXPECT_EQ(finished.load(), 4);
}

}  // namespace
