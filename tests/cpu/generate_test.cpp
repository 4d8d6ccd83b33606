// Generators: canonical output, closed-form sizes, promised structure (symmetry, dominance, row
// length laws), determinism across seeds and thread counts, spec parsing and its errors, and the
// index-overflow guard that must fire before anything big is allocated.
#include "spx/generate.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "generate/det_math.hpp"
#include "generate/random.hpp"
#include "spx/error.hpp"

namespace {

using spx::Csr;
using testing::HasSubstr;
namespace gen = spx::gen;

// Checked here as well as by A.validate(), so a bug in either shows up.
template <class T, class I>
void expect_canonical(const Csr<T, I>& A) {
  EXPECT_NO_THROW(A.validate());
  ASSERT_GE(A.rows, 0);
  ASSERT_EQ(A.row_ptr.size(), static_cast<std::size_t>(A.rows) + 1);
  ASSERT_EQ(A.row_ptr.front(), 0);
  ASSERT_EQ(static_cast<std::size_t>(A.row_ptr.back()), A.col_idx.size());
  ASSERT_EQ(A.col_idx.size(), A.values.size());
  for (I r = 0; r < A.rows; ++r) {
    ASSERT_LE(A.row_ptr[r], A.row_ptr[r + 1]) << "row " << r;
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      ASSERT_GE(A.col_idx[k], 0) << "row " << r;
      ASSERT_LT(A.col_idx[k], A.cols) << "row " << r;
      if (k > A.row_ptr[r]) {
        ASSERT_LT(A.col_idx[k - 1], A.col_idx[k]) << "row " << r << " not strictly increasing";
      }
      ASSERT_TRUE(std::isfinite(A.values[k]) && A.values[k] != T{0})
          << "row " << r << " value " << A.values[k];
    }
  }
}

// Transpose by counting; equal to A (pattern, and values when asked) means symmetric.
template <class T, class I>
void expect_symmetric(const Csr<T, I>& A, bool values_too) {
  ASSERT_EQ(A.rows, A.cols);
  std::vector<I> ptr(A.rows + 1, 0), col(A.col_idx.size());
  std::vector<T> val(A.values.size());
  for (I c : A.col_idx) ++ptr[c + 1];
  for (I r = 0; r < A.rows; ++r) ptr[r + 1] += ptr[r];
  std::vector<I> next(ptr.begin(), ptr.end() - 1);
  for (I r = 0; r < A.rows; ++r)
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      col[next[A.col_idx[k]]] = r;
      val[next[A.col_idx[k]]++] = A.values[k];
    }
  EXPECT_EQ(ptr, A.row_ptr);
  EXPECT_EQ(col, A.col_idx);
  if (values_too) {
    EXPECT_EQ(val, A.values);
  }
}

template <class T, class I>
void expect_strictly_diagonally_dominant(const Csr<T, I>& A) {
  for (I r = 0; r < A.rows; ++r) {
    double diagonal = 0, off = 0;
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      (A.col_idx[k] == r ? diagonal : off) += A.col_idx[k] == r ? A.values[k] : std::abs(A.values[k]);
    ASSERT_GT(diagonal, off) << "row " << r;
  }
}

template <class T, class I>
std::vector<int64_t> row_lengths(const Csr<T, I>& A) {
  std::vector<int64_t> lengths(A.rows);
  for (I r = 0; r < A.rows; ++r) lengths[r] = A.row_ptr[r + 1] - A.row_ptr[r];
  return lengths;
}

// The common case, short enough to sit inside EXPECT_* macros.
Csr<double, int32_t> make(const std::string& spec) { return gen::generate<double, int32_t>(spec); }

template <class T, class I>
bool identical(const Csr<T, I>& A, const Csr<T, I>& B) {
  return A.rows == B.rows && A.cols == B.cols && A.row_ptr == B.row_ptr && A.col_idx == B.col_idx &&
         A.values == B.values;
}

// FNV-1a over shape, pattern and value bits: a golden number per spec pins the exact output.
template <class T, class I>
uint64_t content_hash(const Csr<T, I>& A) {
  uint64_t h = 1469598103934665603ULL;
  const auto eat = [&h](const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  };
  const int64_t shape[2] = {A.rows, A.cols};
  eat(shape, sizeof shape);
  for (I v : A.row_ptr) eat(&v, sizeof v);
  for (I v : A.col_idx) eat(&v, sizeof v);
  for (T v : A.values) eat(&v, sizeof v);
  return h;
}

