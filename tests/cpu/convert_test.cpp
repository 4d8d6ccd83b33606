// Conversions: round trips through every format on random matrices of awkward shapes, canonicalize
// with shuffled columns and duplicates, cast, and the overflow / padding guards.
#include "spx/convert.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "spx/matrix.hpp"
#include "test_support.hpp"

namespace {

using spx::Csr;
using spx::test::fresh_seed;
using spx::test::random_csr;

template <class T_, class I_>
struct TypePair {
  using T = T_;
  using I = I_;
};
using AllTypePairs = ::testing::Types<TypePair<float, int32_t>, TypePair<float, int64_t>,
                                      TypePair<double, int32_t>, TypePair<double, int64_t>>;

template <class T, class I>
void expect_same(const Csr<T, I>& got, const Csr<T, I>& want) {
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.row_ptr, want.row_ptr);
  EXPECT_EQ(got.col_idx, want.col_idx);
  EXPECT_EQ(got.values, want.values);
}

// A with row `r` replaced by `len` random entries: the one-huge-row case.
template <class T, class I>
Csr<T, I> with_long_row(const Csr<T, I>& A, I r, I len, uint64_t seed) {
  const auto row = random_csr<T, I>(1, A.cols, len, len, seed);
  Csr<T, I> B(A.rows, A.cols);
  for (I i = 0; i < A.rows; ++i) {
    if (i == r) {
      B.col_idx.insert(B.col_idx.end(), row.col_idx.begin(), row.col_idx.end());
      B.values.insert(B.values.end(), row.values.begin(), row.values.end());
    } else {
      B.col_idx.insert(B.col_idx.end(), A.col_idx.begin() + A.row_ptr[i],
                       A.col_idx.begin() + A.row_ptr[i + 1]);
      B.values.insert(B.values.end(), A.values.begin() + A.row_ptr[i], A.values.begin() + A.row_ptr[i + 1]);
    }
    B.row_ptr[i + 1] = static_cast<I>(B.col_idx.size());
  }
  return B;
}

template <class T, class I>
struct Case {
  std::string name;
  Csr<T, I> A;
};

template <class T, class I>
std::vector<Case<T, I>> matrix_cases(uint64_t seed) {
  std::vector<Case<T, I>> cases;
  cases.push_back({"0 x 0", Csr<T, I>(0, 0)});
  cases.push_back({"5 x 0", Csr<T, I>(5, 0)});
  cases.push_back({"0 x 5", Csr<T, I>(0, 5)});
  cases.push_back({"1 x n", random_csr<T, I>(1, 77, 0, 77, seed + 1)});
  cases.push_back({"n x 1", random_csr<T, I>(91, 1, 0, 1, seed + 2, 0.3)});
  cases.push_back({"odd, empty rows", random_csr<T, I>(133, 97, 0, 9, seed + 3, 0.25)});
  cases.push_back({"all empty", random_csr<T, I>(45, 37, 0, 0, seed + 4)});
  cases.push_back({"nearly dense", random_csr<T, I>(33, 40, 30, 40, seed + 5)});
  cases.push_back({"one huge row", with_long_row(random_csr<T, I>(301, 4099, 0, 4, seed + 6, 0.3), I{150},
                                                 I{3500}, seed + 7)});
  return cases;
}

int64_t longest_row(const auto& A) {
  int64_t longest = 0;
  for (decltype(A.rows) r = 0; r < A.rows; ++r) longest = std::max<int64_t>(longest, A.row_length(r));
  return longest;
}

template <class P>
class Convert : public ::testing::Test {};
TYPED_TEST_SUITE(Convert, AllTypePairs);

TYPED_TEST(Convert, CsrCooCsrRoundTrip) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  for (const auto& [name, A] : matrix_cases<T, I>(seed)) {
    SCOPED_TRACE(fmt::format("seed {} case '{}'", seed, name));
    const auto C = spx::to_coo(A);
    EXPECT_NO_THROW(C.validate());
    EXPECT_TRUE(C.is_canonical());
    EXPECT_EQ(C.nnz(), A.nnz());
    expect_same(spx::to_csr(C), A);
    expect_same(spx::to_csr(C, spx::Duplicates::Error), A);
  }
}

