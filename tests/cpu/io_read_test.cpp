// Matrix Market reading: every supported format/field/symmetry, layout freedom the standard
// allows (comments, blank lines, CRLF, any entry order), gzip, the header-only and dense readers,
// and the multi-threaded parse agreeing with the single-threaded one.
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/text_file.hpp"
#include "spx/io.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using TempFile = spx::test::TempPath;
using spx::Csr;
using spx::parse_matrix_market;

// A file in a per-process temporary folder, removed at the end of the test.
// Writes text as is, gzip-compressed when the name ends in .gz (through spx's own writer, which
// the write tests check separately against zlib's reader).
void write_text(const std::string& path, const std::string& text) {
  spx::io::TextWriter w(path);
  w.write(text);
  w.close();
}

template <class T, class I>
void expect_csr(const Csr<T, I>& A, I rows, I cols, const std::vector<I>& row_ptr,
                const std::vector<I>& col_idx, const std::vector<T>& values) {
  EXPECT_EQ(A.rows, rows);
  EXPECT_EQ(A.cols, cols);
  EXPECT_EQ(A.row_ptr, row_ptr);
  EXPECT_EQ(A.col_idx, col_idx);
  EXPECT_EQ(A.values, values);
  EXPECT_NO_THROW(A.validate());
}

template <class T, class I>
void expect_same(const Csr<T, I>& A, const Csr<T, I>& B) {
  ASSERT_EQ(A.rows, B.rows);
  ASSERT_EQ(A.cols, B.cols);
  ASSERT_EQ(A.row_ptr, B.row_ptr);
  ASSERT_EQ(A.col_idx, B.col_idx);
  ASSERT_EQ(A.values.size(), B.values.size());
  for (std::size_t k = 0; k < A.values.size(); ++k) {
    ASSERT_EQ(A.values[k], B.values[k]) << "value " << k;
  }
}

// Coordinate text for A, entries in the given order (a permutation of 0..nnz-1), values with
// the full precision of double.
template <class T, class I>
std::string coordinate_text(const Csr<T, I>& A, const std::vector<std::size_t>& order) {
  std::vector<std::pair<I, I>> where;
  for (I r = 0; r < A.rows; ++r) {
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) where.emplace_back(r, A.col_idx[k]);
  }
  std::string s = "%%MatrixMarket matrix coordinate real general\n";
  s += std::to_string(A.rows) + " " + std::to_string(A.cols) + " " + std::to_string(A.nnz()) + "\n";
  char buf[64];
  for (std::size_t k : order) {
    std::snprintf(buf, sizeof buf, "%lld %lld %.17g\n", static_cast<long long>(where[k].first) + 1,
                  static_cast<long long>(where[k].second) + 1, static_cast<double>(A.values[k]));
    s += buf;
  }
  return s;
}

TEST(IoRead, CoordinateRealGeneral) {
  const auto A = parse_matrix_market<double, int32_t>(
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "3 4 4\n"
      "1 1 1.5\n"
      "3 4 -2e3\n"
      "1 3 .25\n"
      "2 2 7\n");
  expect_csr<double, int32_t>(A, 3, 4, {0, 2, 3, 4}, {0, 2, 1, 3}, {1.5, 0.25, 7.0, -2000.0});
}

TEST(IoRead, CoordinateInteger) {
  const auto A = parse_matrix_market<float, int64_t>(
      "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -3\n2 1 +4\n");
  expect_csr<float, int64_t>(A, 2, 2, {0, 1, 2}, {1, 0}, {-3.0f, 4.0f});
}

TEST(IoRead, CoordinatePatternValuesAreOne) {
  const auto A = parse_matrix_market<double, int32_t>(
      "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 1\n1 1\n");
  expect_csr<double, int32_t>(A, 2, 3, {0, 2, 3}, {0, 2, 0}, {1.0, 1.0, 1.0});
}

