// The tile bookkeeping of the segmented-sum SpMV (src/cuda/spmv/segsum_partition.hpp), checked on
// the CPU with the functions the plan and product kernels call:
//  * boundary rows and dirty flags against a direct scan of row_ptr;
//  * the clean-tile row speculation (boundary row + rank) against the search used for dirty tiles;
//  * an emulation of the product kernel's algorithm (lane slices, the segmented scan across lanes,
//    carries between tiles, the synchronizer and its fix-up, or row completion instead) with
//    integer products, so sums are exact: every row of y must be written exactly once and hold its
//    row sum.
#include "cuda/spmv/segsum_partition.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "cpu/row_ptr_patterns.hpp"

namespace spx::test {
namespace {

namespace d = cuda::detail;

struct Plan {
  int64_t tile_size, tiles;
  std::vector<int32_t> tile_row;
  std::vector<uint8_t> dirty;
};

Plan make_plan(const std::vector<int32_t>& ptr, int npl) {
  const int64_t rows = static_cast<int64_t>(ptr.size()) - 1, nnz = ptr.back();
  Plan p;
  p.tile_size = d::segsum_tile_size(npl);
  p.tiles = d::segsum_tile_count(nnz, p.tile_size);
  for (int64_t t = 0; t <= p.tiles; ++t)
    p.tile_row.push_back(static_cast<int32_t>(d::segsum_boundary_row(ptr.data(), rows, nnz, p.tile_size, t)));
  for (int64_t t = 0; t < p.tiles; ++t)
    p.dirty.push_back(d::segsum_tile_dirty(ptr.data(), p.tile_row.data(), t, p.tile_size));
  return p;
}

// The product kernel's algorithm, one warp at a time; products are all 1, so y[r] must be the
// length of row r (alpha = 1, beta = 0). writes[r] counts the writes of the tile kernel. With
// row completion (limit >= 0) there is no synchronizer: each warp adds its last row's open tail
// (segsum_open_tail) when it is at most `limit` and the partials of that row in later warps are
// dropped; a longer tail is summed by arrival (the owner's and its partners' partials, added once
// all have stored them). limit < 0: the synchronizer.
void emulate(const std::vector<int32_t>& ptr, int npl, int tiles_per_warp, int64_t limit,
             std::vector<int64_t>& y, std::vector<int>& writes) {
  const bool complete_rows = limit >= 0;
  const int64_t rows = static_cast<int64_t>(ptr.size()) - 1, nnz = ptr.back();
  const Plan plan = make_plan(ptr, npl);
  const int64_t warps = (plan.tiles + tiles_per_warp - 1) / tiles_per_warp;
  y.assign(static_cast<std::size_t>(rows), -1);
  writes.assign(static_cast<std::size_t>(rows), 0);
  std::vector<int32_t> sync_row(static_cast<std::size_t>(warps), -2);
  std::vector<int64_t> sync_value(static_cast<std::size_t>(warps), -1);
  std::vector<int64_t> own_value(static_cast<std::size_t>(warps), -1);  // long-tail owners' partials
  struct Arrival {
    int64_t owner, last;
    int32_t row;
  };
  std::vector<Arrival> long_tails;
  const auto long_head = [&](int64_t w) {
    return complete_rows && d::segsum_head_in_long_tail(ptr.data(), plan.tile_row.data(), w, tiles_per_warp,
                                                        plan.tile_size, nnz, limit);
  };
  const auto to_synchronizer = [&](int64_t w, int64_t v) {
    if (!complete_rows || long_head(w)) sync_value[static_cast<std::size_t>(w)] = v;
  };
  const auto write = [&](int64_t r, int64_t v) {
    ASSERT_GE(r, 0);
    ASSERT_LT(r, rows);
    y[static_cast<std::size_t>(r)] = v;
    ++writes[static_cast<std::size_t>(r)];
  };
  for (int64_t w = 0; w < warps; ++w) {
    int64_t carry = 0;
    int32_t carry_row = -1;
    bool carry_open = false, carry_sync = true;
    for (int64_t t = w * tiles_per_warp; t < std::min<int64_t>((w + 1) * tiles_per_warp, plan.tiles); ++t) {
      const int64_t begin = t * plan.tile_size, end = std::min(begin + plan.tile_size, nnz);
      const bool dirty = plan.dirty[static_cast<std::size_t>(t)] != 0;
      const int32_t r0 = plan.tile_row[static_cast<std::size_t>(t)];
      const d::RowRange range = d::segsum_row_range(plan.tile_row.data(), t);
      std::vector<uint32_t> flags(static_cast<std::size_t>(npl) + 1, 0);
      if (d::segsum_range_wide(range, plan.tile_size)) {
        // Wide tile: a search per position for the flags; its empty rows go to the grid-wide pass.
        EXPECT_TRUE(dirty) << "wide tile " << t;
        for (int64_t q = 0; q < end - begin; ++q) {
          const int64_t r = d::rightmost_row_at_or_before(ptr.data(), range.first, range.last + 1, begin + q);
          if (ptr[static_cast<std::size_t>(r)] == begin + q)
            flags[static_cast<std::size_t>(q >> 5)] |= 1u << (q & 31);
        }
        for (int64_t r = range.first; r <= range.last; ++r) {
          const int64_t off = ptr[static_cast<std::size_t>(r)];
          if (ptr[static_cast<std::size_t>(r) + 1] == off && d::segsum_owns_empty_row(off, t, begin, end))
            write(r, 0);
        }
      } else {
        for (int64_t r = range.first; r <= range.last; ++r) {
          const int64_t off = ptr[static_cast<std::size_t>(r)];
          if (d::segsum_head_in_tile(off, begin, end))
            flags[static_cast<std::size_t>((off - begin) >> 5)] |= 1u << ((off - begin) & 31);
          if (ptr[static_cast<std::size_t>(r) + 1] == off && d::segsum_owns_empty_row(off, t, begin, end)) {
            EXPECT_TRUE(dirty) << "empty row " << r << " in clean tile " << t;
            write(r, 0);
          }
        }
      }
      const bool pos0 = (flags[0] & 1u) != 0;
      if (pos0 && carry_open) {
        if (carry_sync)
          to_synchronizer(w, carry);
        else
          write(carry_row, carry);
      }
      if (pos0) carry = 0, carry_open = false, carry_sync = false;
      if (t == w * tiles_per_warp) sync_row[static_cast<std::size_t>(w)] = pos0 ? -1 : r0;
      // Lane slices.
      struct Lane {
        int64_t head = 0, tail = 0;
        bool seen = false, head_closes = false;
        int32_t seg_row = -1;
      };
      std::vector<Lane> lanes(32);
      int starts = 0;  // exclusive prefix of counted starts
      for (int lane = 0; lane < 32; ++lane) {
        Lane& L = lanes[static_cast<std::size_t>(lane)];
        const int q0 = lane * npl;
        int64_t acc = lane == 0 ? carry : 0;
        for (int j = 0; j < npl; ++j) {
          const int q = q0 + j;
          if ((flags[static_cast<std::size_t>(q >> 5)] >> (q & 31)) & 1u) {
            if (!L.seen) {
              L.head = acc, L.seen = true, L.head_closes = !(lane == 0 && j == 0);
            } else {
              write(L.seg_row, acc);
            }
            if (!(lane == 0 && j == 0)) ++starts;
            const int64_t searched =
                d::rightmost_row_at_or_before(ptr.data(), range.first, range.last + 1, begin + q);
            if (!dirty) {
              EXPECT_EQ(d::segsum_clean_row(r0, starts), searched) << "tile " << t << " pos " << q;
            } else if (L.seg_row >= 0) {
              // The kernel's dirty-tile lookup: a forward step from the lane's previous start.
              EXPECT_EQ(d::segsum_next_start_row(ptr.data(), int64_t{L.seg_row}, range.last + 1, begin + q),
                        searched)
                  << "tile " << t << " pos " << q;
            }
            L.seg_row = static_cast<int32_t>(searched);
            acc = 0;
          }
          acc += begin + q < end ? 1 : 0;
        }
        if (L.seen)
          L.tail = acc;
        else
          L.head = acc;
      }
      // Exclusive segmented scan across lanes, then the closing writes.
      int64_t before = 0;
      int last_starter = -1;
      for (int lane = 0; lane < 32; ++lane) {
        const Lane& L = lanes[static_cast<std::size_t>(lane)];
        if (L.head_closes) {
          const int64_t total = before + L.head;
          if (last_starter >= 0)
            write(lanes[static_cast<std::size_t>(last_starter)].seg_row, total);
          else if (carry_sync)
            to_synchronizer(w, total);
          else
            write(r0, total);
        }
        before = L.seen ? L.tail : before + L.head;
        if (L.seen) last_starter = lane;
      }
      carry = before;
      if (last_starter >= 0) {
        carry_row = lanes[static_cast<std::size_t>(last_starter)].seg_row;
        carry_sync = false;
      } else {
        carry_row = r0;
      }
      carry_open = true;
    }
    if (carry_open && carry_sync) {
      to_synchronizer(w, carry);
    } else if (carry_open) {
      const int64_t last = std::min<int64_t>((w + 1) * tiles_per_warp, plan.tiles) - 1;
      int64_t tail = 0;
      if (complete_rows) {
        tail = d::segsum_open_tail(ptr.data(), plan.tile_row.data(), last, nnz, plan.tile_size);
        if (tail > 0) {
          EXPECT_EQ(carry_row, plan.tile_row[static_cast<std::size_t>(last) + 1]) << "warp " << w;
        }
      }
      if (tail > limit && complete_rows) {
        own_value[static_cast<std::size_t>(w)] = carry;
        const int64_t warp_elems = plan.tile_size * tiles_per_warp;
        long_tails.push_back({w, (ptr[static_cast<std::size_t>(carry_row) + 1] - 1) / warp_elems, carry_row});
      } else {
        write(carry_row, carry + tail);
      }
    }
  }
  if (complete_rows) {
    // The arrivals: the partners are exactly the warps flagged as heads of a long tail.
    std::vector<int> partner(static_cast<std::size_t>(warps), 0);
    for (const Arrival& t : long_tails) {
      int64_t sum = own_value[static_cast<std::size_t>(t.owner)];
      for (int64_t v = t.owner + 1; v <= t.last; ++v) {
        EXPECT_TRUE(long_head(v)) << "warp " << v << " of the long tail of row " << t.row;
        sum += sync_value[static_cast<std::size_t>(v)];
        ++partner[static_cast<std::size_t>(v)];
      }
      write(t.row, sum);
    }
    for (int64_t v = 0; v < warps; ++v)
      EXPECT_EQ(partner[static_cast<std::size_t>(v)], long_head(v) ? 1 : 0) << v;
    return;
  }
  // The synchronizer fix-up: runs of warps opening with the same row, in warp order.
  for (int64_t w = 1; w < warps; ++w) {
    const int32_t r = sync_row[static_cast<std::size_t>(w)];
    ASSERT_NE(r, -2);
    if (r < 0 || sync_row[static_cast<std::size_t>(w) - 1] == r) continue;
    int64_t sum = 0;
    for (int64_t v = w; v < warps && sync_row[static_cast<std::size_t>(v)] == r; ++v)
      sum += sync_value[static_cast<std::size_t>(v)];
    y[static_cast<std::size_t>(r)] += sum;
  }
  if (warps > 0) {
    EXPECT_EQ(sync_row[0], -1);
  }
}

// The synchronizer, and row completion with every tail by arrival (0), short ones inline (32, 512)
// and all inline.
void check(const std::vector<int32_t>& ptr, int npl, int tiles_per_warp) {
  for (int64_t limit : {int64_t{-1}, int64_t{0}, int64_t{32}, int64_t{512}, int64_t{1} << 40}) {
    SCOPED_TRACE(testing::Message() << "rows " << ptr.size() - 1 << " nnz " << ptr.back() << " T " << npl
                                    << " S " << tiles_per_warp << " completion limit " << limit);
    std::vector<int64_t> y;
    std::vector<int> writes;
    emulate(ptr, npl, tiles_per_warp, limit, y, writes);
    for (std::size_t r = 0; r + 1 < ptr.size(); ++r) {
      ASSERT_EQ(writes[r], 1) << "row " << r;
      ASSERT_EQ(y[r], ptr[r + 1] - ptr[r]) << "row " << r;
    }
  }
}

// The plan's bound on the extra work of row completion: the largest open tail over the tiles is
// the longest stretch of a row past the tile its warp ends in, and never more than the longest row.
TEST(SegsumPartition, OpenTailIsTheRowPastTheTileEnd) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const auto ptr =
        random_row_ptr(400, seed % 2 ? 0.3 : 0.0, 1 + static_cast<int>(seed) * 9, seed, {{37, 900}});
    const int64_t nnz = ptr.back();
    const Plan p = make_plan(ptr, 4);
    for (int64_t t = 0; t < p.tiles; ++t) {
      const int64_t end = std::min((t + 1) * p.tile_size, nnz);
      int64_t want = 0;  // the row holding entry end - 1, if it goes on past end
      for (std::size_t r = 0; r + 1 < ptr.size(); ++r)
        if (ptr[r] < end && ptr[r + 1] > end) want = ptr[r + 1] - end;
      EXPECT_EQ(d::segsum_open_tail(ptr.data(), p.tile_row.data(), t, nnz, p.tile_size), want)
          << "tile " << t;
    }
  }
}

