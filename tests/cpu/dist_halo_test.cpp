// The local/remote split and the halo pattern: the parts rebuild A exactly, each rank's halo is
// exactly the remote columns its rows touch (no duplicates, none missing), and every message sends
// entries the sender owns to a contiguous, non-overlapping place in the receiver's halo.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cpu_kernel_bounds.hpp"
#include "spx/cg.hpp"
#include "spx/dist.hpp"
#include "spx/generate.hpp"
#include "test_support.hpp"

namespace {

template <class T, class I>
void expect_exact_pattern(const spx::Csr<T, I>& A, const spx::dist::DistMatrix<T>& D,
                          int64_t slice_nnz = spx::dist::kMaxSliceNnz) {
  const int k = D.ranks();
  ASSERT_EQ(static_cast<int>(D.parts.size()), k);
  std::map<std::pair<int64_t, int64_t>, T> rebuilt;
  for (const auto& p : D.parts) {
    SCOPED_TRACE("rank " + std::to_string(p.rank) + " of " + std::to_string(k));
    // The local slices: consecutive, covering every row, none above slice_nnz but a single row.
    ASSERT_FALSE(p.local.empty());
    int64_t next = 0;
    for (const auto& slice : p.local) {
      slice.A.validate();
      EXPECT_EQ(slice.row_begin, next);
      EXPECT_EQ(slice.A.cols, p.col_end - p.col_begin);
      EXPECT_TRUE(slice.A.nnz() <= slice_nnz || slice.A.rows == 1) << slice.A.nnz() << " nonzeros";
      EXPECT_TRUE(slice.A.rows > 0 || p.local.size() == 1);
      next += slice.A.rows;
    }
    ASSERT_EQ(next, p.row_end - p.row_begin);
    // Greedy cuts at the equal share: a slice and the next one's first row together exceed it.
    const int64_t slices = std::max<int64_t>(1, (p.local_nnz() + slice_nnz - 1) / slice_nnz);
    const int64_t share = (p.local_nnz() + slices - 1) / slices;
    for (std::size_t s = 0; s + 1 < p.local.size(); ++s)
      EXPECT_GT(p.local[s].A.nnz() + p.local[s + 1].A.row_length(0), share);
    p.remote.validate();
    ASSERT_EQ(p.remote.rows, p.row_end - p.row_begin);
    ASSERT_EQ(static_cast<std::size_t>(p.remote.cols), p.halo_global.size());
    // The halo: exactly the columns outside [col_begin, col_end) that the rank's rows touch.
    std::set<int64_t> needed;
    for (int64_t r = p.row_begin; r < p.row_end; ++r)
      for (I q = A.row_ptr[r]; q < A.row_ptr[r + 1]; ++q)
        if (A.col_idx[q] < p.col_begin || A.col_idx[q] >= p.col_end) needed.insert(A.col_idx[q]);
    EXPECT_EQ(std::vector<int64_t>(needed.begin(), needed.end()), p.halo_global);
    for (const auto& slice : p.local)
      for (int32_t r = 0; r < slice.A.rows; ++r)
        for (int32_t q = slice.A.row_ptr[r]; q < slice.A.row_ptr[r + 1]; ++q)
          ASSERT_TRUE(
              rebuilt
                  .emplace(std::pair{p.row_begin + slice.row_begin + r, p.col_begin + slice.A.col_idx[q]},
                           slice.A.values[q])
                  .second);
    for (int32_t r = 0; r < p.remote.rows; ++r) {
      for (int32_t q = p.remote.row_ptr[r]; q < p.remote.row_ptr[r + 1]; ++q)
        ASSERT_TRUE(
            rebuilt
                .emplace(std::pair{p.row_begin + r, p.halo_global[p.remote.col_idx[q]]}, p.remote.values[q])
                .second);
    }
  }
  ASSERT_EQ(rebuilt.size(), static_cast<std::size_t>(A.nnz()));
  for (I r = 0; r < A.rows; ++r)
    for (I q = A.row_ptr[r]; q < A.row_ptr[r + 1]; ++q) {
      const auto it = rebuilt.find({r, A.col_idx[q]});
      ASSERT_NE(it, rebuilt.end()) << "A(" << r << "," << A.col_idx[q] << ") lost";
      EXPECT_EQ(it->second, A.values[q]);
    }
  // Messages: one per ordered pair at most, never to oneself, never empty; together they fill each
  // halo exactly once with the entries the sender owns.
  std::set<std::pair<int, int>> pairs;
  std::vector<std::vector<int>> filled(static_cast<std::size_t>(k));
  for (const auto& p : D.parts) filled[p.rank].assign(p.halo_global.size(), 0);
  for (const auto& m : D.messages) {
    SCOPED_TRACE("message " + std::to_string(m.from) + " -> " + std::to_string(m.to));
    EXPECT_NE(m.from, m.to);
    EXPECT_GT(m.count(), 0);
    EXPECT_TRUE(pairs.insert({m.to, m.from}).second) << "two messages for one pair";
    const auto& to = D.parts[m.to];
    const auto& from = D.parts[m.from];
    for (int32_t i = 0; i < m.count(); ++i) {
      const int64_t global = from.col_begin + m.send_local[i];
      ASSERT_GE(m.send_local[i], 0);
      ASSERT_LT(global, from.col_end) << "sender does not own it";
      const auto slot = static_cast<std::size_t>(m.recv_offset + i);
      ASSERT_LT(slot, to.halo_global.size());
      EXPECT_EQ(to.halo_global[slot], global);
      ++filled[m.to][slot];
    }
  }
  EXPECT_TRUE(std::is_sorted(pairs.begin(), pairs.end()));
  for (int r = 0; r < k; ++r)
    for (std::size_t h = 0; h < filled[r].size(); ++h)
      EXPECT_EQ(filled[r][h], 1) << "rank " << r << " halo slot " << h;
  // Statistics agree with the pattern.
  const auto s = spx::dist::statistics(D);
  int64_t halo = 0, nnz = 0;
  for (const auto& p : D.parts)
    halo += static_cast<int64_t>(p.halo_global.size()), nnz += p.local_nnz() + p.remote.nnz();
  EXPECT_EQ(s.halo_entries, halo);
  EXPECT_EQ(s.nnz, nnz);
  EXPECT_EQ(s.bytes_f64, 8 * halo);
  EXPECT_EQ(s.bytes_f32, 4 * halo);
  EXPECT_EQ(s.messages, static_cast<int>(D.messages.size()));
  EXPECT_GE(s.nnz_imbalance, 1.0 - 1e-12);
}

TEST(DistHalo, RandomSquareAndRectangular) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (auto [rows, cols] : {std::pair{1, 1}, {9, 9}, {97, 97}, {301, 53}, {53, 301}, {1003, 1003}}) {
    const auto A = spx::test::random_csr<double, int32_t>(rows, cols, 0, 13,
                                                          seed + static_cast<uint64_t>(rows * cols), 0.3);
    for (int k = 1; k <= std::min(7, rows); ++k) {
      SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", k " + std::to_string(k));
      expect_exact_pattern(A, spx::dist::distribute(A, k));
    }
  }
}

