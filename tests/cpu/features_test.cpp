// spx::features against a brute-force computation written from the definitions (sets of columns
// and sectors, a std::bitset per window), on hand-computed, random, edge-shaped, generated and
// shared matrices; the window estimate against the exact distinct-sector counts.
#include "spx/features.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/splitmix64.hpp"
#include "features_expect.hpp"
#include "generate/random.hpp"
#include "plan/features_detail.hpp"
#include "spx/convert.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/io.hpp"
#include "spx/stats.hpp"
#include "test_support.hpp"

namespace spx {
namespace {

using test::expect_same_features;

constexpr int64_t kWindowRows = MatrixFeatures::kWindowRows;
constexpr int64_t kBits = MatrixFeatures::kWindowBitmapBits;
constexpr int kGranularities = MatrixFeatures::kGranularities;
const char* const kGranularityNames[kGranularities] = {"f32", "f64", "col"};

// One window of the brute force: exact distinct sectors d, bits set z, the estimate, the sum over
// its rows of their distinct sectors (the estimate's cap), its nnz.
struct Window {
  int64_t distinct = 0, bits = 0, estimate = 0, row_sectors = 0, nnz = 0;
};

struct BruteForce {
  MatrixFeatures f;
  std::vector<Window> windows[kGranularities];
};

// Straight from the definitions: every count from sets, divisions instead of shifts.
template <class T, class I>
BruteForce brute_force(const Csr<T, I>& A) {
  BruteForce b;
  MatrixFeatures& f = b.f;
  f.rows = A.rows;
  f.cols = A.cols;
  f.nnz = A.nnz();
  const int64_t width = hyb_ell_width(A);
  f.hyb_width = width;
  std::set<int64_t> sectors[kGranularities];
  const int64_t per_sector[kGranularities] = {8, 4, 1};  // columns per sector: f32, f64, column
  for (int64_t r = 0; r < A.rows; ++r) {
    const int64_t len = A.row_ptr[r + 1] - A.row_ptr[r];
    f.min_row = r == 0 ? len : std::min(f.min_row, len);
    f.max_row = std::max(f.max_row, len);
    f.empty_rows += len == 0;
    f.sum_sq_row += static_cast<uint64_t>(len * len);
    int bucket = 0;
    while (bucket < MatrixFeatures::kBuckets - 1 && len >= (int64_t{1} << bucket)) ++bucket;
    f.length_buckets[static_cast<std::size_t>(bucket)].rows += 1;
    f.length_buckets[static_cast<std::size_t>(bucket)].nnz += len;
    f.hyb_ell_nnz += std::min(len, width);
  }
  for (int64_t first = 0; first < A.rows; first += kWindowRows) {
    const int64_t last = std::min(first + kWindowRows, static_cast<int64_t>(A.rows));
    int64_t longest = 0;
    for (int64_t r = first; r < last; ++r)
      longest = std::max<int64_t>(longest, A.row_ptr[r + 1] - A.row_ptr[r]);
    f.sell_slots += kWindowRows * longest;  // SELL-32 pads the last slice to 32 rows too
    for (int k = 0; k < kGranularities; ++k) {
      Window w;
      std::set<uint64_t> window;
      for (int64_t r = first; r < last; ++r) {
        std::set<uint64_t> row;
        for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p) {
          const auto sector = static_cast<uint64_t>(A.col_idx[p] / per_sector[k]);
          row.insert(sector);
          window.insert(sector);
          sectors[k].insert(static_cast<int64_t>(sector));
        }
        w.row_sectors += static_cast<int64_t>(row.size());
      }
      std::bitset<kBits> bits;
      for (uint64_t s : window) bits.set(static_cast<std::size_t>(detail::splitmix64_mix(s) % kBits));
      w.distinct = static_cast<int64_t>(window.size());
      w.bits = static_cast<int64_t>(bits.count());
      w.nnz = A.row_ptr[last] - A.row_ptr[first];
      w.estimate =
          w.bits == kBits
              ? w.row_sectors
              : std::min(w.row_sectors,
                         static_cast<int64_t>(std::llround(
                             -static_cast<double>(kBits) *
                             std::log(1.0 - static_cast<double>(w.bits) / static_cast<double>(kBits)))));
      f.row_sectors[static_cast<std::size_t>(k)] += w.row_sectors;
      f.window_sectors[static_cast<std::size_t>(k)] += w.estimate;
      b.windows[k].push_back(w);
    }
  }
  f.nonempty_cols = static_cast<int64_t>(sectors[MatrixFeatures::kColumn].size());  // 1 column each
  for (int k = 0; k < kGranularities; ++k)
    f.x_sectors[static_cast<std::size_t>(k)] = static_cast<int64_t>(sectors[k].size());
  return b;
}

// Relations between fields that hold for every canonical matrix, whatever the estimate's error: a
// column "sector" is one column and a row's columns are distinct, so x_sectors[kColumn] is
// nonempty_cols and row_sectors[kColumn] is nnz; each window's estimate is capped by its row
// sectors; coarser sectors are fewer; SELL-32 stores every nonzero in slices 32 rows tall, so its
// slots are a multiple of 32 between nnz and 32 × slices × max_row.
void expect_identities(const MatrixFeatures& f, const std::string& what) {
  SCOPED_TRACE(what);
  constexpr auto col = static_cast<std::size_t>(MatrixFeatures::kColumn);
  EXPECT_EQ(f.x_sectors[col], f.nonempty_cols);
  EXPECT_EQ(f.row_sectors[col], f.nnz);
  for (std::size_t k = 0; k < kGranularities; ++k) {
    EXPECT_LE(f.x_sectors[k], f.row_sectors[k]) << kGranularityNames[k];
    EXPECT_LE(f.window_sectors[k], f.row_sectors[k]) << kGranularityNames[k];
    EXPECT_LE(f.row_sectors[k], f.nnz) << kGranularityNames[k];
  }
  // Coarser sectors cover finer ones: f32 (8 columns) <= f64 (4 columns) <= columns.
  EXPECT_LE(f.x_sectors[0], f.x_sectors[1]);
  EXPECT_LE(f.x_sectors[1], f.x_sectors[col]);
  EXPECT_LE(f.row_sectors[0], f.row_sectors[1]);
  EXPECT_LE(f.row_sectors[1], f.row_sectors[col]);
  EXPECT_GE(f.sell_slots, f.nnz);
  EXPECT_LE(f.sell_slots, ((f.rows + 31) / 32) * 32 * f.max_row);
  EXPECT_EQ(f.sell_slots % 32, 0);
}

// One row of `len` nonzeros in 2*len + 3 columns (column 2k or 2k + 1, random), built directly: the
// std::set sampling of random_csr would take seconds for 10^6 entries.
template <class T, class I>
Csr<T, I> one_huge_row(I len, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Csr<T, I> A(1, 2 * len + 3);
  for (I k = 0; k < len; ++k) {
    A.col_idx.push_back(static_cast<I>(2 * k + static_cast<I>(rng() & 1)));
    A.values.push_back(T{1});
  }
  A.row_ptr[1] = len;
  return A;
}

// Row `row` of A replaced by `len` distinct random columns.
template <class T, class I>
Csr<T, I> with_long_row(const Csr<T, I>& A, I row, I len, uint64_t seed) {
  const auto long_row = test::random_csr<T, I>(1, A.cols, len, len, seed);
  Csr<T, I> B(A.rows, A.cols);
  for (I r = 0; r < A.rows; ++r) {
    const Csr<T, I>& src = r == row ? long_row : A;
    const I sr = r == row ? I{0} : r;
    for (I p = src.row_ptr[sr]; p < src.row_ptr[sr + 1]; ++p) {
      B.col_idx.push_back(src.col_idx[p]);
      B.values.push_back(src.values[p]);
    }
    B.row_ptr[r + 1] = static_cast<I>(B.col_idx.size());
  }
  return B;
}

struct Named {
  std::string name;
  Csr<double, int32_t> A;
};

// Odd sizes, empty rows, one huge row, cols % 8 != 0, rows % 32 != 0, enough rows for a HYB width.
std::vector<Named> random_matrices(uint64_t seed) {
  using test::random_csr;
  std::vector<Named> out;
  out.push_back({"1001x997 rows 0..20, 10% empty", random_csr<double, int32_t>(1001, 997, 0, 20, seed, 0.1)});
  out.push_back(
      {"5003x37 rows 0..37 (cols % 8 = 5)", random_csr<double, int32_t>(5003, 37, 0, 37, seed + 1)});
  out.push_back(
      {"9001x9001 rows 1..30 (HYB width > 0)", random_csr<double, int32_t>(9001, 9001, 1, 30, seed + 2)});
  out.push_back(
      {"one row of 5000 among 3001 rows of 0..8",
       with_long_row(random_csr<double, int32_t>(3001, 6003, 0, 8, seed + 3, 0.2), 1234, 5000, seed + 4)});
  out.push_back(
      {"one row of 20000 among 6000 rows of 1..4 (HYB top bin)",
       with_long_row(random_csr<double, int32_t>(6000, 30001, 1, 4, seed + 5), 77, 20000, seed + 6)});
  out.push_back({"1x4099 dense row", random_csr<double, int32_t>(1, 4099, 4099, 4099, seed + 7)});
  out.push_back({"3001x1 column", random_csr<double, int32_t>(3001, 1, 0, 1, seed + 8, 0.3)});
  out.push_back({"33x13 mostly empty", random_csr<double, int32_t>(33, 13, 0, 2, seed + 9, 0.7)});
  out.push_back({"1 row of 10^6", one_huge_row<double, int32_t>(1000000, seed + 10)});
  return out;
}

TEST(Features, HandComputedMatrix) {
  // Row 0: columns 0 1 7 8; row 1 empty; row 2: columns 9 17 19. 20 columns.
  Csr<double, int32_t> A(3, 20);
  A.row_ptr = {0, 4, 4, 7};
  A.col_idx = {0, 1, 7, 8, 9, 17, 19};
  A.values.assign(7, 1.0);
  const MatrixFeatures f = features(A);
  EXPECT_EQ(f.rows, 3);
  EXPECT_EQ(f.cols, 20);
  EXPECT_EQ(f.nnz, 7);
  EXPECT_EQ(f.min_row, 0);
  EXPECT_EQ(f.max_row, 4);
  EXPECT_EQ(f.empty_rows, 1);
  EXPECT_EQ(f.sum_sq_row, 25u);
  EXPECT_EQ(f.length_buckets[0].rows, 1);  // length 0
  EXPECT_EQ(f.length_buckets[2].rows, 1);  // length 3 in [2, 4)
  EXPECT_EQ(f.length_buckets[2].nnz, 3);
  EXPECT_EQ(f.length_buckets[3].rows, 1);  // length 4 in [4, 8)
  EXPECT_EQ(f.length_buckets[3].nnz, 4);
  EXPECT_EQ(f.hyb_width, 0);  // fewer than 4096 rows
  EXPECT_EQ(f.hyb_ell_nnz, 0);
  EXPECT_EQ(f.sell_slots, 32 * 4);  // one slice, padded to 32 rows of the longest row's 4
  EXPECT_EQ(f.nonempty_cols, 7);
  // f32 sectors (8 columns): row 0 {0, 1}, row 2 {1, 2}; f64 (4 columns): row 0 {0, 1, 2}, row 2 {2, 4};
  // columns: 4 + 3, all distinct.
  EXPECT_EQ(f.row_sectors[MatrixFeatures::kF32], 4);
  EXPECT_EQ(f.row_sectors[MatrixFeatures::kF64], 5);
  EXPECT_EQ(f.row_sectors[MatrixFeatures::kColumn], 7);
  EXPECT_EQ(f.x_sectors[MatrixFeatures::kF32], 3);
  EXPECT_EQ(f.x_sectors[MatrixFeatures::kF64], 4);
  EXPECT_EQ(f.x_sectors[MatrixFeatures::kColumn], 7);
  // One window; its 3, 4 and 7 distinct sectors hash to distinct bits, and the estimate of z <= 63 is z.
  EXPECT_EQ(f.window_sectors[MatrixFeatures::kF32], 3);
  EXPECT_EQ(f.window_sectors[MatrixFeatures::kF64], 4);
  EXPECT_EQ(f.window_sectors[MatrixFeatures::kColumn], 7);
  EXPECT_DOUBLE_EQ(f.avg_row(), 7.0 / 3.0);
  EXPECT_DOUBLE_EQ(f.stddev_row(), std::sqrt(26.0) / 3.0);
}

TEST(Features, EmptyShapes) {
  for (const auto& [rows, cols] :
       std::vector<std::pair<int32_t, int32_t>>{{0, 0}, {0, 7}, {7, 0}, {57, 31}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    const Csr<float, int32_t> A(rows, cols);
    const MatrixFeatures f = features(A);
    MatrixFeatures want;
    want.rows = rows;
    want.cols = cols;
    want.empty_rows = rows;
    want.length_buckets[0].rows = rows;
    expect_same_features(f, want, "no nonzeros");
    EXPECT_EQ(f.avg_row(), 0.0);
    EXPECT_EQ(f.stddev_row(), 0.0);
  }
}

TEST(Features, RandomMatricesMatchBruteForce) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& [name, A] : random_matrices(seed)) {
    const MatrixFeatures f = features(A);
    expect_same_features(f, brute_force(A).f, name);
    expect_identities(f, name);
  }
}