TEST(IoRead, SymmetricIsExpanded) {
  const auto A = parse_matrix_market<double, int32_t>(
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 2\n3 2 3\n3 3 4\n");
  // [1 2 0; 2 0 3; 0 3 4]
  expect_csr<double, int32_t>(A, 3, 3, {0, 2, 4, 6}, {0, 1, 0, 2, 1, 2}, {1, 2, 2, 3, 3, 4});
}

TEST(IoRead, SymmetricPatternIsExpanded) {
  const auto A = parse_matrix_market<float, int32_t>(
      "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n");
  expect_csr<float, int32_t>(A, 3, 3, {0, 1, 2, 3}, {1, 0, 2}, {1, 1, 1});
}

TEST(IoRead, SkewSymmetricMirrorsWithNegatedValue) {
  const auto A = parse_matrix_market<double, int32_t>(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 1 -1.5\n");
  // [0 -5 1.5; 5 0 0; -1.5 0 0]
  expect_csr<double, int32_t>(A, 3, 3, {0, 2, 3, 4}, {1, 2, 0, 0}, {-5, 1.5, 5, -1.5});
}

TEST(IoRead, ArrayGeneralIsColumnMajorAndDropsZeros) {
  const std::string text = "%%MatrixMarket matrix array real general\n% c\n2 3\n1\n0\n0\n4\n5\n-6\n";
  // [1 0 5; 0 4 -6]
  expect_csr<double, int32_t>(parse_matrix_market<double, int32_t>(text), 2, 3, {0, 2, 4}, {0, 2, 1, 2},
                              {1, 5, 4, -6});
  spx::ReadOptions keep;
  keep.keep_array_zeros = true;
  expect_csr<double, int32_t>(parse_matrix_market<double, int32_t>(text, "a", keep), 2, 3, {0, 3, 6},
                              {0, 1, 2, 0, 1, 2}, {1, 0, 5, 0, 4, -6});
}

TEST(IoRead, ArraySymmetricStoresLowerTriangle) {
  // Columns of the lower triangle: (1,1) (2,1) (3,1) (2,2) (3,2) (3,3).
  const auto A = parse_matrix_market<double, int64_t>(
      "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
  expect_csr<double, int64_t>(A, 3, 3, {0, 3, 6, 9}, {0, 1, 2, 0, 1, 2, 0, 1, 2},
                              {1, 2, 3, 2, 4, 5, 3, 5, 6});
}

TEST(IoRead, ArraySkewSymmetricStoresStrictLowerTriangle) {
  const auto A = parse_matrix_market<float, int32_t>(
      "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n");
  // [0 -1 -2; 1 0 -3; 2 3 0]
  expect_csr<float, int32_t>(A, 3, 3, {0, 2, 4, 6}, {1, 2, 0, 2, 0, 1}, {-1, -2, 1, -3, 2, 3});
}

TEST(IoRead, BannerWordsAreCaseInsensitive) {
  const auto A =
      parse_matrix_market<double, int32_t>("%%matrixmarket MATRIX Coordinate REAL General\n1 1 1\n1 1 2\n");
  expect_csr<double, int32_t>(A, 1, 1, {0, 1}, {0}, {2});
}

TEST(IoRead, CommentsBlankLinesTabsAndCrlf) {
  const auto A = parse_matrix_market<double, int32_t>(
      "%%MatrixMarket matrix coordinate real general\r\n"
      "%comment\r\n"
      "\r\n"
      "   \t\r\n"
      "% another\r\n"
      "  2\t2   2  \r\n"
      "\r\n"
      "1\t1\t3.5\r\n"
      "% comment among the entries\r\n"
      "  2 2 -1  \r\n"
      "\r\n");
  expect_csr<double, int32_t>(A, 2, 2, {0, 1, 2}, {0, 1}, {3.5, -1});
}

TEST(IoRead, LastLineWithoutNewline) {
  const auto A =
      parse_matrix_market<double, int32_t>("%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 9");
  expect_csr<double, int32_t>(A, 2, 2, {0, 0, 1}, {0}, {9});
}

TEST(IoRead, EmptyMatrices) {
  expect_csr<double, int32_t>(
      parse_matrix_market<double, int32_t>("%%MatrixMarket matrix coordinate real general\n0 0 0\n"), 0, 0,
      {0}, {}, {});
  expect_csr<double, int32_t>(
      parse_matrix_market<double, int32_t>("%%MatrixMarket matrix coordinate real general\n4 3 0"), 4, 3,
      {0, 0, 0, 0, 0}, {}, {});
  expect_csr<double, int32_t>(
      parse_matrix_market<double, int32_t>("%%MatrixMarket matrix array real general\n0 5\n"), 0, 5, {0}, {},
      {});
}

TEST(IoRead, DuplicatesAreSummedByDefault) {
  const auto A = parse_matrix_market<double, int32_t>(
      "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 2 1\n2 1 5\n1 2 2.5\n1 2 -0.5\n");
  expect_csr<double, int32_t>(A, 2, 2, {0, 1, 2}, {1, 0}, {3.0, 5.0});
}

TEST(IoRead, SymmetricDuplicatesAreSummedOnBothSides) {
  const auto A = parse_matrix_market<double, int32_t>(
      "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n2 1 2\n");
  expect_csr<double, int32_t>(A, 2, 2, {0, 1, 2}, {1, 0}, {3.0, 3.0});
}

TEST(IoRead, NonfiniteValuesWhenAllowed) {
  spx::ReadOptions opt;
  opt.allow_nonfinite = true;
  const auto A = parse_matrix_market<double, int32_t>(
      "%%MatrixMarket matrix coordinate real general\n1 4 4\n1 1 nan\n1 2 -inf\n1 3 Infinity\n1 4 1e999\n",
      "x", opt);
  ASSERT_EQ(A.nnz(), 4);
  EXPECT_TRUE(std::isnan(A.values[0]));
  EXPECT_EQ(A.values[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(A.values[2], std::numeric_limits<double>::infinity());
  EXPECT_EQ(A.values[3], std::numeric_limits<double>::infinity());
}

TEST(IoRead, UnderflowReadsAsTinyOrZero) {
  const auto A = parse_matrix_market<double, int32_t>(
      "%%MatrixMarket matrix coordinate real general\n1 3 3\n1 1 1e-400\n1 2 4.9e-324\n1 3 -1e-5000\n");
  EXPECT_EQ(A.values[0], 0.0);
  EXPECT_EQ(A.values[1], std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(A.values[2], 0.0);
  const auto F = parse_matrix_market<float, int32_t>(
      "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e-50\n");
  EXPECT_EQ(F.values[0], 0.0f);
}

// Values are from_chars' correctly rounded result for every spelling (a '+' sign included).
TEST(IoRead, ValuesAreCorrectlyRounded) {
  const char* tokens[] = {"0",
                          "-0",
                          "1",
                          "+2.5",
                          "0.1",
                          "-0.3",
                          "123456789012345678",
                          "1.7976931348623157e308",
                          "2.2250738585072014e-308",
                          "3.0968500000000000e+00",
                          "0.013641394020834",
                          "1e22",
                          "1e23",
                          "9007199254740993",
                          "1.5e-22",
                          "100000000000000000000000",
                          "5.",
                          ".5",
                          "1E5",
                          "-1.25E-3",
                          "0.000000000000000000000000000001"};
  std::string text = "%%MatrixMarket matrix coordinate real general\n1 " + std::to_string(std::size(tokens)) +
                     " " + std::to_string(std::size(tokens)) + "\n";
  for (std::size_t k = 0; k < std::size(tokens); ++k)
    text += "1 " + std::to_string(k + 1) + " " + tokens[k] + "\n";
  spx::ReadOptions lax;  // some are beyond float's range
  lax.allow_nonfinite = true;
  const auto D = parse_matrix_market<double, int32_t>(text);
  const auto F = parse_matrix_market<float, int32_t>(text, "f", lax);
  for (std::size_t k = 0; k < std::size(tokens); ++k) {
    SCOPED_TRACE(tokens[k]);
    const char* t = tokens[k][0] == '+' ? tokens[k] + 1 : tokens[k];
    double d = 0;
    float f = 0;
    std::from_chars(t, t + std::strlen(t), d);
    EXPECT_EQ(std::signbit(D.values[k]), std::signbit(d));
    EXPECT_EQ(D.values[k], d);
    if (std::from_chars(t, t + std::strlen(t), f).ec == std::errc{}) {
      EXPECT_EQ(F.values[k], f);
    } else {
      EXPECT_EQ(F.values[k], static_cast<float>(d));  // over- or underflow: infinity or zero
    }
  }
}

TEST(IoRead, RandomDecimalsMatchFromChars) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::string text;
  std::vector<std::string> tokens;
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    // Random digit strings with a random decimal point and exponent, 1 to 20 digits.
    std::string t = rng() % 2 ? "-" : "";
    const int digits = 1 + static_cast<int>(rng() % 20);
    const int point = static_cast<int>(rng() % (digits + 1));
    for (int i = 0; i < digits; ++i) {
      if (i == point) t += '.';
      t += static_cast<char>('0' + rng() % 10);
    }
    if (rng() % 2) {
      t += 'e';
      t += std::to_string(static_cast<int>(rng() % 61) - 30);
    }
    tokens.push_back(t);
  }
  text = "%%MatrixMarket matrix array real general\n" + std::to_string(n) + " 1\n";
  for (const auto& t : tokens) text += t + "\n";
  spx::ReadOptions keep;
  keep.keep_array_zeros = true;
  const auto D = parse_matrix_market<double, int32_t>(text, "r", keep);
  keep.allow_nonfinite = true;  // for float: 20-digit mantissas with e+30 overflow
  const auto F = parse_matrix_market<float, int32_t>(text, "r", keep);
  ASSERT_EQ(D.nnz(), n);
  for (int k = 0; k < n; ++k) {
    double d = 0;
    float f = 0;
    const char* b = tokens[k].data();
    const char* e = b + tokens[k].size();
    std::from_chars(b, e, d);
    ASSERT_EQ(D.values[k], d) << tokens[k];
    if (std::from_chars(b, e, f).ec == std::errc{}) {
      ASSERT_EQ(F.values[k], f) << tokens[k];
    } else {
      ASSERT_EQ(F.values[k], static_cast<float>(d)) << tokens[k];
    }
  }
}

TEST(IoRead, ShuffledEntriesGiveCanonicalCsr) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Odd sizes, empty rows, one huge row.
  auto A = spx::test::random_csr<double, int32_t>(517, 1201, 0, 9, seed, 0.2);
  {
    auto B = spx::test::random_csr<double, int32_t>(1, 1201, 900, 1100, seed + 1);
    const int32_t r = 211, add = B.nnz();
    std::vector<int32_t> cols(A.col_idx.begin(), A.col_idx.begin() + A.row_ptr[r]);
    std::vector<double> vals(A.values.begin(), A.values.begin() + A.row_ptr[r]);
    cols.insert(cols.end(), B.col_idx.begin(), B.col_idx.end());
    vals.insert(vals.end(), B.values.begin(), B.values.end());
    cols.insert(cols.end(), A.col_idx.begin() + A.row_ptr[r + 1], A.col_idx.end());
    vals.insert(vals.end(), A.values.begin() + A.row_ptr[r + 1], A.values.end());
    const int32_t removed = A.row_length(r);
    for (int32_t i = r + 1; i <= A.rows; ++i) A.row_ptr[i] += add - removed;
    A.col_idx = cols;
    A.values = vals;
  }
  std::vector<std::size_t> order(A.values.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  expect_same(parse_matrix_market<double, int32_t>(coordinate_text(A, order)), A);
}

TEST(IoRead, GzipIsDetectedByContentNotName) {
  const std::string text = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 4\n2 1 -1\n";
  TempFile gz(".gz"), plain(".mtx");
  write_text(gz.path(), text);
  write_text(plain.path(), text);
  const auto expected = parse_matrix_market<double, int32_t>(text);
  expect_same(spx::read_matrix_market<double, int32_t>(gz.path()), expected);
  expect_same(spx::read_matrix_market<double, int32_t>(plain.path()), expected);
  // A gzip file whose name does not say so.
  const std::string renamed = gz.path() + ".mtx";
  fs::copy_file(gz.path(), renamed);
  expect_same(spx::read_matrix_market<double, int32_t>(renamed), expected);
  fs::remove(renamed);
}

TEST(IoRead, ConcatenatedGzipMembers) {
  TempFile a(".gz"), b(".gz");
  write_text(a.path(), "%%MatrixMarket matrix coordinate real general\n2 2 2\n");
  write_text(b.path(), "1 1 1\n2 2 2\n");
  {
    std::ofstream out(a.path(), std::ios::binary | std::ios::app);
    std::ifstream in(b.path(), std::ios::binary);
    out << in.rdbuf();
  }
  expect_csr<double, int32_t>(spx::read_matrix_market<double, int32_t>(a.path()), 2, 2, {0, 1, 2}, {0, 1},
                              {1, 2});
}

TEST(IoRead, HeaderOnly) {
  TempFile f(".mtx.gz");
  std::string text = "%%MatrixMarket matrix coordinate integer symmetric\n% comment\n\n7 7 3\n";
  text += "1 1 1\n2 1 2\n7 7 3\n";
  write_text(f.path(), text);
  const auto h = spx::read_matrix_market_header(f.path());
  EXPECT_EQ(h.format, spx::MatrixMarketHeader::Format::Coordinate);
  EXPECT_EQ(h.field, spx::MatrixMarketHeader::Field::Integer);
  EXPECT_EQ(h.symmetry, spx::MatrixMarketHeader::Symmetry::Symmetric);
  EXPECT_EQ(h.rows, 7);
  EXPECT_EQ(h.cols, 7);
  EXPECT_EQ(h.entries, 3);

  TempFile g(".mtx");
  write_text(g.path(), "%%MatrixMarket matrix array real skew-symmetric\n4 4");
  const auto a = spx::read_matrix_market_header(g.path());
  EXPECT_EQ(a.format, spx::MatrixMarketHeader::Format::Array);
  EXPECT_EQ(a.entries, 6);  // strict lower triangle of 4 x 4
}

TEST(IoRead, HeaderOnlyStopsAtTheSizeLine) {
  // The body is garbage: the header reader must not look at it.
  TempFile f(".mtx");
  std::string text = "%%MatrixMarket matrix coordinate real general\n3 3 1000000\n";
  text += std::string(1 << 20, 'x');
  write_text(f.path(), text);
  EXPECT_EQ(spx::read_matrix_market_header(f.path()).entries, 1000000);
}

TEST(IoRead, DenseFromCoordinateAndArray) {
  TempFile c(".mtx"), a(".mtx");
  write_text(c.path(), "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n3 1 2\n");
  const auto D = spx::read_matrix_market_dense<double>(c.path());
  ASSERT_EQ(D.rows, 3);
  ASSERT_EQ(D.cols, 3);
  EXPECT_EQ(D(2, 0), 2.0);
  EXPECT_EQ(D(0, 2), -2.0);
  EXPECT_EQ(D(1, 1), 0.0);
  write_text(a.path(), "%%MatrixMarket matrix array real general\n2 2\n1\n0\n3\n4\n");
  const auto E = spx::read_matrix_market_dense<float>(a.path());
  EXPECT_EQ(E.layout, spx::Layout::ColMajor);
  EXPECT_EQ(E(0, 0), 1.0f);
  EXPECT_EQ(E(1, 0), 0.0f);
  EXPECT_EQ(E(0, 1), 3.0f);
  EXPECT_EQ(E(1, 1), 4.0f);
}

// Inputs above the parallel threshold (4 MB) are split between threads; the result must equal
// the single-thread parse, for sorted and unsorted, general and symmetric files.
TEST(IoRead, ParallelParseMatchesSequential) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto A = spx::test::random_csr<double, int32_t>(40001, 30011, 0, 12, seed, 0.05);
  std::vector<std::size_t> order(A.values.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  const std::string sorted = coordinate_text(A, order);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  const std::string shuffled = coordinate_text(A, order);
  ASSERT_GT(sorted.size(), std::size_t{4} << 20);

  const int threads = omp_get_max_threads();
  for (const std::string* text : {&sorted, &shuffled}) {
    omp_set_num_threads(1);
    const auto one = parse_matrix_market<double, int32_t>(*text);
    omp_set_num_threads(3);
    const auto three = parse_matrix_market<double, int32_t>(*text);
    omp_set_num_threads(threads);
    expect_same(one, A);
    expect_same(three, A);
  }

  // Symmetric: the lower triangle of A's square part, shuffled.
  std::string sym = "%%MatrixMarket matrix coordinate real symmetric\n30011 30011 ";
  std::string body;
  int64_t count = 0;
  for (int32_t r = 0; r < 30011; ++r) {
    for (int32_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      if (A.col_idx[k] > r) continue;
      body += std::to_string(r + 1) + " " + std::to_string(A.col_idx[k] + 1) + " " +
              std::to_string(A.values[k]) + "\n";
      ++count;
    }
  }
  sym += std::to_string(count) + "\n" + body;
  omp_set_num_threads(1);
  const auto one = parse_matrix_market<double, int64_t>(sym);
  omp_set_num_threads(4);
  const auto four = parse_matrix_market<double, int64_t>(sym);
  omp_set_num_threads(threads);
  expect_same(one, four);
  EXPECT_NO_THROW(four.validate());
}

}  // namespace