// Thread count for one scope. The thread sweep below proves results do not depend on it; other
// tests run on one thread because on a loaded 2-core CI machine every parallel region can cost
// milliseconds of waiting for a descheduled worker.
class ScopedThreads {
 public:
  explicit ScopedThreads(int n) : saved_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~ScopedThreads() { omp_set_num_threads(saved_); }
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int saved_;
};

// Specs of every randomized kind, small enough for thread and seed sweeps.
// Each is above the size where generators start threads, so the thread sweep exercises them.
const std::vector<std::string> kRandomSpecs = {
    "fem:rows=3000,len=50",    "banded:n=3000,bw=20,density=0.3",     "powerlaw:n=8000,avg=6,exp=1.8",
    "rmat:scale=13,ef=8",      "blockdense:n=1000,block=8,per_row=5", "longrows:rows=20000,long=2,len=2500",
    "dense:rows=200,cols=300", "random:rows=2000,cols=5000,len=40"};

TEST(Generate, EveryKindsDefaultIsCanonical) {
  const ScopedThreads one(1);
  ASSERT_EQ(gen::generators().size(), 13u);
  for (const gen::GeneratorInfo& info : gen::generators()) {
    SCOPED_TRACE(info.kind);
    EXPECT_FALSE(info.keys.empty());
    EXPECT_FALSE(info.summary.empty());
    const auto A = gen::generate<double, int32_t>(info.kind);
    EXPECT_GT(A.nnz(), 0);
    expect_canonical(A);
  }
}

TEST(Generate, AllValueAndIndexTypes) {
  const auto a = gen::generate<float, int32_t>("powerlaw:n=500");
  const auto b = gen::generate<float, int64_t>("powerlaw:n=500");
  const auto c = gen::generate<double, int32_t>("powerlaw:n=500");
  const auto d = gen::generate<double, int64_t>("powerlaw:n=500");
  expect_canonical(a);
  expect_canonical(b);
  expect_canonical(d);
  ASSERT_EQ(c.col_idx.size(), d.col_idx.size());
  EXPECT_TRUE(std::equal(c.col_idx.begin(), c.col_idx.end(), d.col_idx.begin()));
  EXPECT_TRUE(std::equal(a.col_idx.begin(), a.col_idx.end(), b.col_idx.begin()));
  for (std::size_t k = 0; k < a.values.size(); ++k) ASSERT_EQ(a.values[k], static_cast<float>(c.values[k]));
}

TEST(GenerateStencil, ClosedFormCountsAndLaplacianValues) {
  // 5-point: n + 2 (nx-1) ny + 2 nx (ny-1); 7-point likewise in 3-D; 27-point: prod (3 n_d - 2).
  const auto A = gen::stencil_2d_5pt<double, int32_t>(7, 5);
  EXPECT_EQ(A.rows, 35);
  EXPECT_EQ(A.nnz(), 35 + 2 * 6 * 5 + 2 * 7 * 4);
  const auto B = gen::stencil_3d_7pt<double, int32_t>(4, 5, 6);
  EXPECT_EQ(B.rows, 120);
  EXPECT_EQ(B.nnz(), 120 + 2 * (3 * 5 * 6 + 4 * 4 * 6 + 4 * 5 * 5));
  const auto C = gen::stencil_3d_27pt<double, int64_t>(4, 5, 6);
  EXPECT_EQ(C.rows, 120);
  EXPECT_EQ(C.nnz(), 10 * 13 * 16);
  const auto D = gen::stencil_3d_7pt<float, int32_t>(1, 1, 9);  // degenerate grid: a 1-D chain
  EXPECT_EQ(D.nnz(), 9 + 2 * 8);

  for (const auto* M : {&A, &B}) {
    expect_canonical(*M);
    expect_symmetric(*M, true);
  }
  expect_canonical(C);
  expect_symmetric(C, true);
  expect_canonical(D);
  // Interior rows of a Laplacian sum to zero; boundary rows are positive (strict dominance).
  const auto row_sum = [](const auto& M, int64_t r) {
    double s = 0;
    for (auto k = M.row_ptr[r]; k < M.row_ptr[r + 1]; ++k) s += M.values[k];
    return s;
  };
  EXPECT_EQ(row_sum(A, 1 + 7 * 2), 0.0);            // (1, 2) interior
  EXPECT_EQ(row_sum(A, 0), 2.0);                    // corner: 4 - 2
  EXPECT_EQ(row_sum(C, 1 + 4 * (1 + 5 * 1)), 0.0);  // (1, 1, 1) interior
  EXPECT_EQ(row_sum(C, 0), 26.0 - 7.0);             // corner: 7 neighbours
}

