// spx::reorder (RCM, permutations, band numbers, the locality statistic) and the generators'
// shuffle= option.
#include "spx/reorder.hpp"

#include <gtest/gtest.h>
#include <omp.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "common/host_memory.hpp"
#include "reorder/rcm_order.hpp"
#include "spx/convert.hpp"
#include "spx/cpu.hpp"
#include "spx/error.hpp"
#include "spx/fem.hpp"
#include "spx/generate.hpp"
#include "spx/threads.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

using test::expect_words;

template <class I>
std::span<const I> view(const std::vector<I>& v) {
  return std::span<const I>(v);
}

template <class I>
void expect_bijection(const std::vector<I>& perm, int64_t n) {
  ASSERT_EQ(static_cast<int64_t>(perm.size()), n);
  std::vector<I> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(static_cast<int64_t>(sorted[static_cast<std::size_t>(i)]), i);
}

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(Reorder, RcmOfAShuffledBandRecoversASmallBandwidth) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const auto band = gen::generate<double>("banded:n=5001,bw=6,density=0.7");
  const auto shuffled =
      gen::generate<double>("banded:n=5001,bw=6,density=0.7,shuffle=" + std::to_string(seed));
  EXPECT_LE(reorder::band(band).bandwidth, 6);
  EXPECT_GT(reorder::band(shuffled).bandwidth, 1000);
  const std::vector<int32_t> p = reorder::rcm(shuffled);
  expect_bijection(p, shuffled.rows);
  const auto B = reorder::permute_symmetric(shuffled, view(p));
  B.validate();
  // RCM's band of a band of half-width 6 is within a small factor of it (level sets of the band).
  EXPECT_LE(reorder::band(B).bandwidth, 24);
  EXPECT_LT(reorder::band(B).profile, reorder::band(shuffled).profile / 50);
}

TEST(Reorder, RcmOfAShuffledMeshShrinksItsBand) {
  const auto A = gen::generate<double>("stencil2d:n=60,shuffle=7");
  const auto B = reorder::permute_symmetric(A, view(reorder::rcm(A)));
  // A 60 x 60 grid: RCM's level sets are anti-diagonals, at most ~60 + a few wide.
  EXPECT_LE(reorder::band(B).bandwidth, 130);
  EXPECT_GT(reorder::band(A).bandwidth, 1000);
}

TEST(Reorder, PermutedProductsEqualTheOriginalsPermuted) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (int32_t n : {1, 2, 7, 33, 257}) {
    // Unsymmetric with empty rows: RCM runs on A + A^T.
    const auto A = test::random_csr<double, int32_t>(n, n, 0, 6, seed + static_cast<uint64_t>(n), 0.3);
    const std::vector<int32_t> p = reorder::rcm(A);
    expect_bijection(p, n);
    const auto B = reorder::permute_symmetric(A, view(p));
    B.validate();
    EXPECT_EQ(B.nnz(), A.nnz());
    const auto x = test::random_vector<double>(static_cast<std::size_t>(n), seed);
    std::vector<double> y(static_cast<std::size_t>(n)), yp(static_cast<std::size_t>(n));
    ref::spmv(A, std::span<const double>(x), std::span<double>(y));
    const auto xp = reorder::permute<double, int32_t>(std::span<const double>(x), view(p));
    ref::spmv(B, std::span<const double>(xp), std::span<double>(yp));
    const auto y_back = reorder::unpermute<double, int32_t>(std::span<const double>(yp), view(p));
    for (int32_t i = 0; i < n; ++i)
      EXPECT_NEAR(y_back[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(i)], 1e-12);
    // Undoing the permutation gives A back exactly.
    const auto back = reorder::permute_symmetric(B, view(reorder::inverse(view(p))));
    EXPECT_EQ(back.row_ptr, A.row_ptr);
    EXPECT_EQ(back.col_idx, A.col_idx);
    EXPECT_EQ(back.values, A.values);
  }
}