TYPED_TEST(Convert, CsrEllCsrRoundTrip) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  for (const auto& [name, A] : matrix_cases<T, I>(seed)) {
    SCOPED_TRACE(fmt::format("seed {} case '{}'", seed, name));
    const auto E = spx::to_ell(A);
    EXPECT_NO_THROW(E.validate());
    EXPECT_EQ(E.ld % 32, 0);
    EXPECT_GE(E.ld, E.rows);
    EXPECT_LT(E.ld, E.rows + 32);
    EXPECT_EQ(E.width, longest_row(A));
    EXPECT_EQ(E.nnz(), A.nnz());
    expect_same(spx::to_csr(E), A);
    // A wider slab than needed is allowed and round-trips too.
    const auto wide = spx::to_ell(A, static_cast<I>(E.width + 3));
    EXPECT_EQ(wide.width, E.width + 3);
    expect_same(spx::to_csr(wide), A);
  }
}

TYPED_TEST(Convert, CsrEllRCsrRoundTrip) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  for (const auto& [name, A] : matrix_cases<T, I>(seed)) {
    SCOPED_TRACE(fmt::format("seed {} case '{}'", seed, name));
    const auto E = spx::to_ellr(A);
    EXPECT_NO_THROW(E.validate());
    EXPECT_EQ(E.rows_padded % 32, 0);
    EXPECT_EQ(E.width, longest_row(A));
    EXPECT_EQ(E.nnz(), A.nnz());
    for (I r = 0; r < A.rows; ++r) ASSERT_EQ(E.row_len[r], A.row_length(r)) << "row " << r;
    expect_same(spx::to_csr(E), A);
  }
}

TYPED_TEST(Convert, CsrHybCsrRoundTrip) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  for (const auto& [name, A] : matrix_cases<T, I>(seed)) {
    const auto longest = static_cast<I>(longest_row(A));
    for (const I width : {I{-1}, I{0}, I{1}, I{2}, longest, static_cast<I>(longest + 5)}) {
      SCOPED_TRACE(fmt::format("seed {} case '{}' width {}", seed, name, width));
      const auto H = spx::to_hyb(A, width);
      EXPECT_NO_THROW(H.validate());
      EXPECT_EQ(H.rows(), A.rows);
      EXPECT_EQ(H.cols(), A.cols);
      EXPECT_EQ(H.nnz(), A.nnz());
      const I used = width < 0 ? spx::hyb_ell_width(A) : width;
      EXPECT_EQ(H.ell.width, used);
      int64_t tail = 0;
      for (I r = 0; r < A.rows; ++r) tail += std::max<int64_t>(A.row_length(r) - used, 0);
      EXPECT_EQ(H.coo.nnz(), tail);
      expect_same(spx::to_csr(H), A);
    }
  }
}

TYPED_TEST(Convert, CsrDenseCsrRoundTrip) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  for (const auto& [name, A] : matrix_cases<T, I>(seed)) {
    for (const auto layout : {spx::Layout::ColMajor, spx::Layout::RowMajor}) {
      SCOPED_TRACE(fmt::format("seed {} case '{}' {}", seed, name,
                               layout == spx::Layout::ColMajor ? "col-major" : "row-major"));
      const auto D = spx::to_dense(A, layout);
      EXPECT_NO_THROW(D.validate());
      EXPECT_EQ(D.layout, layout);
      int64_t nonzeros = 0;
      for (const T v : D.data) nonzeros += v != T{0};
      EXPECT_EQ(nonzeros, A.nnz());
      for (I r = 0; r < A.rows; ++r) {
        for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p) ASSERT_EQ(D(r, A.col_idx[p]), A.values[p]);
      }
      expect_same(spx::dense_to_csr<I>(D), A);
      const auto all = spx::dense_to_csr<I>(D, /*keep_zeros=*/true);
      EXPECT_NO_THROW(all.validate());
      EXPECT_EQ(int64_t{all.nnz()}, int64_t{A.rows} * int64_t{A.cols});
    }
  }
}