const std::vector<std::string> kGeneratorSpecs = {"stencil2d:nx=67,ny=45",
                                                  "stencil7:n=17",
                                                  "stencil27:nx=13,ny=11,nz=9",
                                                  "fem:rows=9000,len=27",
                                                  "banded:n=5000,bw=40,density=0.3",
                                                  "powerlaw:n=20000,avg=8,exp=1.8",
                                                  "rmat:scale=13,ef=8",
                                                  "blockdense:n=2000,block=16,per_row=3",
                                                  "longrows:rows=20000,long=3,len=12000,empty=0.5,short=4",
                                                  "random:rows=4500,cols=3001,len=9",
                                                  "dense:rows=70,cols=45"};

TEST(Features, GeneratorMatricesMatchBruteForce) {
  for (const auto& spec : kGeneratorSpecs) {
    const auto A = gen::generate<double, int32_t>(spec);
    const MatrixFeatures f = features(A);
    expect_same_features(f, brute_force(A).f, spec);
    expect_identities(f, spec);
  }
}

TEST(Features, IndexAndValueTypesAgree) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  std::vector<Named> matrices = random_matrices(seed);
  matrices.push_back({"powerlaw", gen::generate<double, int32_t>("powerlaw:n=20000,avg=8,exp=1.8")});
  for (const auto& [name, A] : matrices) {
    const MatrixFeatures f = features(A);
    expect_same_features(features(cast<double, int64_t>(A)), f, name + " f64/int64");
    expect_same_features(features(cast<float, int32_t>(A)), f, name + " f32/int32");
    expect_same_features(features(cast<float, int64_t>(A)), f, name + " f32/int64");
  }
}