TEST(GenerateStencil, SpecForms) {
  EXPECT_EQ(make("stencil2d:nx=30,ny=20").rows, 600);
  EXPECT_EQ(make("stencil2d:n=30").rows, 900);
  EXPECT_EQ(make("stencil7:n=10,nz=3").rows, 300);
  const auto A = gen::generate<double, int32_t>(" stencil27 : n = 6 , seed=4 ");
  EXPECT_EQ(A.nnz(), 16 * 16 * 16);
  EXPECT_EQ(make("stencil27").rows, 16 * 16 * 16);
}

TEST(GenerateFem, RowLengthsBlocksSymmetryDominance) {
  for (const int len : {9, 27, 50, 81}) {
    SCOPED_TRACE(len);
    const auto A = gen::fem_like<double, int32_t>(12000, len, 7);
    expect_canonical(A);
    expect_symmetric(A, true);
    expect_strictly_diagonally_dominant(A);
    const auto lengths = row_lengths(A);
    double mean = 0;
    int64_t longest = 0;
    for (int64_t l : lengths) {
      mean += static_cast<double>(l);
      longest = std::max(longest, l);
    }
    mean /= static_cast<double>(lengths.size());
    // Exactly len on average in the interior; the first/last few hundred nodes lose neighbours.
    EXPECT_NEAR(mean, len, 0.1 * len);
    EXPECT_LE(longest, len + 6);
    const int64_t mid = A.rows / 2;  // an interior row
    EXPECT_NEAR(static_cast<double>(lengths[mid]), len, 6.0);
  }
  // Dense 3 x 3 node blocks for len >= 27: rows come in identical triples.
  const auto E = gen::fem_like<double, int32_t>(3000, 40, 1);
  for (int32_t r = 0; r + 2 < E.rows; r += 3)
    ASSERT_TRUE(std::equal(E.col_idx.begin() + E.row_ptr[r], E.col_idx.begin() + E.row_ptr[r + 1],
                           E.col_idx.begin() + E.row_ptr[r + 2], E.col_idx.begin() + E.row_ptr[r + 3]));
}

TEST(GenerateBanded, BandSymmetryDensity) {
  const auto A = gen::banded<double, int32_t>(4000, 25, 0.3, 5);
  expect_canonical(A);
  expect_symmetric(A, true);
  expect_strictly_diagonally_dominant(A);
  for (int32_t r = 0; r < A.rows; ++r) {
    ASSERT_GE(A.col_idx[A.row_ptr[r]], r - 25);
    ASSERT_LE(A.col_idx[A.row_ptr[r + 1] - 1], r + 25);
  }
  const double expected = 4000 * (1 + 2 * 25 * 0.3);
  EXPECT_NEAR(static_cast<double>(A.nnz()), expected, 0.05 * expected);
  const auto full = gen::banded<double, int32_t>(100, 3, 1.0, 5);
  EXPECT_EQ(full.nnz(), 100 + 2 * (99 + 98 + 97));
}

TEST(GeneratePowerLaw, HeavyTailWithRequestedMean) {
  for (const double exponent : {1.5, 2.0, 3.0}) {
    SCOPED_TRACE(exponent);
    const auto A = gen::power_law<double, int32_t>(20000, 10.0, exponent, 3);
    expect_canonical(A);
    const auto lengths = row_lengths(A);
    const double mean = static_cast<double>(A.nnz()) / A.rows;
    const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
    EXPECT_NEAR(mean, 10.0, 1.0);
    EXPECT_GT(static_cast<double>(longest), 8 * mean);
    EXPECT_GE(*std::min_element(lengths.begin(), lengths.end()), 1);
  }
  // Exponents below 1 (mean dominated by the cap) still hit the mean.
  const auto B = gen::power_law<double, int32_t>(2000, 50.0, 0.5, 3);
  expect_canonical(B);
  EXPECT_NEAR(static_cast<double>(B.nnz()) / B.rows, 50.0, 5.0);
}

