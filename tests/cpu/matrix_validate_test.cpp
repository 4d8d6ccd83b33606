// validate(): one test per failure, each checking that the message names the offending index.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>

#include "spx/convert.hpp"
#include "spx/matrix.hpp"

namespace {

using spx::Coo;
using spx::Csr;
using spx::Dense;
using spx::Ell;
using spx::EllR;
using spx::Hyb;

// Runs `f`, expects spx::Error, and checks the message contains every fragment.
void expect_error(const std::function<void()>& f, std::initializer_list<std::string> fragments) {
  try {
    f();
  } catch (const spx::Error& e) {
    const std::string message = e.what();
    for (const auto& fragment : fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos)
          << "message: " << message << "\nmissing: " << fragment;
    }
    EXPECT_EQ(message.find('\n'), std::string::npos) << "message must be one line: " << message;
    return;
  }
  ADD_FAILURE() << "expected spx::Error";
}

// 3 x 4:  row 0: (0,1) (0,3)   row 1: empty   row 2: (2,0) (2,1) (2,3)
Csr<double, int32_t> small_csr() {
  Csr<double, int32_t> A(3, 4);
  A.row_ptr = {0, 2, 2, 5};
  A.col_idx = {1, 3, 0, 1, 3};
  A.values = {1, 2, 3, 4, 5};
  return A;
}

// 40 rows (ld 64), 6 columns; row r holds 1 + r % 3 entries in columns (r + 2k) % 6, except row 7
// which is empty. So row 3 has 1 entry, row 4 has 2, rows 2 and 5 have 3 (the width).
Csr<double, int32_t> ell_source() {
  Csr<double, int32_t> A(40, 6);
  for (int32_t r = 0; r < A.rows; ++r) {
    const int32_t len = r == 7 ? 0 : 1 + r % 3;
    for (int32_t k = 0; k < len; ++k) {
      A.col_idx.push_back((r + 2 * k) % 6);
      A.values.push_back(r + 0.5 * k + 1);
    }
    A.row_ptr[r + 1] = static_cast<int32_t>(A.col_idx.size());
  }
  spx::canonicalize(A);
  return A;
}

// ---- Csr ----

TEST(MatrixValidate, CsrValidPasses) {
  EXPECT_NO_THROW(small_csr().validate());
  EXPECT_NO_THROW((Csr<double, int32_t>{}.validate()));
  EXPECT_NO_THROW((Csr<float, int64_t>(0, 7).validate()));
  EXPECT_NO_THROW((Csr<float, int64_t>(7, 0).validate()));
}

TEST(MatrixValidate, CsrNegativeDimensions) {
  Csr<double, int32_t> A;
  A.rows = -2;
  expect_error([&] { A.validate(); }, {"Csr", "negative", "-2"});
  Csr<double, int64_t> B;
  B.cols = -5;
  expect_error([&] { B.validate(); }, {"negative", "-5"});
}

TEST(MatrixValidate, CsrRowPtrWrongSize) {
  auto A = small_csr();
  A.row_ptr.pop_back();
  expect_error([&] { A.validate(); }, {"row_ptr has 3 entries", "rows + 1 = 4"});
  A.row_ptr.clear();
  expect_error([&] { A.validate(); }, {"row_ptr has 0 entries"});
}

TEST(MatrixValidate, CsrRowPtrNotStartingAtZero) {
  auto A = small_csr();
  A.row_ptr[0] = 1;
  expect_error([&] { A.validate(); }, {"row_ptr[0] = 1", "expected 0"});
}

TEST(MatrixValidate, CsrRowPtrDecreasing) {
  auto A = small_csr();
  A.row_ptr = {0, 3, 2, 5};
  expect_error([&] { A.validate(); }, {"decreases at row 1", "row_ptr[1] = 3", "row_ptr[2] = 2"});
}

TEST(MatrixValidate, CsrRowPtrEndIsNotNnz) {
  auto A = small_csr();
  A.col_idx.push_back(2);
  A.values.push_back(6);
  expect_error([&] { A.validate(); }, {"col_idx has 6 entries", "row_ptr[3] = 5"});
}

TEST(MatrixValidate, CsrValuesSizeMismatch) {
  auto A = small_csr();
  A.values.pop_back();
  expect_error([&] { A.validate(); }, {"values has 4 entries", "nnz", "5"});
}

TEST(MatrixValidate, CsrColumnTooLarge) {
  auto A = small_csr();
  A.col_idx[4] = 4;
  expect_error([&] { A.validate(); }, {"row 2", "column 4", "position 4", "cols = 4"});
}