TYPED_TEST(Convert, TransposeTwiceIsIdentity) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  for (const auto& [name, A] : matrix_cases<T, I>(seed)) {
    SCOPED_TRACE(fmt::format("seed {} case '{}'", seed, name));
    const auto At = spx::transpose(A);
    EXPECT_NO_THROW(At.validate());
    EXPECT_EQ(At.rows, A.cols);
    EXPECT_EQ(At.cols, A.rows);
    const auto D = spx::to_dense(A);
    const auto Dt = spx::to_dense(At);
    for (I i = 0; i < A.rows; ++i) {
      for (I j = 0; j < A.cols; ++j) ASSERT_EQ(Dt(j, i), D(i, j)) << "(" << i << ", " << j << ")";
    }
    expect_same(spx::transpose(At), A);
  }
}

// Shuffles each row and splits every `split_every`-th entry v into two entries v/2 (exact in binary
// floating point, so the sum restores v bit for bit).
template <class T, class I>
Csr<T, I> shuffled_with_duplicates(const Csr<T, I>& A, int split_every, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Csr<T, I> B(A.rows, A.cols);
  std::vector<std::pair<I, T>> row;
  int64_t counter = 0;
  for (I r = 0; r < A.rows; ++r) {
    row.clear();
    for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p) {
      if (split_every > 0 && counter++ % split_every == 0) {
        row.emplace_back(A.col_idx[p], A.values[p] / 2);
        row.emplace_back(A.col_idx[p], A.values[p] / 2);
      } else {
        row.emplace_back(A.col_idx[p], A.values[p]);
      }
    }
    std::shuffle(row.begin(), row.end(), rng);
    for (const auto& [c, v] : row) {
      B.col_idx.push_back(c);
      B.values.push_back(v);
    }
    B.row_ptr[r + 1] = static_cast<I>(B.col_idx.size());
  }
  return B;
}

TYPED_TEST(Convert, CanonicalizeShuffledRows) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  for (const auto& [name, A] : matrix_cases<T, I>(seed)) {
    SCOPED_TRACE(fmt::format("seed {} case '{}'", seed, name));
    for (const auto mode : {spx::Duplicates::Sum, spx::Duplicates::Error}) {
      auto B = shuffled_with_duplicates(A, /*split_every=*/0, seed + 11);
      spx::canonicalize(B, mode);
      expect_same(B, A);
    }
  }
}

TYPED_TEST(Convert, CanonicalizeSumsDuplicates) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  for (const auto& [name, A] : matrix_cases<T, I>(seed)) {
    SCOPED_TRACE(fmt::format("seed {} case '{}'", seed, name));
    auto B = shuffled_with_duplicates(A, /*split_every=*/3, seed + 12);
    if (B.nnz() > 0) {
      EXPECT_THROW(B.validate(), spx::Error);
    }
    spx::canonicalize(B);
    EXPECT_NO_THROW(B.validate());
    expect_same(B, A);
  }
}

TYPED_TEST(Convert, CanonicalizeRejectsDuplicatesOnRequest) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  const auto A = random_csr<T, I>(57, 31, 1, 6, seed);
  auto B = shuffled_with_duplicates(A, /*split_every=*/5, seed + 1);
  const auto before = B;
  try {
    spx::canonicalize(B, spx::Duplicates::Error);
    ADD_FAILURE() << "expected spx::Error";
  } catch (const spx::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("row 0: column"), std::string::npos) << message;  // entry 0 is split
    EXPECT_NE(message.find("appears at positions"), std::string::npos) << message;
    EXPECT_NE(message.find("Duplicates::Sum"), std::string::npos) << message;
  }
  // Nothing was merged: B still holds the same entries, so summing now gives A.
  EXPECT_EQ(B.row_ptr, before.row_ptr);
  spx::canonicalize(B);
  expect_same(B, A);
}