TEST(GenerateRmat, ShapeDuplicatesMergedSkewed) {
  const auto A = gen::rmat<double, int32_t>(12, 8, 0.57, 0.19, 0.19, 9);
  expect_canonical(A);
  EXPECT_EQ(A.rows, 4096);
  EXPECT_EQ(A.cols, 4096);
  EXPECT_LE(A.nnz(), 8 * 4096);
  EXPECT_GT(A.nnz(), 6 * 4096);  // merging removes some, not most
  const auto lengths = row_lengths(A);
  EXPECT_GT(lengths[0], 50 * 8);  // the hub: row 0 takes (a + b)^scale of the edges
  // a = 1 puts every edge on (0, 0): one entry after merging.
  const auto B = gen::rmat<float, int64_t>(5, 4, 1.0, 0.0, 0.0, 1);
  EXPECT_EQ(B.nnz(), 1);
  EXPECT_EQ(B.col_idx[0], 0);
}

TEST(GenerateBlockDense, TilesIncludeDiagonal) {
  const auto A = gen::block_dense<double, int32_t>(1000, 8, 5, 2);
  expect_canonical(A);
  for (int32_t r = 0; r < A.rows; ++r) {
    ASSERT_EQ(A.row_length(r), 5 * 8) << r;  // 8 divides 1000: no partial tiles
    const auto begin = A.col_idx.begin() + A.row_ptr[r], end = A.col_idx.begin() + A.row_ptr[r + 1];
    ASSERT_TRUE(std::binary_search(begin, end, r));
    for (auto it = begin; it != end; it += 8) ASSERT_EQ(*it % 8, 0);  // whole tiles
  }
  const auto B = gen::block_dense<double, int32_t>(10, 4, 3, 2);  // partial last tile
  expect_canonical(B);
  EXPECT_EQ(B.nnz(), 100);
}

TEST(GenerateLongRows, RequestedLongEmptyAndShortRows) {
  const auto A = gen::long_rows<double, int32_t>(20000, 30000, 3, 25000, 0.6, 5, 11);
  expect_canonical(A);
  int64_t longs = 0, empties = 0, shorts = 0;
  std::vector<int32_t> long_at;
  for (int32_t r = 0; r < A.rows; ++r) {
    const int64_t len = A.row_length(r);
    if (len == 25000) {
      ++longs;
      long_at.push_back(r);
    } else if (len == 0) {
      ++empties;
    } else {
      ASSERT_EQ(len, 5);
      ++shorts;
    }
  }
  EXPECT_EQ(longs, 3);
  EXPECT_EQ(empties, 11998);  // round(0.6 * 19997)
  EXPECT_EQ(shorts, 19997 - 11998);
  // Random positions, different for another seed.
  const auto B = gen::long_rows<double, int32_t>(20000, 30000, 3, 25000, 0.6, 5, 12);
  std::vector<int32_t> other_at;
  for (int32_t r = 0; r < B.rows; ++r)
    if (B.row_length(r) == 25000) other_at.push_back(r);
  EXPECT_NE(long_at, other_at);
  EXPECT_NE(long_at, (std::vector<int32_t>{0, 1, 2}));
  // A long row may be the full row.
  const auto C = gen::long_rows<double, int32_t>(50, 40, 2, 40, 0.0, 1, 1);
  expect_canonical(C);
  EXPECT_EQ(C.nnz(), 2 * 40 + 48);
}

TEST(GenerateUniform, DenseAndRandom) {
  const auto D = gen::dense_as_sparse<float, int32_t>(17, 23, 1);
  expect_canonical(D);
  EXPECT_EQ(D.nnz(), 17 * 23);
  const auto R = gen::random_uniform<double, int64_t>(500, 800, 600, 1);  // dense-ish rows use the complement
  expect_canonical(R);
  for (int64_t r = 0; r < R.rows; ++r) ASSERT_EQ(R.row_length(r), 600);
  const auto S = gen::random_uniform<double, int32_t>(500, 100000, 20, 1);
  expect_canonical(S);
  EXPECT_EQ(S.nnz(), 500 * 20);
}

