// The tile bookkeeping of the balanced CSR SpMM (src/cuda/spmm/csr_tiles.hpp), checked on the CPU
// with the functions the kernel calls: an emulation of spmm_csr_tiles_kernel's assignment (short
// rows to the tile of their start, long-row pieces to every tile they touch, the last piece's sum
// over the partial slots in tile order) must add every nonzero of every row exactly once and write
// every row of C exactly once, on row patterns with empty rows, runs of them, long rows and rows
// exactly one tile long, and on 64-bit offsets past 2^32.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cpu/row_ptr_patterns.hpp"
#include "cuda/spmm/csr_tiles.hpp"

namespace spx::test {
namespace {

namespace d = cuda::detail;

int64_t first_row_by_scan(const std::vector<int32_t>& ptr, int64_t item) {
  const int64_t rows = static_cast<int64_t>(ptr.size()) - 1;
  for (int64_t r = 0; r <= rows; ++r)
    if (r + ptr[r] >= item) return r;
  return rows + 1;
}

// The kernel's assignment, one tile after the other. Every nonzero's product is 1, so row r's sum
// must be its length. Returns per row: the sum written and the number of writes.
struct Emulated {
  std::vector<int64_t> sum;
  std::vector<int> writes;
  int64_t max_rows_per_tile = 0;
  int64_t max_nonzeros_per_tile = 0;
};

template <class P>
Emulated emulate(const std::vector<P>& ptr, int64_t K) {
  const int64_t rows = static_cast<int64_t>(ptr.size()) - 1, nnz = ptr.back() - ptr.front();
  const int64_t tiles = d::spmm_tile_count(rows, nnz, K);
  Emulated e{std::vector<int64_t>(rows, -1), std::vector<int>(rows, 0)};
  std::vector<int64_t> partials(2 * tiles, -1);
  std::vector<int64_t> arrivals(tiles, 0);
  auto piece = [&](int64_t t, int slot, int64_t r) {
    const d::NonzeroRange p = d::spmm_long_row_piece(r, ptr[r], ptr[r + 1], t, K);
    EXPECT_LT(p.begin, p.end) << "tile " << t << " works an empty piece of row " << r;
    partials[2 * t + slot] = p.end - p.begin;
    const d::TileSpan span = d::spmm_long_row_tiles(r, ptr[r], ptr[r + 1], K);
    EXPECT_GE(t, span.first);
    EXPECT_LE(t, span.last);
    const int64_t pieces = span.last - span.first + 1;
    if (++arrivals[span.first] != pieces) return int64_t{0};
    arrivals[span.first] = 0;
    int64_t sum = 0;
    for (int64_t q = 0; q < pieces; ++q) {
      const int64_t slot_index = d::spmm_piece_slot(span.first, q);
      EXPECT_GE(partials[slot_index], 0) << "row " << r << " piece " << q << " not stored";
      sum += partials[slot_index];
    }
    e.sum[r] = sum;
    ++e.writes[r];
    return p.end - p.begin;
  };
  for (int64_t t = 0; t < tiles; ++t) {
    const d::TileRows tr = d::spmm_tile_rows(d::spmm_first_row_from(ptr.data(), rows, t * K),
                                             d::spmm_first_row_from(ptr.data(), rows, (t + 1) * K), rows);
    int64_t nonzeros = 0;
    for (int64_t r = tr.begin; r < tr.end; ++r) {
      const int64_t len = ptr[r + 1] - ptr[r];
      if (d::spmm_row_is_long(len, K)) {
        EXPECT_EQ(r, tr.end - 1) << "a long row that is not the tile's last start, tile " << t;
        continue;
      }
      e.sum[r] = len;
      ++e.writes[r];
      nonzeros += len;
    }
    if (tr.begin > 0) {
      const int64_t r = tr.begin - 1;
      if (d::spmm_row_is_long(ptr[r + 1] - ptr[r], K) && r + ptr[r + 1] > t * K) piece(t, 0, r);
    }
    if (tr.end > tr.begin) {
      const int64_t r = tr.end - 1;
      if (d::spmm_row_is_long(ptr[r + 1] - ptr[r], K)) piece(t, 1, r);
    }
    e.max_rows_per_tile = std::max(e.max_rows_per_tile, tr.end - tr.begin);
    e.max_nonzeros_per_tile = std::max(e.max_nonzeros_per_tile, nonzeros);
  }
  for (int64_t t = 0; t < tiles; ++t)
    EXPECT_EQ(arrivals[t], 0) << "counter of tile " << t << " left non-zero";
  return e;
}

template <class P>
void expect_every_row_once(const std::vector<P>& ptr, int64_t K) {
  SCOPED_TRACE(::testing::Message() << "rows " << ptr.size() - 1 << " nnz " << ptr.back() << " K " << K);
  const Emulated e = emulate(ptr, K);
  for (std::size_t r = 0; r + 1 < ptr.size(); ++r) {
    ASSERT_EQ(e.writes[r], 1) << "row " << r;
    ASSERT_EQ(e.sum[r], ptr[r + 1] - ptr[r]) << "row " << r;
  }
  // Bounded work per tile: at most K rows start in it, and its short rows hold fewer than 2K nonzeros.
  EXPECT_LE(e.max_rows_per_tile, K);
  EXPECT_LT(e.max_nonzeros_per_tile, 2 * K);
}

TEST(SpmmTiles, FirstRowFromMatchesAScan) {
  const auto ptr = random_row_ptr(500, 0.3, 40, 1, {{7, 300}, {8, 0}, {9, 0}});
  const int64_t rows = static_cast<int64_t>(ptr.size()) - 1;
  for (int64_t item = 0; item <= rows + ptr.back() + 3; ++item)
    ASSERT_EQ(d::spmm_first_row_from(ptr.data(), rows, item), first_row_by_scan(ptr, item))
        << "item " << item;
}

TEST(SpmmTiles, EveryRowOnceOnRandomPatterns) {
  for (int64_t K : {32, 64, 256, 2048})
    for (uint64_t seed = 1; seed <= 4; ++seed) expect_every_row_once(random_row_ptr(3001, 0.2, 70, seed), K);
}

TEST(SpmmTiles, LongRowsOfEveryLengthAroundTheTile) {
  const int64_t K = 32;
  for (int len : {31, 32, 33, 63, 64, 65, 96, 97, 1000})
    for (int32_t at : {0, 1, 17, 99})
      expect_every_row_once(
          random_row_ptr(100, 0.1, 5, 7 + at, {{at, len}, {at + 1 < 100 ? at + 1 : 0, len}}), K);
}

TEST(SpmmTiles, EmptyRowsEverywhere) {
  const int64_t K = 32;
  expect_every_row_once(random_row_ptr(1000, 1.0, 1, 3), K);                               // all empty
  expect_every_row_once(random_row_ptr(1, 0.0, 1, 3, {{0, 5000}}), K);                     // one long row
  expect_every_row_once(random_row_ptr(5000, 1.0, 1, 3, {{0, 200}}), K);                   // then 4999 empty
  expect_every_row_once(random_row_ptr(5000, 1.0, 1, 3, {{4999, 200}}), K);                // 4999 empty first
  expect_every_row_once(random_row_ptr(5000, 0.99, 3, 4, {{2500, 9000}, {2501, 40}}), K);  // mostly empty
  expect_every_row_once(random_row_ptr(3, 0.0, 1, 3, {{0, 0}, {1, 33}, {2, 0}}), K);
}

// 64-bit row offsets (WideDeviceCsr): items and nonzeros past 2^31, rows longer than 2^31 - 1
// nonzeros cut into pieces, first-row searches with keys past 32 bits. Only the offsets are stored
// (a few thousand rows), so the 5e9 nonzeros cost nothing here.
TEST(SpmmTiles, EveryRowOnceOnSixtyFourBitOffsets) {
  constexpr int64_t kBig = (int64_t{1} << 31) + 3;  // one row past int32 on its own
  const std::vector<int64_t> lengths = {5, 3'000'000'000, 0, 7, kBig, 1, 0, 1 << 20, 2};
  std::vector<int64_t> ptr = {0};
  for (int64_t len : lengths) ptr.push_back(ptr.back() + len);
  ASSERT_GT(ptr.back(), int64_t{1} << 32);
  for (int64_t K : {int64_t{1} << 26, int64_t{1} << 30, (int64_t{1} << 31) + 1})
    expect_every_row_once(ptr, K);
  // Then 3000 short and empty rows: tiles whose rows all start past 2^32 find them by the search.
  for (int64_t r = 0; r < 3000; ++r) ptr.push_back(ptr.back() + r % 4);
  expect_every_row_once(ptr, int64_t{1} << 26);
  expect_every_row_once(ptr, 1024);
}

}  // namespace
}  // namespace spx::test
