// Every malformed Matrix Market input is an spx::Error "NAME:LINE: what is wrong" — one test per
// case, each checking the line number and the words a user needs.
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "io/mm_header.hpp"
#include "io/mm_readers.hpp"
#include "io/text_file.hpp"
#include "spx/io.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using spx::test::expect_words;
using spx::test::TempPath;

template <class T = double, class I = int32_t>
std::string error_of(const std::string& text, const spx::ReadOptions& options = {}) {
  try {
    spx::parse_matrix_market<T, I>(text, "bad.mtx", options);
  } catch (const spx::Error& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";

std::string read_error(const std::string& path) {
  try {
    spx::read_matrix_market<double, int32_t>(path);
  } catch (const spx::Error& e) {
    return e.what();
  }
  return "(no error)";
}

// ---- banner ----------------------------------------------------------------------------------

TEST(IoErrors, EmptyInput) { expect_words(error_of(""), {"bad.mtx:1:", "missing Matrix Market banner"}); }

TEST(IoErrors, MissingBanner) {
  expect_words(error_of("3 3 1\n1 1 1\n"), {"bad.mtx:1:", "missing Matrix Market banner", "'3 3 1'"});
}

TEST(IoErrors, IncompleteBanner) {
  expect_words(error_of("%%MatrixMarket matrix coordinate real\n1 1 0\n"),
               {"bad.mtx:1:", "incomplete banner"});
}

TEST(IoErrors, ExtraBannerWord) {
  expect_words(error_of("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n"),
               {"bad.mtx:1:", "unexpected 'extra'"});
}

TEST(IoErrors, UnsupportedObject) {
  expect_words(error_of("%%MatrixMarket vector coordinate real general\n1 1 0\n"),
               {"bad.mtx:1:", "unsupported", "vector"});
}

TEST(IoErrors, UnsupportedFormat) {
  expect_words(error_of("%%MatrixMarket matrix sparse real general\n1 1 0\n"),
               {"bad.mtx:1:", "unsupported format 'sparse'"});
}

TEST(IoErrors, ComplexIsUnsupported) {
  expect_words(error_of("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n"),
               {"bad.mtx:1:", "unsupported field 'complex'"});
}

TEST(IoErrors, UnknownField) {
  expect_words(error_of("%%MatrixMarket matrix coordinate quaternion general\n1 1 0\n"),
               {"bad.mtx:1:", "unsupported field 'quaternion'"});
}

TEST(IoErrors, HermitianIsUnsupported) {
  expect_words(error_of("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n"),
               {"bad.mtx:1:", "unsupported symmetry 'hermitian'"});
}

TEST(IoErrors, UnknownSymmetry) {
  expect_words(error_of("%%MatrixMarket matrix coordinate real diagonal\n1 1 0\n"),
               {"bad.mtx:1:", "unsupported symmetry 'diagonal'"});
}

TEST(IoErrors, PatternArray) {
  expect_words(error_of("%%MatrixMarket matrix array pattern general\n1 1\n"),
               {"bad.mtx:1:", "array pattern"});
}

TEST(IoErrors, PatternSkewSymmetric) {
  expect_words(error_of("%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n"),
               {"bad.mtx:1:", "pattern skew-symmetric"});
}

// ---- size line -------------------------------------------------------------------------------

TEST(IoErrors, MissingSizeLine) {
  expect_words(error_of(kGeneral + "% only comments\n\n"),
               {"bad.mtx:3:", "missing size line", "rows cols entries"});
}

TEST(IoErrors, GarbledSizeLine) {
  expect_words(error_of(kGeneral + "% c\n3 x 4\n"),
               {"bad.mtx:3:", "malformed size line", "'x' is not an integer"});
}

TEST(IoErrors, IncompleteSizeLine) {
  expect_words(error_of(kGeneral + "3 3\n1 1 1\n"),
               {"bad.mtx:2:", "incomplete size line", "rows cols entries"});
}

TEST(IoErrors, TrailingGarbageOnSizeLine) {
  expect_words(error_of(kGeneral + "3 3 1 7\n1 1 1\n"), {"bad.mtx:2:", "unexpected '7' on the size line"});
  expect_words(error_of("%%MatrixMarket matrix array real general\n2 2 4 5\n"),
               {"bad.mtx:2:", "unexpected '4' on the size line", "'rows cols'"});
}

TEST(IoErrors, NegativeSize) {
  expect_words(error_of(kGeneral + "3 -5 1\n1 1 1\n"), {"bad.mtx:2:", "negative size -5"});
  expect_words(error_of(kGeneral + "3 5 -1\n"), {"bad.mtx:2:", "negative size -1"});
}

TEST(IoErrors, SizeBeyond64Bits) {
  expect_words(error_of(kGeneral + "99999999999999999999 1 0\n"),
               {"bad.mtx:2:", "size '99999999999999999999'", "too large"});
}

TEST(IoErrors, NonSquareSymmetric) {
  expect_words(error_of("%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n"),
               {"bad.mtx:2:", "must be square", "3 x 4"});
}

TEST(IoErrors, DimensionsDoNotFitIndexType) {
  const std::string text = kGeneral + "3000000000 2 0\n";
  expect_words(error_of(text), {"bad.mtx:2:", "3000000000 rows", "do not fit", "int32_t", "int64_t"});
  expect_words(error_of(kGeneral + "2 3000000000 0\n"), {"bad.mtx:2:", "3000000000 columns", "int32_t"});
}

// Overflow needs > 2^31 expanded entries, too big for a unit test: check the guard read_coordinate
// calls with the count it computed.
TEST(IoErrors, ExpandedNnzDoesNotFitIndexType) {
  const auto h = spx::io::parse_header(
      "%%MatrixMarket matrix coordinate real symmetric\n%\n70000 70000 1500000000\n", "big.mtx");
  try {
    spx::io::check_nnz_fits<int32_t>(int64_t{2999930000}, h, "big.mtx");
    ADD_FAILURE() << "no error";
  } catch (const spx::Error& e) {
    expect_words(e.what(),
                 {"big.mtx:3:", "2999930000 nonzeros after symmetric expansion", "int32_t", "int64_t"});
  }
  EXPECT_NO_THROW(spx::io::check_nnz_fits<int64_t>(int64_t{2999930000}, h, "big.mtx"));
}

TEST(IoErrors, ArrayTooLarge) {
  expect_words(error_of("%%MatrixMarket matrix array real general\n4000000000 4000000000\n1\n"),
               {"bad.mtx:2:", "too large"});
}

// ---- entries -----------------------------------------------------------------------------------

TEST(IoErrors, TooFewEntries) {
  // Ends on line 5 with 2 of the 3 entries.
  expect_words(error_of(kGeneral + "% c\n3 3 3\n1 1 1\n2 2 2\n"),
               {"bad.mtx:5:", "ends after 2 of the 3 entries", "declared on line 3"});
  expect_words(error_of(kGeneral + "3 3 3\n1 1 1\n\n% trailing comment"),
               {"bad.mtx:5:", "ends after 1 of the 3"});
  expect_words(error_of(kGeneral + "3 3 3"), {"bad.mtx:2:", "ends after 0 of the 3"});
}

TEST(IoErrors, TooManyEntries) {
  expect_words(error_of(kGeneral + "3 3 2\n1 1 1\n2 2 2\n\n3 3 3\n"),
               {"bad.mtx:6:", "more entries than the 2 declared"});
}

TEST(IoErrors, ColumnIndexZero) {
  expect_words(error_of(kGeneral + "% c\n% c\n3 5 3\n1 1 1\n2 2 2\n3 0 1\n"),
               {"bad.mtx:7:", "column index 0 out of range 1..5"});
}

TEST(IoErrors, RowIndexOutOfRange) {
  expect_words(error_of(kGeneral + "3 5 1\n4 1 1\n"), {"bad.mtx:3:", "row index 4 out of range 1..3"});
  expect_words(error_of(kGeneral + "3 5 1\n-1 1 1\n"), {"bad.mtx:3:", "row index -1 out of range 1..3"});
  expect_words(error_of(kGeneral + "3 5 1\n99999999999999999999 1 1\n"),
               {"bad.mtx:3:", "row index '99999999999999999999' out of range 1..3"});
}

TEST(IoErrors, NonNumericIndex) {
  expect_words(error_of(kGeneral + "3 3 1\n1 b 1\n"), {"bad.mtx:3:", "column index 'b' is not an integer"});
  expect_words(error_of(kGeneral + "3 3 1\n1.0 1 1\n"), {"bad.mtx:3:", "row index '1.0' is not an integer"});
}

TEST(IoErrors, NonNumericValue) {
  expect_words(error_of(kGeneral + "3 3 1\n1 1 abc\n"), {"bad.mtx:3:", "value 'abc' is not a number"});
  expect_words(error_of(kGeneral + "3 3 1\n1 1 1.5x\n"), {"bad.mtx:3:", "value '1.5x' is not a number"});
  expect_words(error_of(kGeneral + "3 3 1\n1 1 1e\n"), {"bad.mtx:3:", "value '1e' is not a number"});
}

TEST(IoErrors, NonIntegerValueInIntegerFile) {
  expect_words(error_of("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n"),
               {"bad.mtx:3:", "value '1.5' is not an integer"});
}

TEST(IoErrors, MissingValue) {
  expect_words(error_of(kGeneral + "3 3 2\n1 1 1\n2 2\n"), {"bad.mtx:4:", "missing value", "row col value"});
}

TEST(IoErrors, MissingColumn) {
  expect_words(error_of(kGeneral + "3 3 1\n2   \n"), {"bad.mtx:3:", "missing column index"});
}

TEST(IoErrors, TrailingGarbageOnEntryLine) {
  expect_words(error_of(kGeneral + "3 3 1\n1 1 1 junk\n"),
               {"bad.mtx:3:", "unexpected 'junk' after the entry"});
  expect_words(error_of("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n"),
               {"bad.mtx:3:", "unexpected '1' after the entry", "'row col'"});
}

TEST(IoErrors, NanRejectedByDefault) {
  expect_words(error_of(kGeneral + "3 3 2\n1 1 1\n2 2 nan\n"),
               {"bad.mtx:4:", "value 'nan' is not finite", "allow_nonfinite"});
}

TEST(IoErrors, InfRejectedByDefault) {
  expect_words(error_of(kGeneral + "3 3 1\n1 1 -Inf\n"), {"bad.mtx:3:", "'-Inf' is not finite"});
}

TEST(IoErrors, OverflowRejectedByDefault) {
  expect_words(error_of(kGeneral + "3 3 1\n1 1 1e999\n"),
               {"bad.mtx:3:", "'1e999' is out of range for double"});
  expect_words(error_of<float>(kGeneral + "3 3 1\n1 1 1e39\n"),
               {"bad.mtx:3:", "'1e39' is out of range for float"});
}

TEST(IoErrors, UpperTriangleInSymmetricFile) {
  expect_words(error_of("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n2 3 1\n"),
               {"bad.mtx:4:", "entry (2, 3) is above the diagonal", "symmetric", "lower triangle"});
}

TEST(IoErrors, DiagonalInSkewSymmetricFile) {
  expect_words(error_of("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n"),
               {"bad.mtx:4:", "diagonal entry (2, 2)", "skew-symmetric"});
}

TEST(IoErrors, DuplicateWithErrorPolicy) {
  spx::ReadOptions strict;
  strict.duplicates = spx::Duplicates::Error;
  expect_words(error_of(kGeneral + "3 3 4\n1 1 1\n3 2 1\n2 2 1\n% c\n3 2 5\n", strict),
               {"bad.mtx:7:", "duplicate entry (3, 2)", "first given on line 4"});
  expect_words(
      error_of("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 3 1\n2 1 1\n", strict),
      {"bad.mtx:5:", "duplicate entry (2, 1)", "first given on line 3"});
  EXPECT_EQ(error_of(kGeneral + "3 3 2\n1 1 1\n1 1 1\n"), "(no error)");  // summed by default
}

TEST(IoErrors, ArrayTooFewValues) {
  expect_words(error_of("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n"),
               {"bad.mtx:5:", "ends after 3 of the 4 values"});
}

TEST(IoErrors, ArrayTooManyValues) {
  expect_words(error_of("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n"),
               {"bad.mtx:6:", "more values than the 3 declared"});
}

TEST(IoErrors, ArrayTwoValuesOnALine) {
  expect_words(error_of("%%MatrixMarket matrix array real general\n2 1\n1 2\n"),
               {"bad.mtx:3:", "unexpected '2' after the value", "one value per line"});
}

TEST(IoErrors, ControlBytesAreNotPrinted) {
  const std::string msg = error_of(kGeneral + "3 3 1\n1 1 \x01\x02\x7f\n");
  expect_words(msg, {"bad.mtx:3:", "value '?\x3f?' is not a number"});
}

// A problem deep inside a large input is found by the parallel parse, which does not know line
// numbers: the single-thread re-parse must still name the exact line.
TEST(IoErrors, ErrorLineIsExactInLargeInput) {
  std::string text = kGeneral + "1000 1000 400000\n";
  for (int k = 0; k < 400000; ++k)
    text += std::to_string(k % 1000 + 1) + " " + std::to_string(k / 1000 % 1000 + 1) + " 0.123456789012\n";
  ASSERT_GT(text.size(), std::size_t{4} << 20);
  const std::size_t line_of_entry = 3 + 300000;  // 1-based: banner, size line, then entries
  std::size_t at = 0;
  for (std::size_t l = 1; l < line_of_entry; ++l) at = text.find('\n', at) + 1;
  text.replace(at, text.find('\n', at) - at, "5 1001 1");
  const int threads = omp_get_max_threads();
  omp_set_num_threads(4);
  const std::string msg = error_of(text);
  omp_set_num_threads(threads);
  expect_words(msg, {("bad.mtx:" + std::to_string(line_of_entry) + ":").c_str(),
                     "column index 1001 out of range 1..1000"});
}

// ---- files -----------------------------------------------------------------------------------

TEST(IoErrors, MissingFile) {
  expect_words(read_error("/nonexistent/dir/none.mtx"),
               {"/nonexistent/dir/none.mtx", "cannot open", "No such file"});
}

TEST(IoErrors, DirectoryInsteadOfFile) {
  expect_words(read_error(fs::temp_directory_path().string()), {"is a directory"});
}

TEST(IoErrors, UnreadableFile) {
  if (geteuid() == 0) GTEST_SKIP() << "running as root: permissions do not stop reads";
  TempPath f(".mtx");
  std::ofstream(f.path()) << kGeneral << "1 1 0\n";
  fs::permissions(f.path(), fs::perms::none);
  expect_words(read_error(f.path()), {f.path().c_str(), "cannot open", "Permission denied"});
}

TEST(IoErrors, CorruptGzipStream) {
  TempPath f(".mtx.gz");
  {
    spx::io::TextWriter w(f.path());
    w.write(kGeneral + "2 2 1\n1 1 1\n" + std::string(5000, '%') + "\n");
    w.close();
  }
  std::string bytes;
  {
    std::ifstream in(f.path(), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (std::size_t k = 12; k < bytes.size() - 8; k += 3) bytes[k] = static_cast<char>(bytes[k] ^ 0x5a);
  std::ofstream(f.path(), std::ios::binary | std::ios::trunc) << bytes;
  expect_words(read_error(f.path()), {f.path().c_str(), "corrupt gzip stream"});
}

TEST(IoErrors, TruncatedGzipStream) {
  TempPath f(".mtx.gz");
  {
    spx::io::TextWriter w(f.path());
    w.write(kGeneral + "2 2 1\n1 1 1\n");
    w.close();
  }
  fs::resize_file(f.path(), fs::file_size(f.path()) - 10);
  expect_words(read_error(f.path()), {f.path().c_str(), "truncated gzip stream"});
}

TEST(IoErrors, GarbageAfterGzipStream) {
  TempPath f(".mtx.gz");
  {
    spx::io::TextWriter w(f.path());
    w.write(kGeneral + "2 2 1\n1 1 1\n");
    w.close();
  }
  std::ofstream(f.path(), std::ios::binary | std::ios::app) << "trailing";
  expect_words(read_error(f.path()), {f.path().c_str(), "unexpected data after the end"});
}

TEST(IoErrors, HeaderReaderStopsAtANonMatrixMarketFile) {
  TempPath f(".bin");
  std::ofstream(f.path()) << "PK\x03\x04 not a matrix\n" << std::string(1 << 20, 'x') << "\n1 2 3\n";
  try {
    spx::read_matrix_market_header(f.path());
    ADD_FAILURE() << "no error";
  } catch (const spx::Error& e) {
    expect_words(e.what(), {(f.path() + ":1:").c_str(), "missing Matrix Market banner"});
  }
}

TEST(IoErrors, HeaderReaderReportsTheSameProblems) {
  TempPath f(".mtx");
  std::ofstream(f.path()) << "%%MatrixMarket matrix coordinate complex general\n1 1 0\n";
  try {
    spx::read_matrix_market_header(f.path());
    ADD_FAILURE() << "no error";
  } catch (const spx::Error& e) {
    expect_words(e.what(), {(f.path() + ":1:").c_str(), "unsupported field 'complex'"});
  }
}

TEST(IoErrors, WriteToMissingDirectory) {
  spx::Csr<double, int32_t> A(1, 1);
  try {
    spx::write_matrix_market("/nonexistent/dir/out.mtx", A);
    ADD_FAILURE() << "no error";
  } catch (const spx::Error& e) {
    expect_words(e.what(), {"/nonexistent/dir/out.mtx", "cannot open for writing"});
  }
}

}  // namespace