TEST(DistHalo, GeneratedStructuresAndInt64Indices) {
  const auto st = spx::gen::generate<float, int32_t>("stencil27:n=11");
  const auto pl = spx::gen::power_law<float, int64_t>(2001, 8.0, 1.5, 3);
  for (int k = 1; k <= 7; ++k) {
    expect_exact_pattern(st, spx::dist::distribute(st, k));
    expect_exact_pattern(pl, spx::dist::distribute(pl, k));
  }
}

TEST(DistHalo, StencilHaloIsTheNeighbouringPlanes) {
  // stencil27 on n^3 split by hand into k = n slabs of one z-plane each: a middle rank needs the planes
  // above and below it, 2 n^2 entries from 2 neighbours.
  const int n = 9;
  const auto A = spx::gen::stencil_3d_27pt<double, int32_t>(n, n, n);
  spx::dist::Partition planes;
  for (int z = 0; z <= n; ++z) planes.begin.push_back(int64_t{z} * n * n);
  const auto D = spx::dist::distribute(A, planes, planes);
  const auto s = spx::dist::statistics(D);
  EXPECT_EQ(s.per_rank[4].rows, n * n);
  EXPECT_EQ(s.per_rank[4].halo_recv, 2 * n * n);
  EXPECT_EQ(s.per_rank[4].neighbours_recv, 2);
  EXPECT_EQ(s.per_rank[0].halo_recv, n * n);
  EXPECT_EQ(s.halo_entries, 2 * (n - 1) * n * n);
}