// A solver's symmetric matrix skips the transpose: the same order as rcm() on symmetric patterns
// (shuffled meshes, disconnected blocks, empty rows), a valid one on a pattern that is not.
TEST(Reorder, RcmSymmetricIsRcmOnSymmetricPatterns) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const std::string spec :
       {"stencil2d:n=37,shuffle=", "stencil27:n=9,shuffle=", "banded:n=999,bw=5,shuffle="}) {
    const auto A = gen::generate<double>(spec + std::to_string(seed % 1000 + 1));
    EXPECT_EQ(reorder::rcm_symmetric(A), reorder::rcm(A)) << spec;
  }
  // A + A^T of a random matrix with empty rows, and the same as float with int64 indices.
  const auto R = test::random_csr<double, int32_t>(301, 301, 0, 5, seed, 0.3);
  Csr<double, int32_t> S(R.rows, R.cols);  // the pattern of R + R^T
  {
    std::vector<std::vector<int32_t>> rows(static_cast<std::size_t>(R.rows));
    for (int32_t r = 0; r < R.rows; ++r)
      for (int32_t k = R.row_ptr[static_cast<std::size_t>(r)]; k < R.row_ptr[static_cast<std::size_t>(r) + 1];
           ++k) {
        rows[static_cast<std::size_t>(r)].push_back(R.col_idx[static_cast<std::size_t>(k)]);
        rows[static_cast<std::size_t>(R.col_idx[static_cast<std::size_t>(k)])].push_back(r);
      }
    for (int32_t r = 0; r < R.rows; ++r) {
      auto& row = rows[static_cast<std::size_t>(r)];
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end()), row.end());
      for (int32_t c : row) {
        S.col_idx.push_back(c);
        S.values.push_back(1.0);
      }
      S.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<int32_t>(S.col_idx.size());
    }
  }
  EXPECT_EQ(reorder::rcm_symmetric(S), reorder::rcm(S));
  const Csr<double, int32_t> empty(0, 0);
  EXPECT_TRUE(reorder::rcm_symmetric(empty).empty());
  // Not symmetric: still a bijection.
  expect_bijection(reorder::rcm_symmetric(R), R.rows);
  const auto N = test::random_csr<float, int64_t>(77, 77, 0, 4, seed + 1, 0.2);
  expect_bijection(reorder::rcm_symmetric(N), N.rows);
}

// The level-parallel breadth-first passes give the serial order exactly: every level forced
// parallel against every level serial, on meshes, a band, disconnected blocks with isolated nodes
// and a pattern that is not symmetric.
TEST(Reorder, ParallelLevelsGiveTheSerialOrder) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const auto own = [](const Csr<double, int32_t>& A) {  // A's pattern without the diagonal
    reorder::detail::Graph<int32_t> g;
    g.ptr.assign(static_cast<std::size_t>(A.rows) + 1, 0);
    for (int32_t r = 0; r < A.rows; ++r) {
      for (int32_t k = A.row_ptr[static_cast<std::size_t>(r)]; k < A.row_ptr[static_cast<std::size_t>(r) + 1];
           ++k)
        if (A.col_idx[static_cast<std::size_t>(k)] != r)
          g.adj.push_back(A.col_idx[static_cast<std::size_t>(k)]);
      g.ptr[static_cast<std::size_t>(r) + 1] = static_cast<int64_t>(g.adj.size());
    }
    return g;
  };
  const std::string shuffle = std::to_string(seed % 1000 + 1);
  for (const std::string spec : {"stencil2d:n=41,shuffle=", "stencil27:n=11,shuffle=",
                                 "banded:n=3001,bw=4,shuffle=", "powerlaw:n=2000,avg=6,seed="}) {
    const auto A = gen::generate<double>(spec + shuffle);
    const auto g = own(A);
    const auto n = static_cast<std::size_t>(A.rows);
    std::vector<int32_t> by_degree(n);  // the counting sort is the stable sort by degree
    std::iota(by_degree.begin(), by_degree.end(), 0);
    std::stable_sort(by_degree.begin(), by_degree.end(),
                     [&](int32_t a, int32_t b) { return g.degree(a) < g.degree(b); });
    EXPECT_EQ(reorder::detail::nodes_by_degree(g, n), by_degree) << spec;
    const auto serial = reorder::detail::rcm_order(g, n, std::numeric_limits<int64_t>::max());
    EXPECT_EQ(reorder::detail::rcm_order(g, n, 1), serial) << spec;
    EXPECT_EQ(reorder::detail::rcm_order(g, n, 200), serial) << spec;  // some levels each way
    expect_bijection(serial, A.rows);
  }
  const auto R = test::random_csr<double, int32_t>(500, 500, 0, 4, seed, 0.3);  // not symmetric, empty rows
  const auto g = own(R);
  EXPECT_EQ(reorder::detail::rcm_order(g, 500, 1),
            reorder::detail::rcm_order(g, 500, std::numeric_limits<int64_t>::max()));
}