TYPED_TEST(Convert, CooToCsrSortsAndSumsDuplicates) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  for (const auto& [name, A] : matrix_cases<T, I>(seed)) {
    SCOPED_TRACE(fmt::format("seed {} case '{}'", seed, name));
    // Every other entry split in two, then all entries shuffled across rows.
    spx::Coo<T, I> coo;
    coo.rows = A.rows;
    coo.cols = A.cols;
    const auto B = shuffled_with_duplicates(A, /*split_every=*/2, seed + 14);
    for (I r = 0; r < B.rows; ++r) {
      for (I p = B.row_ptr[r]; p < B.row_ptr[r + 1]; ++p) {
        coo.row_idx.push_back(r);
        coo.col_idx.push_back(B.col_idx[p]);
        coo.values.push_back(B.values[p]);
      }
    }
    std::vector<std::size_t> perm(coo.values.size());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed + 15));
    spx::Coo<T, I> shuffled = coo;
    for (std::size_t i = 0; i < perm.size(); ++i) {
      shuffled.row_idx[i] = coo.row_idx[perm[i]];
      shuffled.col_idx[i] = coo.col_idx[perm[i]];
      shuffled.values[i] = coo.values[perm[i]];
    }
    expect_same(spx::to_csr(shuffled), A);
    if (A.nnz() > 0) {
      EXPECT_FALSE(shuffled.is_canonical());
      EXPECT_THROW(spx::to_csr(shuffled, spx::Duplicates::Error), spx::Error);
    }
  }
}

}  // namespace

namespace {

using spx::Coo;
using spx::Csr;
using spx::test::fresh_seed;
using spx::test::random_csr;

std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const spx::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected spx::Error";
  return {};
}

// `rows` rows of `short_len` entries except row `long_row` with `long_len`, columns 0..len-1.
template <class T, class I>
Csr<T, I> one_long_row(I rows, I cols, I short_len, I long_row, I long_len) {
  Csr<T, I> A(rows, cols);
  for (I r = 0; r < rows; ++r) {
    const I len = r == long_row ? long_len : short_len;
    for (I c = 0; c < len; ++c) {
      A.col_idx.push_back(c);
      A.values.push_back(T{1});
    }
    A.row_ptr[r + 1] = static_cast<I>(A.col_idx.size());
  }
  return A;
}

TEST(ConvertGuards, EllMaxSlotsSuggestsHyb) {
  const auto A = one_long_row<double, int32_t>(1000, 50000, 2, 17, 40000);
  const std::string message = error_message([&] { spx::to_ell(A, int32_t{-1}, std::size_t{1} << 20); });
  EXPECT_NE(message.find("max_slots = 1048576"), std::string::npos) << message;
  EXPECT_NE(message.find("padding ratio"), std::string::npos) << message;
  EXPECT_NE(message.find("to_hyb"), std::string::npos) << message;
  EXPECT_NE(error_message([&] { spx::to_ellr(A, std::size_t{1} << 20); }).find("to_hyb"), std::string::npos);
  // The same matrix goes to Hyb without trouble: the long row lands in the COO part.
  const auto H = spx::to_hyb(A, int32_t{2});
  EXPECT_EQ(H.coo.nnz(), 40000 - 2);
}

TEST(ConvertGuards, EllDefaultMaxSlotsStopsHugePadding) {
  // 200000 rows padded to one row of 20000: 4e9 slots, over the 2^31 default; nothing is allocated.
  const auto A = one_long_row<float, int64_t>(200000, 30000, 0, 5, 20000);
  EXPECT_NE(error_message([&] { spx::to_ell(A); }).find("max_slots"), std::string::npos);
  EXPECT_NE(error_message([&] { spx::to_ellr(A); }).find("max_slots"), std::string::npos);
}