TEST(MatrixValidate, CsrColumnNegative) {
  auto A = small_csr();
  A.col_idx[0] = -1;
  expect_error([&] { A.validate(); }, {"row 0", "column -1", "position 0"});
}

TEST(MatrixValidate, CsrUnsortedColumns) {
  auto A = small_csr();
  A.col_idx = {1, 3, 1, 0, 3};
  expect_error(
      [&] { A.validate(); },
      {"Csr: row 2: column 0 at position 3 is not greater than previous column 1 (unsorted or duplicate; "
       "call spx::canonicalize)"});
}

// Past 2^16 nonzeros the column pass runs in parallel and only says whether all is well; the serial
// pass then names the first bad entry, whatever the threads and wherever the others are.
TEST(MatrixValidate, LargeCsrNamesTheFirstBadEntryWithAnyThreads) {
  Csr<double, int32_t> A(100000, 50);
  for (int32_t r = 0; r < A.rows; ++r) {
    for (int32_t c = 0; c < 3; ++c) {
      A.col_idx.push_back((r + 7 * c) % 50 + 0);
      A.values.push_back(1.0);
    }
    std::sort(A.col_idx.end() - 3, A.col_idx.end());
    A.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<int32_t>(A.col_idx.size());
  }
  ASSERT_NO_THROW(A.validate());
  auto bad = A;
  bad.col_idx[3 * 90000 + 1] = 50;                          // out of range, late
  bad.col_idx[3 * 40000 + 2] = bad.col_idx[3 * 40000 + 1];  // duplicate, earlier: named first
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 4}) {
    omp_set_num_threads(threads);
    expect_error([&] { bad.validate(); }, {"row 40000", "not greater than previous column"});
  }
  omp_set_num_threads(saved);
}

TEST(MatrixValidate, CsrDuplicateColumn) {
  auto A = small_csr();
  A.col_idx = {1, 3, 0, 1, 1};
  expect_error([&] { A.validate(); },
               {"row 2", "column 1 at position 4", "previous column 1", "canonicalize"});
}

// ---- Coo ----

Coo<float, int32_t> small_coo() {
  Coo<float, int32_t> A;
  A.rows = 3;
  A.cols = 4;
  A.row_idx = {2, 0, 2, 0};  // unsorted and a duplicate (2, 1): allowed in a Coo
  A.col_idx = {1, 3, 1, 0};
  A.values = {1, 2, 3, 4};
  return A;
}

TEST(MatrixValidate, CooValidPassesEvenUnsorted) {
  const auto A = small_coo();
  EXPECT_NO_THROW(A.validate());
  EXPECT_FALSE(A.is_canonical());
  EXPECT_NO_THROW((Coo<double, int64_t>{}.validate()));
}

TEST(MatrixValidate, CooIsCanonical) {
  Coo<double, int64_t> A;
  A.rows = 3;
  A.cols = 3;
  EXPECT_TRUE(A.is_canonical());
  A.row_idx = {0, 0, 2};
  A.col_idx = {0, 2, 1};
  A.values = {1, 1, 1};
  EXPECT_TRUE(A.is_canonical());
  A.col_idx = {0, 0, 1};  // duplicate
  EXPECT_FALSE(A.is_canonical());
  A.row_idx = {0, 2, 1};  // rows out of order
  A.col_idx = {0, 1, 2};
  EXPECT_FALSE(A.is_canonical());
}

TEST(MatrixValidate, CooNegativeDimensions) {
  auto A = small_coo();
  A.rows = -1;
  expect_error([&] { A.validate(); }, {"Coo", "negative", "-1"});
}

TEST(MatrixValidate, CooLengthMismatch) {
  auto A = small_coo();
  A.col_idx.pop_back();
  expect_error([&] { A.validate(); }, {"different lengths", "(4, 3, 4)"});
}

TEST(MatrixValidate, CooRowOutOfRange) {
  auto A = small_coo();
  A.row_idx[2] = 3;
  expect_error([&] { A.validate(); }, {"entry 2", "row index 3", "rows = 3"});
}

TEST(MatrixValidate, CooColumnOutOfRange) {
  auto A = small_coo();
  A.col_idx[3] = -7;
  expect_error([&] { A.validate(); }, {"entry 3", "column index -7", "cols = 4"});
}

// ---- Ell ----

TEST(MatrixValidate, EllValidPasses) {
  const auto E = spx::to_ell(ell_source());
  EXPECT_NO_THROW(E.validate());
  EXPECT_EQ(E.ld, 64);
  EXPECT_EQ(E.width, 3);
}