TEST(Features, HybWidthIsBellGarlandsRule) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  std::vector<Named> matrices = random_matrices(seed);
  for (const auto& spec : kGeneratorSpecs) matrices.push_back({spec, gen::generate<double, int32_t>(spec)});
  int nonzero_widths = 0;
  for (const auto& [name, A] : matrices) {
    const MatrixFeatures f = features(A);
    EXPECT_EQ(f.hyb_width, hyb_ell_width(A)) << name;
    // The ELL part of spx::to_hyb holds exactly hyb_ell_nnz real entries.
    const auto H = to_hyb(A);
    EXPECT_EQ(f.hyb_ell_nnz, f.nnz - static_cast<int64_t>(H.coo.row_idx.size())) << name;
    nonzero_widths += f.hyb_width > 0;
  }
  EXPECT_GE(nonzero_widths, 5);  // the rule was exercised, not only its "fewer than 4096 rows" exit
}

TEST(Features, AgreesWithStats) {
  for (const auto& spec : kGeneratorSpecs) {
    const auto A = gen::generate<double, int32_t>(spec);
    const MatrixFeatures f = features(A);
    const MatrixStats s = stats(A);
    EXPECT_EQ(f.min_row, s.min_row) << spec;
    EXPECT_EQ(f.max_row, s.max_row) << spec;
    EXPECT_EQ(f.empty_rows, s.empty_rows) << spec;
    EXPECT_DOUBLE_EQ(f.avg_row(), s.avg_row) << spec;
    EXPECT_NEAR(f.stddev_row(), s.stddev_row, 1e-12 * (1 + s.stddev_row)) << spec;
  }
}