TEST(ConvertGuards, EllSlotsMustFitIndexType) {
  // Same shape with int32 indices and no slot limit: slot indices would overflow int32.
  const auto A = one_long_row<float, int32_t>(200000, 30000, 0, 5, 20000);
  const std::string message =
      error_message([&] { spx::to_ell(A, int32_t{-1}, std::numeric_limits<std::size_t>::max()); });
  EXPECT_NE(message.find("int32_t"), std::string::npos) << message;
  EXPECT_NE(message.find("64-bit indices"), std::string::npos) << message;
  EXPECT_THROW(spx::to_hyb(A, int32_t{20000}), spx::Error);
}

TEST(ConvertGuards, EllWidthTooSmallNamesRow) {
  const auto A = one_long_row<double, int64_t>(10, 9, 2, 6, 7);
  const std::string message = error_message([&] { spx::to_ell(A, int64_t{3}); });
  EXPECT_NE(message.find("row 6 has 7 entries"), std::string::npos) << message;
  EXPECT_NE(message.find("width 3"), std::string::npos) << message;
}

TEST(ConvertGuards, CastRejectsIndexOverflow) {
  Csr<double, int64_t> wide(3, int64_t{1} << 40);
  wide.col_idx = {(int64_t{1} << 40) - 1};
  wide.values = {2.5};
  wide.row_ptr = {0, 1, 1, 1};
  const std::string message = error_message([&] { spx::cast<double, int32_t>(wide); });
  EXPECT_NE(message.find("cols"), std::string::npos) << message;
  EXPECT_NE(message.find("1099511627776"), std::string::npos) << message;
  // Narrowing the index type of a valid matrix whose nnz fits works.
  Csr<double, int64_t> narrow(3, 4);
  narrow.col_idx = {3};
  narrow.values = {1.5};
  narrow.row_ptr = {0, 0, 1, 1};
  EXPECT_EQ((spx::cast<double, int32_t>(narrow).col_idx), (std::vector<int32_t>{3}));
}

TEST(ConvertGuards, CastRoundTrips) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  const auto A = random_csr<double, int32_t>(211, 67, 0, 12, seed, 0.2);
  const auto A64 = spx::cast<double, int64_t>(A);
  EXPECT_NO_THROW(A64.validate());
  EXPECT_EQ(A64.nnz(), A.nnz());
  const auto back = spx::cast<double, int32_t>(A64);
  EXPECT_EQ(back.row_ptr, A.row_ptr);
  EXPECT_EQ(back.col_idx, A.col_idx);
  EXPECT_EQ(back.values, A.values);

  const auto Af = spx::cast<float, int32_t>(A);
  const auto Ad = spx::cast<double, int32_t>(Af);
  EXPECT_EQ(Ad.col_idx, A.col_idx);
  for (std::size_t p = 0; p < A.values.size(); ++p) {
    EXPECT_EQ(Af.values[p], static_cast<float>(A.values[p]));
    EXPECT_NEAR(Ad.values[p], A.values[p], 1e-7) << "position " << p;
  }
  const auto Af64 = spx::cast<float, int64_t>(spx::cast<double, int64_t>(Af));
  EXPECT_EQ(Af64.values, Af.values);
}

TEST(ConvertGuards, HybWidthRule) {
  // Under 4096 rows the rule always picks 0 (everything in COO).
  EXPECT_EQ(spx::hyb_ell_width(one_long_row<double, int32_t>(4095, 20, 10, 0, 10)), 0);
  // 5000 rows: 2000 of length 10, 3000 of length 2. Length >= 3 holds for only 2000 < 4096 rows.
  Csr<double, int32_t> A(5000, 20);
  for (int32_t r = 0; r < A.rows; ++r) {
    const int32_t len = r % 5 < 2 ? 10 : 2;
    for (int32_t c = 0; c < len; ++c) {
      A.col_idx.push_back(c);
      A.values.push_back(1.0);
    }
    A.row_ptr[r + 1] = static_cast<int32_t>(A.col_idx.size());
  }
  EXPECT_EQ(spx::hyb_ell_width(A), 2);
  EXPECT_EQ(spx::to_hyb(A).ell.width, 2);
  // 12000 rows: 5000 of length 7 (>= 4096 and >= 12000/3), 7000 of length 3.
  Csr<float, int64_t> B(12000, 20);
  for (int64_t r = 0; r < B.rows; ++r) {
    const int64_t len = r < 5000 ? 7 : 3;
    for (int64_t c = 0; c < len; ++c) {
      B.col_idx.push_back(c);
      B.values.push_back(1.0f);
    }
    B.row_ptr[r + 1] = static_cast<int64_t>(B.col_idx.size());
  }
  EXPECT_EQ(spx::hyb_ell_width(B), 7);
  // Exactly rows/3 rows qualifies: 12288 rows, 4096 of length 9.
  Csr<float, int32_t> C(12288, 20);
  for (int32_t r = 0; r < C.rows; ++r) {
    const int32_t len = r < 4096 ? 9 : 1;
    for (int32_t c = 0; c < len; ++c) {
      C.col_idx.push_back(c);
      C.values.push_back(1.0f);
    }
    C.row_ptr[r + 1] = static_cast<int32_t>(C.col_idx.size());
  }
  EXPECT_EQ(spx::hyb_ell_width(C), 9);
}