// Building the parts block by block from stencil_rows gives exactly the parts of the whole matrix.
TEST(DistHalo, BlocksOfRowsGiveTheSameParts) {
  for (int points : {5, 7, 27}) {
    const int64_t nx = 13, ny = 7, nz = points == 5 ? 1 : 5;
    const auto A = points == 5   ? spx::gen::stencil_2d_5pt<double, int32_t>(13, 7)
                   : points == 7 ? spx::gen::stencil_3d_7pt<double, int32_t>(13, 7, 5)
                                 : spx::gen::stencil_3d_27pt<double, int32_t>(13, 7, 5);
    for (int k : {1, 2, 3, 7}) {
      SCOPED_TRACE(std::to_string(points) + " points, k " + std::to_string(k));
      const auto rows = spx::dist::partition_even(A.rows, k);
      const auto whole = spx::dist::distribute(A, rows, rows);
      const auto blocks = spx::dist::distribute_blocks<double>(
          A.rows, A.cols, rows, rows,
          [&](int64_t b, int64_t e) { return spx::gen::stencil_rows<double>(points, nx, ny, nz, b, e); });
      expect_exact_pattern(A, blocks);
      ASSERT_EQ(blocks.parts.size(), whole.parts.size());
      for (std::size_t r = 0; r < whole.parts.size(); ++r) {
        ASSERT_EQ(blocks.parts[r].local.size(), 1u);
        EXPECT_EQ(blocks.parts[r].local[0].A.col_idx, whole.parts[r].local[0].A.col_idx);
        EXPECT_EQ(blocks.parts[r].local[0].A.values, whole.parts[r].local[0].A.values);
        EXPECT_EQ(blocks.parts[r].remote.col_idx, whole.parts[r].remote.col_idx);
        EXPECT_EQ(blocks.parts[r].halo_global, whole.parts[r].halo_global);
      }
      EXPECT_EQ(blocks.messages.size(), whole.messages.size());
    }
  }
  // A large stencil split in parallel (the threaded passes) against the serial whole-matrix split.
  const auto big = spx::gen::stencil_3d_27pt<float, int32_t>(40, 41, 42);
  const auto rows = spx::dist::partition_rows(big, 3);
  const auto blocks = spx::dist::distribute_blocks<float>(
      big.rows, big.cols, rows, rows,
      [](int64_t b, int64_t e) { return spx::gen::stencil_rows<float>(27, 40, 41, 42, b, e); });
  expect_exact_pattern(big, blocks);
}

