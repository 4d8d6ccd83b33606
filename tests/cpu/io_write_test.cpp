// Matrix Market writing: bit-exact round trips (shortest round-trip values), gzip by name, the
// format other readers expect, and refusal to write inconsistent matrices.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "spx/io.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using TempFile = spx::test::TempPath;
using spx::Csr;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Bit-exact comparison (NaN payloads aside, -0 and +0 differ).
template <class T, class I>
void expect_identical(const Csr<T, I>& A, const Csr<T, I>& B) {
  ASSERT_EQ(A.rows, B.rows);
  ASSERT_EQ(A.cols, B.cols);
  ASSERT_EQ(A.row_ptr, B.row_ptr);
  ASSERT_EQ(A.col_idx, B.col_idx);
  ASSERT_EQ(A.values.size(), B.values.size());
  for (std::size_t k = 0; k < A.values.size(); ++k) {
    ASSERT_EQ(std::memcmp(&A.values[k], &B.values[k], sizeof(T)), 0)
        << "value " << k << ": " << A.values[k] << " vs " << B.values[k];
  }
}

// Values across the whole range: subnormals, extremes, negative zero, ones that need all digits.
template <class T>
void add_hard_values(Csr<T, int32_t>& A) {
  const T hard[] = {std::numeric_limits<T>::denorm_min(),
                    std::numeric_limits<T>::min(),
                    std::numeric_limits<T>::max(),
                    -std::numeric_limits<T>::max(),
                    T(-0.0),
                    T(0.1),
                    T(1) / T(3),
                    std::nextafter(T(1), T(2)),
                    T(123456789),
                    T(-2.5e-7)};
  for (std::size_t k = 0; k < A.values.size() && k < std::size(hard); ++k)
    A.values[k * 7 % A.values.size()] = hard[k];
}

template <class T, class I>
void round_trip(const std::string& suffix) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto A32 =
      spx::test::random_csr<T, int32_t>(313, 97, 0, 40, seed, 0.25);  // empty rows, rows wider than cols/2
  add_hard_values(A32);
  Csr<T, I> A(static_cast<I>(A32.rows), static_cast<I>(A32.cols));
  A.row_ptr.assign(A32.row_ptr.begin(), A32.row_ptr.end());
  A.col_idx.assign(A32.col_idx.begin(), A32.col_idx.end());
  A.values = A32.values;
  TempFile f(suffix);
  spx::write_matrix_market(f.path(), A);
  spx::ReadOptions strict;
  strict.duplicates = spx::Duplicates::Error;
  expect_identical(spx::read_matrix_market<T, I>(f.path(), strict), A);
}

TEST(IoWrite, RoundTripDoubleInt32) { round_trip<double, int32_t>(".mtx"); }
TEST(IoWrite, RoundTripFloatInt32) { round_trip<float, int32_t>(".mtx"); }
TEST(IoWrite, RoundTripDoubleInt64Gzip) { round_trip<double, int64_t>(".mtx.gz"); }
TEST(IoWrite, RoundTripFloatInt64Gzip) { round_trip<float, int64_t>(".mtx.gz"); }

TEST(IoWrite, GzipOnlyWhenNameEndsInGz) {
  Csr<double, int32_t> A(2, 2);
  A.row_ptr = {0, 1, 1};
  A.col_idx = {1};
  A.values = {0.5};
  TempFile plain(".mtx"), gz(".mtx.gz");
  spx::write_matrix_market(plain.path(), A);
  spx::write_matrix_market(gz.path(), A);
  const std::string text = file_bytes(plain.path());
  EXPECT_EQ(text.rfind("%%MatrixMarket matrix coordinate real general\n", 0), 0u) << text;
  EXPECT_NE(text.find("\n2 2 1\n1 2 0.5\n"), std::string::npos) << text;
  const std::string packed = file_bytes(gz.path());
  ASSERT_GE(packed.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(packed[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(packed[1]), 0x8b);
}

TEST(IoWrite, ShortestRoundTripText) {
  Csr<double, int32_t> A(1, 3);
  A.row_ptr = {0, 3};
  A.col_idx = {0, 1, 2};
  A.values = {0.1, 1e300, -3.0};
  TempFile f(".mtx");
  spx::write_matrix_market(f.path(), A);
  EXPECT_NE(file_bytes(f.path()).find("1 1 0.1\n1 2 1e+300\n1 3 -3\n"), std::string::npos);
}

TEST(IoWrite, EmptyAndDegenerateShapes) {
  for (auto [rows, cols] : {std::pair{0, 0}, std::pair{0, 5}, std::pair{6, 0}, std::pair{7, 7}}) {
    Csr<double, int32_t> A(rows, cols);
    TempFile f(".mtx");
    spx::write_matrix_market(f.path(), A);
    expect_identical(spx::read_matrix_market<double, int32_t>(f.path()), A);
  }
}

// Large enough for several formatting blocks (written by parallel threads, in order).
TEST(IoWrite, ManyBlocksKeepRowOrder) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto A = spx::test::random_csr<double, int32_t>(120001, 5003, 0, 9, seed, 0.1);
  TempFile f(".mtx");
  spx::write_matrix_market(f.path(), A);
  expect_identical(spx::read_matrix_market<double, int32_t>(f.path()), A);
}

TEST(IoWrite, NonfiniteValuesNeedAllowNonfiniteToReadBack) {
  Csr<float, int32_t> A(1, 2);
  A.row_ptr = {0, 2};
  A.col_idx = {0, 1};
  A.values = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  TempFile f(".mtx");
  spx::write_matrix_market(f.path(), A);
  EXPECT_THROW((spx::read_matrix_market<float, int32_t>(f.path())), spx::Error);
  spx::ReadOptions lax;
  lax.allow_nonfinite = true;
  expect_identical(spx::read_matrix_market<float, int32_t>(f.path(), lax), A);
}

TEST(IoWrite, InconsistentMatrixIsRefusedAndNothingIsLeft) {
  Csr<double, int32_t> A(2, 2);
  A.row_ptr = {0, 1, 2};
  A.col_idx = {0, 2};  // column 2 of a 2-column matrix
  A.values = {1, 2};
  TempFile f(".mtx");
  try {
    spx::write_matrix_market(f.path(), A);
    ADD_FAILURE() << "no error";
  } catch (const spx::Error& e) {
    EXPECT_NE(std::string(e.what()).find("column index 2 at position 1 out of range 0..1"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(f.path()));

  A.col_idx = {0, 1};
  A.row_ptr = {0, 2};  // rows + 1 entries expected
  EXPECT_THROW(spx::write_matrix_market(f.path(), A), spx::Error);
  A.row_ptr = {0, 2, 1};
  EXPECT_THROW(spx::write_matrix_market(f.path(), A), spx::Error);
  A.row_ptr = {0, 1, 3};
  EXPECT_THROW(spx::write_matrix_market(f.path(), A), spx::Error);
}

TEST(IoWrite, FullDiskIsReported) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const auto A = spx::test::random_csr<double, int32_t>(1000, 1000, 5, 10, 1);
  EXPECT_THROW(spx::write_matrix_market("/dev/full", A), spx::Error);
}

}  // namespace