TEST(Reorder, DisconnectedComponentsAndIsolatedNodes) {
  // Two shuffled grids side by side, plus isolated (empty) rows: block diagonal.
  Csr<double, int32_t> A(0, 0);
  const auto g = gen::generate<double>("stencil2d:n=10");
  const int32_t m = g.rows, isolated = 5, n = 2 * m + isolated;
  A = Csr<double, int32_t>(n, n);
  for (int block = 0; block < 2; ++block)
    for (int32_t r = 0; r < m; ++r) {
      for (int32_t k = g.row_ptr[r]; k < g.row_ptr[r + 1]; ++k) {
        A.col_idx.push_back(g.col_idx[k] + block * m);
        A.values.push_back(g.values[k]);
      }
      A.row_ptr[static_cast<std::size_t>(block * m + r) + 1] = static_cast<int32_t>(A.col_idx.size());
    }
  for (int32_t r = 2 * m; r < n; ++r)
    A.row_ptr[static_cast<std::size_t>(r) + 1] = A.row_ptr[static_cast<std::size_t>(r)];
  const auto perm = reorder::random_permutation<int32_t>(n, 11);
  const auto S = reorder::permute_symmetric(A, view(perm));
  const auto p = reorder::rcm(S);
  expect_bijection(p, n);
  const auto B = reorder::permute_symmetric(S, view(p));
  // No component is split: each grid's nodes come out contiguous, so the band stays a grid's.
  EXPECT_LE(reorder::band(B).bandwidth, 20);
}

TEST(Reorder, TinyAndEmptyMatrices) {
  const Csr<double, int32_t> empty(0, 0);
  EXPECT_TRUE(reorder::rcm(empty).empty());
  EXPECT_EQ(reorder::permute_symmetric(empty, view(std::vector<int32_t>{})).rows, 0);
  EXPECT_EQ(reorder::locality(empty).sampled_rows, 0);
  Csr<double, int32_t> one(1, 1);
  one.col_idx = {0};
  one.values = {3.0};
  one.row_ptr = {0, 1};
  EXPECT_EQ(reorder::rcm(one), std::vector<int32_t>{0});
  const Csr<double, int32_t> hollow(4, 4);  // all rows empty
  expect_bijection(reorder::rcm(hollow), 4);
  // int64 indices go through the same code.
  const auto wide = gen::generate<float, int64_t>("stencil2d:n=9,shuffle=3");
  expect_bijection(reorder::rcm(wide), wide.rows);
}

TEST(Reorder, BadInputIsAClearError) {
  const Csr<double, int32_t> rect(3, 4);
  expect_words(error_of([&] { reorder::rcm(rect); }), {"rcm", "3 x 4", "square"});
  expect_words(error_of([&] {
                 reorder::permute_symmetric(rect, view(std::vector<int32_t>{0, 1, 2}));
               }),
               {"permute_symmetric", "3 x 4", "square"});
  const Csr<double, int32_t> sq(3, 3);
  expect_words(error_of([&] {
                 reorder::permute_symmetric(sq, view(std::vector<int32_t>{0, 1}));
               }),
               {"2 entries", "expected 3"});
  expect_words(error_of([&] {
                 reorder::permute_symmetric(sq, view(std::vector<int32_t>{0, 1, 1}));
               }),
               {"entry 2", "repeats 1", "bijection"});
  expect_words(error_of([&] {
                 reorder::inverse(view(std::vector<int32_t>{0, 5, 1}));
               }),
               {"entry 1", "is 5", "outside 0..2"});
  const std::vector<double> x(2, 1.0);
  expect_words(
      error_of([&] {
        reorder::permute<double, int32_t>(std::span<const double>(x), view(std::vector<int32_t>{0, 1, 2}));
      }),
      {"permute", "2 entries", "permutation 3"});
}