// A rank's local part cut into slices (what a rank holding more than int32_t indexes gets, here
// with small limits): the same entries, the same products, the same Jacobi diagonal.
TEST(DistHalo, LocalSlices) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  auto A = spx::test::random_csr<double, int32_t>(403, 403, 0, 17, seed, 0.3);
  A.col_idx.clear(), A.values.clear();  // with an empty row and one long row among random ones
  {
    auto B = spx::test::random_csr<double, int32_t>(403, 403, 0, 17, seed, 0.3);
    std::vector<std::map<int32_t, double>> rows(403);
    for (int32_t r = 0; r < 403; ++r)
      for (int32_t q = B.row_ptr[r]; q < B.row_ptr[r + 1]; ++q) rows[r][B.col_idx[q]] = B.values[q];
    rows[100].clear();
    for (int32_t c = 0; c < 403; c += 2) rows[200][c] = 0.5;
    for (int32_t r = 0; r < 403; ++r) {
      if (r != 100) rows[r][r] = 50.0;  // a positive diagonal (row 100 stays empty)
      for (const auto& [c, v] : rows[r]) A.col_idx.push_back(c), A.values.push_back(v);
      A.row_ptr[r + 1] = static_cast<int32_t>(A.col_idx.size());
    }
  }
  const std::vector<double> x = spx::test::random_vector<double>(403, seed + 1);
  const auto one = spx::dist::distribute(A, 3);
  const std::vector<double> want = spx::dist::simulated_spmv(one, std::span<const double>(x));
  for (int64_t limit : {int64_t{1}, int64_t{30}, int64_t{450}}) {
    for (int k : {1, 2, 3, 5}) {
      SCOPED_TRACE("slices of " + std::to_string(limit) + ", k " + std::to_string(k));
      const auto rows = spx::dist::partition_rows(A, k);
      const auto D = spx::dist::distribute(A, rows, rows, limit);
      expect_exact_pattern(A, D, limit);
      if (k == 1) {
        EXPECT_GT(D.parts[0].local.size(), 1u);
      }
      const std::vector<double> got =
          spx::dist::simulated_spmv(D, std::span<const double>(x), spx::dist::Kernels::Reference);
      for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-12 * (1 + std::abs(want[i])));
      spx::Dense<double> B(403, 3, spx::Layout::ColMajor), C(403, 3, spx::Layout::RowMajor, 7.0);
      for (int64_t i = 0; i < 403; ++i)
        for (int64_t j = 0; j < 3; ++j) B(i, j) = x[static_cast<std::size_t>((i * 3 + j) % 403)];
      spx::Dense<double> C1 = C;
      spx::dist::simulated_spmm(D, B, C);
      spx::dist::simulated_spmm(one, B, C1);
      for (std::size_t i = 0; i < C.data.size(); ++i)
        EXPECT_NEAR(C.data[i], C1.data[i], 1e-12 * (1 + std::abs(C1.data[i])));
      // The diagonal, slice by slice, is the whole matrix's (row 100 has none: named by its row).
      for (const auto& p : D.parts)
        for (const auto& slice : p.local) {
          const int64_t first = p.row_begin + slice.row_begin;
          if (first <= 100 && 100 < first + slice.A.rows) {
            spx::test::expect_error([&] { spx::inverse_diagonal(slice.A, slice.row_begin); },
                                    "row " + std::to_string(100 - p.row_begin) + " has diagonal 0");
            continue;
          }
          const std::vector<double> d = spx::inverse_diagonal(slice.A, slice.row_begin);
          ASSERT_EQ(d.size(), static_cast<std::size_t>(slice.A.rows));
          for (int32_t i = 0; i < slice.A.rows; ++i) EXPECT_EQ(d[static_cast<std::size_t>(i)], 1.0 / 50.0);
        }
    }
  }
  // Block by block, with slices, equals the whole-matrix split with the same slices.
  const auto st = spx::gen::stencil_3d_27pt<double, int32_t>(13, 7, 5);
  const auto rows = spx::dist::partition_even(st.rows, 3);
  const auto whole = spx::dist::distribute(st, rows, rows, 200);
  const auto blocks = spx::dist::distribute_blocks<double>(
      st.rows, st.cols, rows, rows,
      [](int64_t b, int64_t e) { return spx::gen::stencil_rows<double>(27, 13, 7, 5, b, e); }, 200);
  expect_exact_pattern(st, blocks, 200);
  for (std::size_t r = 0; r < 3; ++r) {
    ASSERT_EQ(blocks.parts[r].local.size(), whole.parts[r].local.size());
    for (std::size_t s = 0; s < whole.parts[r].local.size(); ++s)
      EXPECT_EQ(blocks.parts[r].local[s].A.col_idx, whole.parts[r].local[s].A.col_idx);
  }
  spx::test::expect_error([&] { spx::dist::distribute(st, rows, rows, 0); }, "slices of 0 nonzeros");
  spx::test::expect_error([&] { spx::dist::distribute(st, rows, rows, spx::dist::kMaxSliceNnz + 1); },
                          "give 1 .. 2147483647");
  spx::test::expect_error([&] { spx::inverse_diagonal(st, 5); }, "hold no square's diagonal");
}

TEST(DistHalo, BadBlocksAreClearErrors) {
  const auto p = spx::dist::partition_even(100, 2);
  spx::test::expect_error(
      [&] {
        spx::dist::distribute_blocks<double>(100, 100, p, p, [](int64_t b, int64_t e) {
          return spx::gen::stencil_rows<double>(27, 4, 5, 5, b, e + (b > 0 ? 0 : 1));
        });
      },
      "came back 51 × 100");
  spx::test::expect_error([] { spx::gen::stencil_rows<double>(9, 4, 4, 4, 0, 4); }, "must be 5, 7 or 27");
  spx::test::expect_error([] { spx::gen::stencil_rows<double>(27, 4, 4, 4, 0, 65); }, "row range");
}

TEST(DistHalo, Errors) {
  const auto A = spx::test::random_csr<double, int32_t>(10, 12, 1, 3, 5);
  const auto rows = spx::dist::partition_rows(A, 2);
  spx::test::expect_error([&] { spx::dist::distribute(A, rows, spx::dist::partition_even(11, 2)); },
                          "column partition must run from 0 to 12");
  spx::test::expect_error([&] { spx::dist::distribute(A, rows, spx::dist::partition_even(12, 3)); },
                          "row partition has 2 ranks, the column partition 3");
  spx::test::expect_error([&] { spx::dist::distribute(A, 11); }, "11 ranks for 10 rows");
  spx::test::expect_error([&] { spx::dist::distribute(A, 0); }, "need at least 1");
  auto bad = A;
  bad.col_idx[0] = 40;
  spx::test::expect_error([&] { spx::dist::distribute(bad, 2); }, "40");
}

}  // namespace