TEST(GenerateDeterminism, SameSeedSameMatrixOtherSeedOther) {
  const ScopedThreads one(1);
  for (const std::string& spec : kRandomSpecs) {
    SCOPED_TRACE(spec);
    const auto A = gen::generate<double, int32_t>(spec + ",seed=5");
    const auto B = gen::generate<double, int32_t>(spec + ",seed=5");
    const auto C = gen::generate<double, int32_t>(spec + ",seed=6");
    expect_canonical(A);
    EXPECT_TRUE(identical(A, B));
    EXPECT_FALSE(identical(A, C));
  }
}

TEST(GenerateDeterminism, IndependentOfThreadCount) {
  for (const std::string& spec : kRandomSpecs) {
    SCOPED_TRACE(spec);
    const auto with = [&spec](int threads) {
      const ScopedThreads scoped(threads);
      return gen::generate<float, int32_t>(spec);
    };
    const auto one = with(1);
    EXPECT_TRUE(identical(one, with(2)));
    EXPECT_TRUE(identical(one, with(3)));
  }
}

// The exact output is part of the contract (benchmarks compare runs by spec); these pin it, so a
// change to a generator's stream shows up here and on every platform the tests run on.
TEST(GenerateDeterminism, GoldenHashes) {
  EXPECT_EQ(content_hash(make("powerlaw:n=2000,avg=5,exp=2.2")), 7192430503375985297u);
  EXPECT_EQ(content_hash(make("rmat:scale=10,ef=8")), 17909125964528748647u);
  EXPECT_EQ(content_hash(make("fem:rows=3000,len=50")), 6398043500846902769u);
  EXPECT_EQ(content_hash(make("longrows:rows=3000,long=2,len=2500")), 2157269539438817408u);
}

TEST(GenerateDetail, OwnMathMatchesLibm) {
  using spx::gen::detail::det_exp;
  using spx::gen::detail::det_log;
  for (double x : {1e-300, 0.001, 0.5, 0.999, 1.0, 1.5, 2.0, 3.7, 1e6, 1e300})
    EXPECT_NEAR(det_log(x), std::log(x), 4e-16 * std::max(1.0, std::abs(std::log(x)))) << x;
  for (double x : {-700.0, -20.0, -1.0, -1e-9, 0.0, 0.3, 1.0, 10.0, 700.0})
    EXPECT_NEAR(det_exp(x), std::exp(x), 1e-15 * std::exp(x)) << x;
}

TEST(GenerateDetail, RngBelowIsInRangeAndSpread) {
  spx::gen::detail::Rng rng(42, 0);
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 70000; ++i) ++hits[rng.below(7)];
  for (int h : hits) EXPECT_NEAR(h, 10000, 500);
  EXPECT_EQ(spx::gen::detail::mul_high(~0ULL, ~0ULL), ~0ULL - 1);
}

void expect_error(const std::string& spec, const std::vector<std::string>& fragments) {
  SCOPED_TRACE(spec);
  try {
    gen::generate<double, int32_t>(spec);
    ADD_FAILURE() << "no error";
  } catch (const spx::Error& e) {
    for (const std::string& f : fragments) EXPECT_THAT(e.what(), HasSubstr(f));
  }
}