TEST(ConvertGuards, DenseToCsrKeepsNanDropsZeros) {
  spx::Dense<double> D(2, 3, spx::Layout::RowMajor);
  D(0, 1) = std::nan("");
  D(1, 2) = -0.0;  // a zero: dropped
  D(1, 0) = 4.0;
  const auto A = spx::dense_to_csr<int32_t>(D);
  EXPECT_EQ(A.row_ptr, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(A.col_idx, (std::vector<int32_t>{1, 0}));
  EXPECT_TRUE(std::isnan(A.values[0]));
  EXPECT_EQ(A.values[1], 4.0);
}

TEST(ConvertGuards, DenseWithPaddedLeadingDimension) {
  spx::Dense<float> D;
  D.rows = 3;
  D.cols = 2;
  D.ld = 5;  // column-major with 2 padding elements per column; padding must be ignored
  D.data = {1, 0, 2, 99, 99, 0, 3, 0, 99};
  const auto A = spx::dense_to_csr<int64_t>(D);
  EXPECT_EQ(A.row_ptr, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(A.col_idx, (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(A.values, (std::vector<float>{1, 3, 2}));
}

TEST(ConvertGuards, ConversionsRejectInvalidInput) {
  Csr<double, int32_t> A(2, 3);
  A.row_ptr = {0, 2, 3};
  A.col_idx = {2, 1, 5};  // row 0 unsorted, row 1 out of range
  A.values = {1, 2, 3};
  EXPECT_NE(error_message([&] { spx::canonicalize(A); }).find("row 1: column 5"), std::string::npos);
  A.col_idx[2] = 0;
  EXPECT_NE(error_message([&] { spx::to_ell(A); }).find("call spx::canonicalize"), std::string::npos);
  EXPECT_THROW(spx::to_coo(A), spx::Error);
  EXPECT_THROW(spx::transpose(A), spx::Error);
  EXPECT_THROW(spx::to_dense(A), spx::Error);
  spx::canonicalize(A);
  EXPECT_EQ(A.col_idx, (std::vector<int32_t>{1, 2, 0}));
  EXPECT_EQ(A.values, (std::vector<double>{2, 1, 3}));

  Coo<float, int64_t> C;
  C.rows = 2;
  C.cols = 2;
  C.row_idx = {0, 1, 1};
  C.col_idx = {1, 2, 0};
  C.values = {1, 2, 3};
  EXPECT_NE(error_message([&] { spx::to_csr(C); }).find("entry 1"), std::string::npos);
  C.col_idx = {1, 0, 0};
  const std::string message = error_message([&] { spx::to_csr(C, spx::Duplicates::Error); });
  EXPECT_NE(message.find("entries 1 and 2"), std::string::npos) << message;
  EXPECT_NE(message.find("(row 1, col 0)"), std::string::npos) << message;
  const auto summed = spx::to_csr(C);
  EXPECT_EQ(summed.values, (std::vector<float>{1, 5}));
}

}  // namespace
