// The bookkeeping of the GPU COO SpMV (src/cuda/spmv/coo_chunks.hpp), emulated on the CPU with the
// same functions the kernels call: over random sorted row arrays (empty rows, rows spanning many
// chunks, rows starting exactly at chunk boundaries) every non-empty row must be produced exactly
// once — written directly by one chunk or assembled once by the fix-up from all its partials —
// and every empty row scaled exactly once. Integer values make the sums exact.
#include "cuda/spmv/coo_chunks.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace spx::test {
namespace {

namespace d = cuda::detail;

// Sorted row indices of `rows` rows: each row empty with probability p_empty, else 1..max_len long,
// plus optional very long rows.
std::vector<int32_t> random_rows(int32_t rows, double p_empty, int max_len, uint64_t seed,
                                 const std::vector<std::pair<int32_t, int>>& long_rows = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<int> len(1, max_len);
  std::vector<int32_t> out;
  for (int32_t r = 0; r < rows; ++r) {
    int n = coin(rng) < p_empty ? 0 : len(rng);
    for (const auto& [row, length] : long_rows)
      if (row == r) n = length;
    out.insert(out.end(), static_cast<std::size_t>(n), r);
  }
  return out;
}

// Runs the chunk and fix-up bookkeeping of coo.cu over row_idx and checks the outcome row by row.
void check_bookkeeping(const std::vector<int32_t>& row_idx, int32_t rows, int64_t per_chunk,
                       const std::string& what) {
  SCOPED_TRACE(what + ", " + std::to_string(per_chunk) + " nonzeros per chunk");
  const auto nnz = static_cast<int64_t>(row_idx.size());
  const int64_t chunks = d::coo_chunk_count(nnz, per_chunk);
  std::vector<int64_t> want(static_cast<std::size_t>(rows), 0), got(want.size(), 0);
  std::vector<int> writes(want.size(), 0), scaled(want.size(), 0);
  for (int64_t i = 0; i < nnz; ++i) want[static_cast<std::size_t>(row_idx[i])] += i + 1;  // value of entry i

  std::vector<int32_t> head_row(static_cast<std::size_t>(chunks)), tail_row(head_row.size());
  std::vector<int64_t> head_value(head_row.size(), 0), tail_value(head_row.size(), 0);
  std::vector<int> head_set(head_row.size(), 0), tail_set(head_row.size(), 0);
  for (int64_t c = 0; c < chunks; ++c) {
    const auto range = d::coo_chunk(c, nnz, per_chunk);
    ASSERT_LT(range.begin, range.end);
    ASSERT_EQ(range.begin, c * per_chunk);
    const auto ends = d::chunk_ends(row_idx.data(), nnz, range);
    const auto cs = static_cast<std::size_t>(c);
    head_row[cs] = d::head_slot_row(ends);
    tail_row[cs] = d::tail_slot_row(ends);
    // The runs of equal rows inside the chunk, as the warp's segmented scan finds them.
    for (int64_t i = range.begin; i < range.end;) {
      const int32_t r = row_idx[static_cast<std::size_t>(i)];
      int64_t sum = 0;
      for (; i < range.end && row_idx[static_cast<std::size_t>(i)] == r; ++i) sum += i + 1;
      switch (d::classify_segment(r, ends)) {
        case d::SegmentKind::Complete:
          got[static_cast<std::size_t>(r)] += sum;
          ++writes[static_cast<std::size_t>(r)];
          break;
        case d::SegmentKind::HeadPartial:
          ASSERT_EQ(head_row[cs], r) << "chunk " << c;
          head_value[cs] = sum;
          ++head_set[cs];
          break;
        case d::SegmentKind::TailPartial:
          ASSERT_EQ(tail_row[cs], r) << "chunk " << c;
          tail_value[cs] = sum;
          ++tail_set[cs];
          break;
      }
    }
    ASSERT_EQ(head_set[cs], head_row[cs] >= 0 ? 1 : 0) << "chunk " << c;
    ASSERT_EQ(tail_set[cs], tail_row[cs] >= 0 ? 1 : 0) << "chunk " << c;
    // Empty rows: each run is scaled by the nonzero after it; the trailing ones by the last chunk.
    for (int64_t i = range.begin; i < range.end; ++i) {
      const int32_t previous = i > 0 ? row_idx[static_cast<std::size_t>(i - 1)] : -1;
      const int32_t r = row_idx[static_cast<std::size_t>(i)];
      if (d::has_gap_before(previous, r))
        for (int32_t g = previous + 1; g < r; ++g) ++scaled[static_cast<std::size_t>(g)];
    }
    if (range.end == nnz)
      for (int32_t g = ends.last_row + 1; g < rows; ++g) ++scaled[static_cast<std::size_t>(g)];
  }

  // The fix-up: one run per filled tail slot, over the head slots that follow it.
  std::vector<int> head_used(head_row.size(), 0);
  for (int64_t c = 0; c < chunks; ++c) {
    const int32_t r = tail_row[static_cast<std::size_t>(c)];
    if (r < 0) continue;
    int64_t sum = tail_value[static_cast<std::size_t>(c)];
    const int64_t end = d::run_end(head_row.data(), chunks, c, r);
    for (int64_t h = c + 1; h < end; ++h) {
      sum += head_value[static_cast<std::size_t>(h)];
      ++head_used[static_cast<std::size_t>(h)];
    }
    got[static_cast<std::size_t>(r)] += sum;
    ++writes[static_cast<std::size_t>(r)];
  }
  for (int64_t c = 0; c < chunks; ++c)
    ASSERT_EQ(head_used[static_cast<std::size_t>(c)], head_row[static_cast<std::size_t>(c)] >= 0 ? 1 : 0)
        << "head slot of chunk " << c << " used " << head_used[static_cast<std::size_t>(c)] << " times";

  for (int32_t r = 0; r < rows; ++r) {
    const auto rs = static_cast<std::size_t>(r);
    if (want[rs] != 0) {
      ASSERT_EQ(writes[rs], 1) << "row " << r;
      ASSERT_EQ(scaled[rs], 0) << "row " << r;
      ASSERT_EQ(got[rs], want[rs]) << "row " << r;
    } else {
      ASSERT_EQ(writes[rs], 0) << "empty row " << r;
      ASSERT_EQ(scaled[rs], 1) << "empty row " << r;
    }
  }
}

TEST(CooChunks, EveryRowIsProducedExactlyOnce) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (int64_t per_chunk : {32, 64, 256}) {
    check_bookkeeping(random_rows(1000, 0.1, 20, seed), 1000, per_chunk, "rows of 0..20");
    check_bookkeeping(random_rows(3001, 0.6, 3, seed + 1), 3001, per_chunk, "mostly empty rows");
    check_bookkeeping(random_rows(500, 0.2, 8, seed + 2, {{7, 5000}, {8, 33}, {400, 1000}}), 500, per_chunk,
                      "long rows");
    check_bookkeeping(random_rows(1, 0.0, 1, seed + 3, {{0, 4099}}), 1, per_chunk, "1 dense row");
    check_bookkeeping(random_rows(77, 0.0, 1, seed + 4), 77, per_chunk, "rows of 1");
    check_bookkeeping(random_rows(2000, 1.0, 1, seed + 5, {{1999, 3}}), 2000, per_chunk, "only the last row");
    check_bookkeeping(random_rows(2000, 1.0, 1, seed + 6, {{0, 3}}), 2000, per_chunk, "only the first row");
  }
}