TEST(GenerateSpec, ErrorsSayWhatIsAccepted) {
  expect_error("stencil9:n=3", {"unknown kind 'stencil9'", "stencil2d", "stencil27", "rmat", "longrows"});
  expect_error("", {"unknown kind ''"});
  expect_error("stencil27:size=3", {"unknown key 'size'", "n=16 nx=n ny=n nz=n", "seed"});
  expect_error("stencil27:n", {"'n' is not key=value"});
  expect_error("stencil27:n=", {"'n=' is not key=value"});
  expect_error("stencil27:=4", {"is not key=value"});
  expect_error("stencil27:n=abc", {"n=abc is not an integer"});
  expect_error("stencil27:n=1.5", {"n=1.5 is not an integer"});
  expect_error("stencil27:n=4,n=5", {"key 'n' given twice"});
  expect_error("banded:density=lots", {"density=lots is not a number"});
  expect_error("banded:density=nan", {"density=nan is not a number"});
  expect_error("rmat:seed=-1", {"seed=-1 is not an unsigned"});
  expect_error("rmat:scale=99999999999", {"scale=99999999999 is out of range"});
  // The generators' own checks, with the spec in front and the parameter named.
  expect_error("stencil2d:nx=0", {"generator spec \"stencil2d:nx=0\"", "nx = 0 must be >= 1"});
  expect_error("stencil7:n=-3", {"nx = -3"});
  expect_error("fem:len=500", {"row_len (len) = 500"});
  expect_error("fem:rows=20,len=27", {"row_len (len) = 27", "<= rows = 20"});
  expect_error("banded:density=0", {"density = 0 must be in (0, 1]"});
  expect_error("banded:density=1.5", {"density = 1.5"});
  expect_error("banded:bw=-1", {"half_bandwidth (bw) = -1"});
  expect_error("powerlaw:exp=0", {"exponent (exp) = 0 must be in (0, 100]"});
  expect_error("powerlaw:exp=-2", {"exponent (exp) = -2"});
  expect_error("powerlaw:n=100,avg=200", {"avg_row (avg) = 200", "[1, n = 100]"});
  expect_error("powerlaw:avg=0.5", {"avg_row (avg) = 0.5"});
  expect_error("rmat:a=0.6,b=0.3,c=0.2", {"a + b + c = 1.1", "must be <= 1"});
  expect_error("rmat:a=-0.1", {"a = -0.1"});
  expect_error("rmat:scale=0", {"scale = 0"});
  expect_error("rmat:ef=0", {"edge_factor (ef) = 0"});
  expect_error("blockdense:n=100,block=10,per_row=11", {"blocks_per_row (per_row) = 11", "1..10"});
  expect_error("blockdense:n=100,block=0", {"block = 0"});
  expect_error("longrows:rows=100,cols=50,len=51", {"long_len (len) = 51", "0..cols = 50"});
  expect_error("longrows:rows=100,long=101", {"long_rows (long) = 101"});
  expect_error("longrows:rows=100,len=50,short=101", {"short_len (short) = 101"});
  expect_error("longrows:rows=100,len=50,empty=1.5", {"empty_fraction (empty) = 1.5"});
  expect_error("random:rows=10,cols=5,len=6", {"row_len (len) = 6", "0..cols = 5"});
  expect_error("dense:rows=-1", {"rows = -1 must be >= 0"});
}

TEST(GenerateSpec, NumbersAndShorthands) {
  EXPECT_EQ(make("dense:n=2e1").nnz(), 400);
  EXPECT_EQ(make("dense:rows=3,cols=5").nnz(), 15);
  EXPECT_EQ(make("random:n=100,len=3").cols, 100);
  EXPECT_EQ(make("longrows:n=100,long=1,len=100,empty=0,short=1").nnz(), 199);
  EXPECT_EQ(make("fem:n=900,len=9").rows, 900);
  EXPECT_EQ(make("rmat:scale=6,ef=2,a=0.25,b=0.25,c=0.25").rows, 64);
}

// Sizes whose nnz (or rows) exceed int32 must be refused before the big allocations: each of
// these would need gigabytes, so finishing in milliseconds shows nothing was allocated.
TEST(GenerateSpec, Int32OverflowIsRefusedBeforeAllocating) {
  const std::vector<std::string> too_big = {
      "stencil27:n=600",                        // 2.2e8 rows fit, 5.8e9 nnz do not
      "stencil7:n=1400",                        // 2.7e9 rows
      "stencil2d:n=30000",                      // 9e8 rows fit, 4.5e9 nnz
      "fem:rows=100000000,len=50",              // 5e9 nnz
      "banded:n=1000000000,bw=10,density=0.5",  // 1.1e10 nnz
      "powerlaw:n=1000000000,avg=8",            // 8e9 nnz
      "rmat:scale=27,ef=16",                    // 2^31 edges
      "rmat:scale=31,ef=1",                     // 2^31 rows
      "blockdense:n=1000000000,block=16,per_row=4",
      "longrows:rows=2000000000,cols=2000000000,long=2,len=2000000000",
      "dense:rows=100000,cols=100000",
      "random:rows=1000000000,len=16",
      "dense:rows=3000000000",  // does not even fit the parameter
  };
  for (const std::string& spec : too_big) {
    SCOPED_TRACE(spec);
    const auto start = std::chrono::steady_clock::now();
    try {
      gen::generate<float, int32_t>(spec);
      ADD_FAILURE() << "no error";
    } catch (const spx::Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("64-bit indices"));
      // Each surface's way to build it wide, by the name it has there.
      EXPECT_THAT(e.what(), HasSubstr("spx gen --index int64"));
      EXPECT_THAT(e.what(), HasSubstr("spx cg --index 64"));
      EXPECT_THAT(e.what(), HasSubstr("gen::generate<T, int64_t>"));
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.2);
  }
  // Past int64: a clear error, not a wrapped product.
  expect_error("stencil7:n=3000000", {"overflows 64 bits"});
  const int64_t huge = int64_t{1} << 30;
  EXPECT_THROW((gen::stencil_3d_7pt<float, int64_t>(huge, huge, huge)), spx::Error);
  // Fits int64 but no array can hold it: an spx::Error, not std::length_error.
  EXPECT_THROW((gen::dense_as_sparse<float, int64_t>(int64_t{1} << 62, 1)), spx::Error);
}