// Linear counting with m = 4096 bits: the estimate of z set bits is z + z^2/(2m) + ..., so it rounds
// to z exactly while z^2/(2m) + z^3/(3m^2) + ... < 1/2, i.e. z <= 63; z = 64 gives 64.505 -> 65.
TEST(FeaturesWindowEstimate, IsExactForFewBitsSet) {
  const std::vector<int64_t>& table = detail::feature_rules::linear_counting_table();
  ASSERT_EQ(table.size(), 4097u);
  for (int64_t z = 0; z <= 64; ++z) EXPECT_EQ(table[static_cast<std::size_t>(z)], z <= 63 ? z : 65) << z;
  for (std::size_t z = 1; z < 4096; ++z) EXPECT_LE(table[z - 1], table[z]) << z;
  EXPECT_EQ(table[4095], 34070);  // -4096 ln(1/4096): the largest estimate short of a full bitmap
  EXPECT_EQ(table[4096], std::numeric_limits<int64_t>::max());  // full: the row sectors instead
}

// The estimate against the exact distinct counts d per window. z <= d (collisions only lose bits)
// and d <= s, the window's row sectors (a sector shared by two rows counts in both); the estimate
// is min(s, table[z]) with table[z] >= z, so z <= estimate <= s, and a full bitmap gives s. For
// columns, s is the window's nnz. The estimate grows with z, so for d <= 64 it is at most d + 1
// (the table's 64 -> 65); it is z for z <= 63, so it is off by the d - z bits lost to collisions,
// plus 1 at z = 64. Those losses are random: over a matrix's windows of d <= 64 their sum has mean
// at most mu = sum d(d-1)/2m (the pairs of sectors sharing a bit; about 0.7% of d at d = 60) and
// about Poisson spread, so it must stay under mu + 6 sqrt(mu) + 3. (A flat 1% + 2 failed about once
// in 50 seeds on matrices with only a few such windows: 3 lost where 2.2 were expected.)
void check_window_estimates(const BruteForce& b, const std::string& name) {
  for (int k = 0; k < kGranularities; ++k) {
    SCOPED_TRACE(name + " " + kGranularityNames[k]);
    int64_t lost = 0;
    double expected_lost = 0;
    for (const Window& w : b.windows[k]) {
      ASSERT_LE(w.bits, w.distinct);
      ASSERT_LE(w.distinct, w.row_sectors);
      ASSERT_LE(w.row_sectors, w.nnz);
      if (k == MatrixFeatures::kColumn) {
        ASSERT_EQ(w.row_sectors, w.nnz);
      }
      ASSERT_LE(w.bits, w.estimate);
      ASSERT_LE(w.estimate, w.row_sectors);
      if (w.bits == kBits) {
        ASSERT_EQ(w.estimate, w.row_sectors);
      }
      if (w.distinct <= 64) {
        ASSERT_LE(w.estimate, w.distinct + 1);
        ASSERT_LE(std::abs(w.estimate - w.distinct), w.distinct - w.bits + (w.bits == 64 ? 1 : 0));
        if (w.distinct <= 63 && w.bits == w.distinct) {
          ASSERT_EQ(w.estimate, w.distinct);
        }
        lost += w.distinct - w.bits;
        expected_lost +=
            static_cast<double>(w.distinct * (w.distinct - 1)) / (2.0 * static_cast<double>(kBits));
      }
    }
    EXPECT_LE(static_cast<double>(lost), expected_lost + 6 * std::sqrt(expected_lost) + 3);
  }
}