TEST(Reorder, CopiesPastHostMemoryAreRefusedBeforeAllocating) {
  const auto A = gen::generate<double>("stencil2d:n=100");  // 49600 nonzeros: ~0.6 MiB to copy
  setenv(spx::detail::kHostMemoryLimitVariable, "100000", 1);
  const std::string rcm_error = error_of([&] { reorder::rcm(A); });
  const std::string copy_error =
      error_of([&] { reorder::permute_symmetric(A, view(reorder::random_permutation<int32_t>(A.rows, 1))); });
  unsetenv(spx::detail::kHostMemoryLimitVariable);
  expect_words(rcm_error, {"rcm", "host memory", "available"});
  expect_words(copy_error, {"permute_symmetric", "host memory", "available"});
}

TEST(Reorder, LocalitySeesAShuffleAndWhatRcmWouldGain) {
  const auto grid = gen::generate<double>("stencil2d:n=200");
  const auto shuffled = gen::generate<double>("stencil2d:n=200,shuffle=5");
  const reorder::Locality a = reorder::locality(grid), b = reorder::locality(shuffled);
  EXPECT_FALSE(a.gathers_poorly()) << a.sectors_per_row << " vs " << a.rcm_sectors_per_row;
  EXPECT_TRUE(b.gathers_poorly()) << b.sectors_per_row << " vs " << b.rcm_sectors_per_row;
  EXPECT_LT(a.mean_distance, 0.01);
  EXPECT_GT(b.mean_distance, 0.2);
  // After RCM the measured statistic is back near the estimate.
  const auto c = reorder::permute_symmetric(shuffled, view(reorder::rcm(shuffled)));
  const reorder::Locality after = reorder::locality(c);
  EXPECT_FALSE(after.gathers_poorly());
  EXPECT_LE(after.sectors_per_row, 1.5 * b.rcm_sectors_per_row);
  EXPECT_GT(b.sampled_rows, 0);
  EXPECT_LE(b.sampled_rows, reorder::kLocalitySampleWindows * reorder::kLocalityWindowRows);
}

// The windows and the two-step samples run on every thread; the sums are integers or added in sample
// order, so the statistic is the same bits at any thread count (and the same error: the first bad
// window's).
TEST(Reorder, LocalityIsTheSameAtEveryThreadCount) {
  const int saved = omp_get_max_threads();
  for (const std::string spec : {"blockfem:n=20,b=3,seed=2,shuffle=4", "powerlaw:n=200000,avg=12,seed=3"}) {
    const auto A = gen::generate<double>(spec);
    omp::set_threads(1);
    const reorder::Locality one = reorder::locality(A);
    for (int threads : {2, 3, 7}) {
      omp::set_threads(threads);
      const reorder::Locality many = reorder::locality(A);
      EXPECT_EQ(many.sampled_rows, one.sampled_rows) << spec << " " << threads;
      EXPECT_EQ(many.sampled_nnz, one.sampled_nnz) << spec << " " << threads;
      EXPECT_EQ(many.mean_distance, one.mean_distance) << spec << " " << threads;
      EXPECT_EQ(many.sectors_per_row, one.sectors_per_row) << spec << " " << threads;
      EXPECT_EQ(many.two_hop_growth, one.two_hop_growth) << spec << " " << threads;
      EXPECT_EQ(many.rcm_sectors_per_row, one.rcm_sectors_per_row) << spec << " " << threads;
    }
  }
  // Two bad windows, both sampled (window 0 always is; the second sampled window is the other): the
  // error names the first whatever thread reads it.
  auto bad = gen::generate<double>("stencil2d:n=400");
  const int64_t windows = (bad.rows + reorder::kLocalityWindowRows - 1) / reorder::kLocalityWindowRows;
  const int64_t sampled = reorder::locality(bad).sampled_rows / reorder::kLocalityWindowRows;
  const auto second_row = static_cast<std::size_t>(windows / sampled * reorder::kLocalityWindowRows);
  bad.col_idx[static_cast<std::size_t>(bad.row_ptr[second_row])] = bad.cols + 7;
  bad.col_idx[0] = bad.cols + 5;
  omp::set_threads(1);
  const std::string serial = error_of([&] { reorder::locality(bad); });
  omp::set_threads(4);
  const std::string parallel = error_of([&] { reorder::locality(bad); });
  omp_set_num_threads(saved);
  EXPECT_EQ(serial, parallel);
  EXPECT_NE(serial.find(std::to_string(bad.cols + 5)), std::string::npos) << serial;
}