// Every comma separates two key=value items: an empty one is a typo, not a default.
TEST(GenerateSpec, EmptyItemsAreErrors) {
  for (const char* spec : {"stencil27:n=4,,", "stencil27:n=4,", "stencil27:,n=4", "stencil27:n=4,,nz=2"}) {
    SCOPED_TRACE(spec);
    expect_error(spec, {fmt::format("generator spec \"{}\"", spec), "empty item"});
  }
  EXPECT_EQ(make("stencil27:n=4").rows, 64);
  EXPECT_EQ(make("stencil27:").rows, 16 * 16 * 16);
}

// fem2d's element matrices (n^2 (p+1)^4 doubles) used to be allocated before any size check:
// fem2d:n=2000,p=4 asked for 20 GB and died with bad_alloc. Now the exact nonzeros and the bytes
// are computed first, in O(n p), and a refusal says the size.
TEST(GenerateFem, TooLargeProblemsAreRefusedBeforeAllocating) {
  for (const char* spec : {"fem2d:n=2000,p=4", "fem2d:n=20000"}) {
    SCOPED_TRACE(spec);
    const auto start = std::chrono::steady_clock::now();
    expect_error(spec,
                 {fmt::format("generator spec \"{}\"", spec), "nonzeros, more than int32 indices hold"});
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.5);
  }
  // Past int64 (n p - 1)^2 is still said as the real number, not -1.
  expect_error("fem2d:dofs=1e12", {"gives 1000000000000 unknowns"});
  expect_error("fem2d:n=4000000000000000000", {"gives 1.600e+37 unknowns"});
  expect_error("fem2d:p=5", {"p = 5 must be 1, 2, 3 or 4"});
  expect_error("fem2d:kappa=1", {"kappa = 1"});
}

// A size that fits the index type but not the machine: refused with the bytes it needs and the
// bytes available, before the allocation (not std::bad_alloc or the OOM killer).
TEST(GenerateSpec, SizesPastHostMemoryAreRefusedWithTheNumbers) {
  try {
    gen::generate<double, int64_t>("random:rows=1e13,len=1");
    ADD_FAILURE() << "no error";
  } catch (const spx::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("of host memory"));
    EXPECT_THAT(e.what(), HasSubstr("available"));
  }
  EXPECT_THROW((gen::rmat<float, int64_t>(40, 1024, 0.57, 0.19, 0.19, 1)), spx::Error);
}

}  // namespace

// Found by the generator-spec fuzzer: exp=1e5 underflowed the window fit to NaN (undefined
// behaviour converting it to int) and returned rows of length 1 for avg=5, silently.
TEST(GeneratePowerLaw, AnExponentPastTheLawsRangeIsRefused) {
  EXPECT_THROW((gen::generate<double, int32_t>("powerlaw:n=885,avg=5,exp=1e5")), spx::Error);
  EXPECT_THROW((gen::generate<double, int32_t>("powerlaw:n=885,avg=5,exp=101")), spx::Error);
  const auto A = gen::generate<double, int32_t>("powerlaw:n=885,avg=5,exp=100");
  EXPECT_NEAR(static_cast<double>(A.nnz()) / 885.0, 5.0, 0.5);
}