TEST(FeaturesWindowEstimate, CloseToTheExactCount) {
  const uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (const auto& [name, A] : random_matrices(seed)) check_window_estimates(brute_force(A), name);
  for (const auto& spec : kGeneratorSpecs)
    check_window_estimates(brute_force(gen::generate<double, int32_t>(spec)), spec);
}

// A window of one row of 10^6 nonzeros (columns 2k or 2k + 1) fills its bitmap at every granularity
// (250000, 500000 and 10^6 distinct sectors); its estimate is then its row sectors, here exactly
// the distinct count, where the window's nnz (the cap before) was 4× (f32) and 2× (f64) too high.
// (RandomMatricesMatchBruteForce checks this matrix's features against the brute force.)
TEST(FeaturesWindowEstimate, FullBitmapGivesTheRowSectors) {
  const auto A = one_huge_row<double, int32_t>(1000000, test::fresh_seed());
  const MatrixFeatures f = features(A);
  for (int k = 0; k < kGranularities; ++k) {
    SCOPED_TRACE(kGranularityNames[k]);
    const int shift = detail::feature_rules::sector_shift(k);
    std::vector<int64_t> distinct;  // the row's sectors: its columns are sorted
    for (const int32_t col : A.col_idx)
      if (distinct.empty() || distinct.back() != col >> shift) distinct.push_back(col >> shift);
    std::bitset<kBits> bits;
    for (const int64_t sector : distinct)
      bits.set(static_cast<std::size_t>(detail::splitmix64_mix(static_cast<uint64_t>(sector)) % kBits));
    EXPECT_EQ(bits.count(), static_cast<std::size_t>(kBits));
    const auto g = static_cast<std::size_t>(k);
    EXPECT_EQ(f.window_sectors[g], static_cast<int64_t>(distinct.size()));
    EXPECT_EQ(f.row_sectors[g], static_cast<int64_t>(distinct.size()));
  }
  EXPECT_EQ(f.window_sectors[MatrixFeatures::kColumn], 1000000);
}