TEST(SegsumPartition, BoundaryRowsAndDirtyFlagsMatchAScan) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const auto ptr = random_row_ptr(300, seed % 2 ? 0.3 : 0.0, 1 + static_cast<int>(seed) * 7, seed);
    if (ptr.back() == 0) continue;
    const Plan p = make_plan(ptr, 4);
    for (int64_t t = 0; t < p.tiles; ++t) {
      const int64_t b = t * p.tile_size;
      int64_t r = 0;
      for (std::size_t k = 0; k + 1 < ptr.size(); ++k)
        if (ptr[k] <= b) r = static_cast<int64_t>(k);
      EXPECT_EQ(p.tile_row[static_cast<std::size_t>(t)], r);
      EXPECT_LT(b, ptr[static_cast<std::size_t>(r) + 1]);  // the boundary row holds the entry
    }
    EXPECT_EQ(p.tile_row.back(), static_cast<int32_t>(ptr.size()) - 2);
  }
}

TEST(SegsumPartition, EmulatedKernelWritesEveryRowOnce) {
  for (int npl : {4, 16, 32})
    for (int s : {1, 3, 64})
      for (uint64_t seed = 0; seed < 6; ++seed) {
        check(random_row_ptr(500, 0.0, 40, seed), npl, s);                                 // no empty rows
        check(random_row_ptr(500, 0.4, 5, seed + 100), npl, s);                            // many empty rows
        check(random_row_ptr(200, 0.1, 3, seed + 200, {{7, 5000}, {150, 2000}}), npl, s);  // long rows
      }
}