TEST(MatrixValidate, EllNegativeDimension) {
  auto E = spx::to_ell(ell_source());
  E.width = -1;
  expect_error([&] { E.validate(); }, {"Ell", "negative", "width -1"});
}

TEST(MatrixValidate, EllLdLessThanRows) {
  auto E = spx::to_ell(ell_source());
  E.ld = 39;
  expect_error([&] { E.validate(); }, {"ld = 39", "rows = 40"});
}

TEST(MatrixValidate, EllSlabSizeMismatch) {
  auto E = spx::to_ell(ell_source());
  E.values.pop_back();
  expect_error([&] { E.validate(); }, {"values has 191 entries", "192 slots"});
  E = spx::to_ell(ell_source());
  E.col_idx.push_back(0);
  expect_error([&] { E.validate(); }, {"col_idx has 193 entries", "192 slots"});
}

TEST(MatrixValidate, EllPaddingHoldsValue) {
  auto E = spx::to_ell(ell_source());
  E.values[E.slot(3, 2)] = 1.0;  // row 3 has 1 entry: slot 2 is padding
  expect_error([&] { E.validate(); }, {"row 3 slot 2", "padding", "value 1"});
  E.values[E.slot(3, 2)] = std::nan("");
  expect_error([&] { E.validate(); }, {"row 3 slot 2", "nan"});
}

TEST(MatrixValidate, EllColumnOutOfRange) {
  auto E = spx::to_ell(ell_source());
  E.col_idx[E.slot(5, 1)] = 6;
  expect_error([&] { E.validate(); }, {"row 5 slot 1", "column 6", "cols = 6"});
  E.col_idx[E.slot(5, 1)] = -3;
  expect_error([&] { E.validate(); }, {"row 5 slot 1", "column -3"});
}

TEST(MatrixValidate, EllUnsortedRow) {
  auto E = spx::to_ell(ell_source());
  // Row 2 has 3 entries; make slot 2 repeat slot 1's column.
  E.col_idx[E.slot(2, 2)] = E.col_idx[E.slot(2, 1)];
  expect_error([&] { E.validate(); }, {"row 2 slot 2", "not greater than previous column"});
}

TEST(MatrixValidate, EllEntryAfterPadding) {
  auto E = spx::to_ell(ell_source());
  // Row 3 has one entry in slot 0; put one in slot 2, after the padding slot 1.
  E.col_idx[E.slot(3, 2)] = 5;
  E.values[E.slot(3, 2)] = 1;
  expect_error([&] { E.validate(); }, {"row 3 slot 2", "follows a padding slot"});
}

TEST(MatrixValidate, EllEntryInPaddingRow) {
  auto E = spx::to_ell(ell_source());
  E.col_idx[E.slot(50, 0)] = 1;
  E.values[E.slot(50, 0)] = 1;
  expect_error([&] { E.validate(); }, {"row 50 slot 0", "padding row", "rows = 40"});
}

// ---- EllR ----

TEST(MatrixValidate, EllRValidPasses) {
  const auto E = spx::to_ellr(ell_source());
  EXPECT_NO_THROW(E.validate());
  EXPECT_EQ(E.rows_padded, 64);
  EXPECT_EQ(E.row_len[7], 0);
  EXPECT_EQ(E.row_len[2], 3);
}

TEST(MatrixValidate, EllRRowsPaddedNotMultipleOf32) {
  auto E = spx::to_ellr(ell_source());
  E.rows_padded = 48;
  expect_error([&] { E.validate(); }, {"rows_padded = 48", "multiple of 32"});
}

TEST(MatrixValidate, EllRRowsPaddedLessThanRows) {
  auto E = spx::to_ellr(ell_source());
  E.rows_padded = 32;
  expect_error([&] { E.validate(); }, {"rows_padded = 32", "rows = 40"});
}

TEST(MatrixValidate, EllRRowLenSizeMismatch) {
  auto E = spx::to_ellr(ell_source());
  E.row_len.resize(40);
  expect_error([&] { E.validate(); }, {"row_len has 40 entries", "rows_padded = 64"});
}

TEST(MatrixValidate, EllRRowLenAboveWidth) {
  auto E = spx::to_ellr(ell_source());
  E.row_len[9] = 4;
  expect_error([&] { E.validate(); }, {"row_len[9] = 4", "width = 3"});
}

TEST(MatrixValidate, EllRRowLenNegative) {
  auto E = spx::to_ellr(ell_source());
  E.row_len[11] = -1;
  expect_error([&] { E.validate(); }, {"row_len[11] = -1"});
}