TEST(Features, SharedMatricesMatchBruteForce) {
  const auto dir = test::shared_matrices_dir();
  if (dir.empty()) GTEST_SKIP() << "shared matrices not found (set SPX_SHARED_MATRICES)";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (!file.ends_with(".mtx") && !file.ends_with(".mtx.gz")) continue;
    const auto A = read_matrix_market<double, int32_t>(entry.path().string());
    const BruteForce b = brute_force(A);
    const MatrixFeatures f = features(A);
    expect_same_features(f, b.f, file);
    expect_identities(f, file);
    check_window_estimates(b, file);
    ++count;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(count, 0);
}

TEST(Features, ToStringNamesEveryField) {
  Csr<double, int32_t> A(3, 20);
  A.row_ptr = {0, 4, 4, 7};
  A.col_idx = {0, 1, 7, 8, 9, 17, 19};
  A.values.assign(7, 1.0);
  const std::string text = to_string(features(A));
  for (const char* name : {"rows:",
                           "cols:",
                           "nnz:",
                           "min_row:",
                           "max_row:",
                           "avg_row:",
                           "stddev_row:",
                           "empty_rows:",
                           "sum_sq_row:",
                           "hyb_width:",
                           "hyb_ell_nnz:",
                           "nonempty_cols:",
                           "sell_slots:",
                           "x_sectors_f32:",
                           "x_sectors_f64:",
                           "x_sectors_col:",
                           "row_sectors_f32:",
                           "row_sectors_f64:",
                           "row_sectors_col:",
                           "window_sectors_f32:",
                           "window_sectors_f64:",
                           "window_sectors_col:",
                           "len_0:",
                           "len_2-3:",
                           "len_4-7:"})
    EXPECT_NE(text.find(name), std::string::npos) << name << " in\n" << text;
  const auto line = text.find("len_4-7:");
  ASSERT_NE(line, std::string::npos);
  EXPECT_EQ(text.substr(line, text.find('\n', line) - line).ends_with(" 1 rows, 4 nnz"), true) << text;
  EXPECT_EQ(text.find("len_1:"), std::string::npos) << "empty buckets are left out";
  EXPECT_NE(text.back(), '\n');
}

TEST(Features, RejectsInvalidMatrix) {
  Csr<double, int32_t> A(2, 5);
  A.row_ptr = {0, 2, 3};
  A.col_idx = {3, 1, 0};  // row 0 unsorted
  A.values.assign(3, 1.0);
  EXPECT_THROW(features(A), Error);
}

}  // namespace
}  // namespace spx