TEST(SegsumPartition, EdgeShapes) {
  for (int npl : {4, 16})
    for (int s : {1, 2}) {
      check({0, 1}, npl, s);                          // a single nonzero
      check({0, 3000}, npl, s);                       // a single long row
      check({0, 0, 0, 5, 5, 5}, npl, s);              // empty rows around one row
      check({0, 0, 0, 0, 1000, 1000, 1000}, npl, s);  // a long row between empty ones
      std::vector<int32_t> exact{0};                  // rows of exactly one tile each
      for (int r = 0; r < 10; ++r) exact.push_back(exact.back() + 32 * npl);
      check(exact, npl, s);
      std::vector<int32_t> ones{0};  // one nonzero per row: a row start at every position
      for (int r = 0; r < 700; ++r) ones.push_back(r + 1);
      check(ones, npl, s);
      std::vector<int32_t> trailing{0, 2, 4};  // many trailing empty rows
      trailing.resize(2000, 4);
      check(trailing, npl, s);
      std::vector<int32_t> gap{0};  // wide tiles in the middle: runs of 3000 empty rows between rows
      for (int r = 0; r < 4000; ++r) gap.push_back(gap.back() + (r % 1000 == 0 ? 7 : 0) + (r < 100 ? 3 : 0));
      check(gap, npl, s);
    }
}

}  // namespace
}  // namespace spx::test