// A random (expander-like) graph has no band to find: its two-step neighbourhoods reach ~d^2 nodes,
// so no gain is estimated and rcm_csr is not planned; meshes grow slowly in any numbering.
TEST(Reorder, NoRcmGainEstimatedOnAnExpanderGraph) {
  for (const std::string mesh : {"stencil2d:n=150,shuffle=3", "stencil7:n=24,shuffle=3",
                                 "stencil27:n=16,shuffle=3", "blockfem:n=8,b=3,seed=2"}) {
    const reorder::Locality m = reorder::locality(gen::generate<double>(mesh));
    EXPECT_LT(m.two_hop_growth, reorder::kRcmMaxTwoHopGrowth) << mesh;
  }
  const auto random = gen::generate<double>("random:n=60000,len=24,seed=4");
  const reorder::Locality r = reorder::locality(random);
  EXPECT_GT(r.two_hop_growth, reorder::kRcmMaxTwoHopGrowth);
  EXPECT_FALSE(r.gathers_poorly()) << r.sectors_per_row << " vs " << r.rcm_sectors_per_row;
  EXPECT_DOUBLE_EQ(r.rcm_sectors_per_row, r.sectors_per_row);
}

TEST(GenerateShuffle, EverySquareKindIsRenumberedAndNonSquareRefused) {
  for (const std::string spec :
       {"stencil2d:n=12", "stencil7:n=5", "stencil27:n=4", "fem:rows=300,len=9", "fem2d:n=6", "banded:n=300",
        "powerlaw:n=300", "rmat:scale=7,ef=4", "blockdense:n=64,block=8,per_row=2",
        "longrows:n=300,long=1,len=100", "dense:n=9", "random:n=300,len=5"}) {
    SCOPED_TRACE(spec);
    const auto A = gen::generate<double>(spec);
    const auto S = gen::generate<double>(spec + ",shuffle=42");
    EXPECT_EQ(S.rows, A.rows);
    EXPECT_EQ(S.nnz(), A.nnz());
    S.validate();
    // Same seed, same matrix; the shuffle undone by sorting rows back is not needed: products agree.
    EXPECT_EQ(gen::generate<double>(spec + ",shuffle=42").col_idx, S.col_idx);
    const auto perm = reorder::random_permutation<int32_t>(A.rows, 42);
    const auto expect = reorder::permute_symmetric(A, view(perm));
    EXPECT_EQ(S.col_idx, expect.col_idx);
    EXPECT_EQ(S.values, expect.values);
  }
  EXPECT_NE(gen::generate<double>("stencil2d:n=12,shuffle=1").col_idx,
            gen::generate<double>("stencil2d:n=12").col_idx);
  expect_words(error_of([] { gen::generate<double>("random:rows=10,cols=20,len=2,shuffle=1"); }),
               {"shuffle=", "square", "10 x 20"});
  expect_words(error_of([] { gen::generate<double>("random:n=10,shuffle=x"); }),
               {"shuffle=x", "unsigned 64-bit"});
  // A shuffled fem2d is a matrix, not the mesh's FEM problem.
  EXPECT_FALSE(fem::parse_spec("fem2d:n=6,shuffle=2").has_value());
}

}  // namespace
}  // namespace spx