TEST(MatrixValidate, EllRPaddingRowWithLength) {
  auto E = spx::to_ellr(ell_source());
  E.row_len[45] = 1;
  expect_error([&] { E.validate(); }, {"padding row 45", "row_len 1"});
}

TEST(MatrixValidate, EllRSlotPastRowLenNotPadding) {
  auto E = spx::to_ellr(ell_source());
  E.row_len[4] = 1;  // row 4 really has 2 entries: slot 1 is now past the end but holds a column
  expect_error([&] { E.validate(); }, {"row 4 slot 1", "expected padding"});
}

TEST(MatrixValidate, EllRRealSlotHoldsPadding) {
  auto E = spx::to_ellr(ell_source());
  E.row_len[3] = 2;  // row 3 really has 1 entry: slot 1 is padding but row_len claims it
  expect_error([&] { E.validate(); }, {"row 3 slot 1", "column -1", "outside"});
}

TEST(MatrixValidate, EllRUnsortedRow) {
  auto E = spx::to_ellr(ell_source());
  std::swap(E.col_idx[E.slot(5, 0)], E.col_idx[E.slot(5, 2)]);
  expect_error([&] { E.validate(); }, {"row 5 slot", "not greater than previous column"});
}

// ---- Hyb ----

Hyb<double, int32_t> small_hyb() { return spx::to_hyb(ell_source(), int32_t{1}); }

TEST(MatrixValidate, HybValidPasses) {
  const auto H = small_hyb();
  EXPECT_NO_THROW(H.validate());
  EXPECT_GT(H.coo.nnz(), 0);
}

TEST(MatrixValidate, HybShapeMismatch) {
  auto H = small_hyb();
  H.coo.cols = 7;
  expect_error([&] { H.validate(); }, {"Hyb", "40 x 6", "40 x 7"});
}

TEST(MatrixValidate, HybCooNotCanonical) {
  auto H = small_hyb();
  std::swap(H.coo.row_idx[0], H.coo.row_idx[1]);
  std::swap(H.coo.col_idx[0], H.coo.col_idx[1]);
  expect_error([&] { H.validate(); }, {"Hyb", "COO entry 1", "sorted"});
}

TEST(MatrixValidate, HybEntryInBothParts) {
  auto H = small_hyb();
  // Row 1 has columns {1, 3}: column 1 in the Ell part, column 3 in the COO tail.
  ASSERT_EQ(H.coo.row_idx[0], 1);
  H.coo.col_idx[0] = H.ell.col_idx[H.ell.slot(1, 0)];
  expect_error([&] { H.validate(); }, {"row 1", "both the Ell part", "COO part (entry 0)"});
}

TEST(MatrixValidate, HybInvalidEllPart) {
  auto H = small_hyb();
  H.ell.ld = 1;
  expect_error([&] { H.validate(); }, {"Ell", "ld = 1"});
}

// ---- Dense ----

TEST(MatrixValidate, DenseValidPasses) {
  EXPECT_NO_THROW(Dense<double>(3, 5).validate());
  EXPECT_NO_THROW(Dense<float>(3, 5, spx::Layout::RowMajor).validate());
  EXPECT_NO_THROW(Dense<float>().validate());
  EXPECT_NO_THROW(Dense<float>(0, 4).validate());
}

TEST(MatrixValidate, DenseNegativeDimension) {
  Dense<double> D(3, 5);
  D.cols = -4;
  expect_error([&] { D.validate(); }, {"Dense", "negative", "cols -4"});
}

TEST(MatrixValidate, DenseLdTooSmallColMajor) {
  Dense<double> D(3, 5);
  D.ld = 2;
  expect_error([&] { D.validate(); }, {"ld = 2", "rows = 3", "column-major"});
}

TEST(MatrixValidate, DenseLdTooSmallRowMajor) {
  Dense<double> D(3, 5, spx::Layout::RowMajor);
  D.ld = 4;
  expect_error([&] { D.validate(); }, {"ld = 4", "cols = 5", "row-major"});
}

TEST(MatrixValidate, DenseDataTooSmall) {
  Dense<double> D(3, 5);
  D.ld = 4;  // needs (5-1)*4 + 3 = 19 elements, has 15
  expect_error([&] { D.validate(); }, {"data has 15 elements", "needs 19"});
}

TEST(MatrixValidate, DenseSizeOverflow) {
  Dense<double> D;
  D.rows = int64_t{1} << 40;
  D.cols = int64_t{1} << 40;
  D.ld = D.rows;
  expect_error([&] { D.validate(); }, {"Dense", "overflow"});
}

}  // namespace