TEST(CooChunks, RowsAlignedWithChunkBoundaries) {
  // Rows of exactly 32 or 64 entries start and end on chunk boundaries: no partials at all, or
  // rows that start exactly at a boundary and span several chunks (tail slot, then heads).
  std::vector<int32_t> rows32, mixed;
  for (int32_t r = 0; r < 50; ++r) rows32.insert(rows32.end(), 32, r);
  for (int32_t r = 0; r < 20; ++r) mixed.insert(mixed.end(), r % 3 == 0 ? 96 : 32, r);
  for (int64_t per_chunk : {32, 64, 128}) {
    check_bookkeeping(rows32, 50, per_chunk, "rows of 32");
    check_bookkeeping(mixed, 20, per_chunk, "rows of 32 and 96");
  }
}

TEST(CooChunks, ChunkRangesCoverTheNonzeros) {
  EXPECT_EQ(d::coo_chunk_count(0, 256), 0);
  EXPECT_EQ(d::coo_chunk_count(1, 256), 1);
  EXPECT_EQ(d::coo_chunk_count(256, 256), 1);
  EXPECT_EQ(d::coo_chunk_count(257, 256), 2);
  const auto last = d::coo_chunk(1, 257, 256);
  EXPECT_EQ(last.begin, 256);
  EXPECT_EQ(last.end, 257);
  const auto past = d::coo_chunk(5, 257, 256);
  EXPECT_EQ(past.begin, past.end);
  // Near the int32 limit the 64-bit arithmetic does not wrap.
  const int64_t big = int64_t{2147483647};
  const auto tail = d::coo_chunk(d::coo_chunk_count(big, 256) - 1, big, 256);
  EXPECT_EQ(tail.end, big);
  EXPECT_GT(tail.begin, big - 256);
}

TEST(CooChunks, RowOfEntryFindsTheRowSkippingEmptyOnes) {
  // ptr of rows with lengths 2, 0, 0, 3, 0, 1.
  const std::vector<int32_t> ptr = {0, 2, 2, 2, 5, 5, 6};
  const std::vector<int64_t> want = {0, 0, 3, 3, 3, 5};
  for (int64_t t = 0; t < 6; ++t)
    EXPECT_EQ(d::row_of_entry(ptr.data(), 6, t), want[static_cast<std::size_t>(t)]);
  // Brute force on random lengths.
  std::mt19937_64 rng(fresh_seed());
  std::uniform_int_distribution<int> len(0, 4);
  std::vector<int32_t> p = {0};
  for (int r = 0; r < 500; ++r) p.push_back(p.back() + len(rng));
  for (int64_t t = 0; t < p.back(); ++t) {
    int64_t r = 0;
    while (p[static_cast<std::size_t>(r + 1)] <= t) ++r;
    ASSERT_EQ(d::row_of_entry(p.data(), 500, t), r) << "entry " << t;
  }
}

}  // namespace
}  // namespace spx::test
