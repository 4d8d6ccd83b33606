// Hostile inputs to the Matrix Market reader: binary data, overlong header lines, streams (pipes,
// FIFOs) of unknown length, gzip bombs, counts beyond the size line and headers whose memory needs
// exceed the host's. Each must end in one clear spx::Error, fast and with bounded memory.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <thread>

#include "io/mm_header_scan.hpp"
#include "io/mm_limits.hpp"
#include "spx/io.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using spx::test::expect_words;
using spx::test::TempPath;

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const spx::Error& e) {
    return e.what();
  }
  return "(no error)";
}

double seconds_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// gzip file of `head` followed by `copies` times `line`, compressed piece by piece (the test never
// holds the whole text).
void write_gzip(const std::string& path, const std::string& head, const std::string& line, int64_t copies) {
  gzFile gz = gzopen(path.c_str(), "wb1");
  ASSERT_NE(gz, nullptr);
  gzwrite(gz, head.data(), static_cast<unsigned>(head.size()));
  std::string block;
  for (int i = 0; i < 4096; ++i) block += line;
  int64_t left = copies;
  for (; left >= 4096; left -= 4096) gzwrite(gz, block.data(), static_cast<unsigned>(block.size()));
  for (; left > 0; --left) gzwrite(gz, line.data(), static_cast<unsigned>(line.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Peak resident memory of this process so far, bytes.
uint64_t peak_rss() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

// ---- row 3: binary data and overlong lines -----------------------------------------------------

TEST(IoHostile, DevZeroIsRejectedAtOnce) {
  // Used to rescan the text every 64 KB until a newline: quadratic, minutes for /dev/zero.
  std::string header_error, read_error;
  const double s = seconds_of([&] {
    header_error = error_of([] { spx::read_matrix_market_header("/dev/zero"); });
    read_error = error_of([] { spx::read_matrix_market<double>("/dev/zero"); });
  });
  EXPECT_LT(s, 1.0);
  expect_words(header_error, {"/dev/zero:1:", "NUL byte", "not a Matrix Market text file"});
  expect_words(read_error, {"/dev/zero:1:", "NUL byte"});
}

TEST(IoHostile, NulBytesInAFileHeaderAreRejected) {
  TempPath f(".mtx");
  std::string text = kGeneral + "% comment\n";
  text.append(1000, '\0');
  text += '\n';
  write_text(f.path(), text);
  expect_words(error_of([&] { spx::read_matrix_market<double>(f.path()); }), {":3:", "NUL byte"});
}

TEST(IoHostile, OverlongHeaderLineIsRejected) {
  // Built by appending: GCC 12 gives a false -Wrestrict on chained string concatenation.
  std::string text = kGeneral;
  text += '%';
  text.append(spx::io::kMaxHeaderLineBytes + 10, 'x');
  text += "\n1 1 1\n1 1 1\n";
  expect_words(error_of([&] { spx::parse_matrix_market<double>(text, "long.mtx"); }),
               {"long.mtx:2:", "header line longer than 1 MiB"});
  TempPath gz(".mtx.gz");
  write_gzip(gz.path(), kGeneral + "%", "x", 3 << 20);
  std::string message;
  EXPECT_LT(seconds_of([&] { message = error_of([&] { spx::read_matrix_market_header(gz.path()); }); }), 1.0);
  expect_words(message, {":2:", "header line longer than 1 MiB"});
}

TEST(IoHostile, HeaderScanIsIndependentOfHowTheTextArrives) {
  const std::string text = kGeneral + "% one\n\n%two\n 3 3 1\n1 1 1\n";
  const std::size_t whole = spx::io::HeaderScan("x").scan(text);
  EXPECT_EQ(text.substr(0, whole), kGeneral + "% one\n\n%two\n 3 3 1\n");
  spx::io::HeaderScan scan("x");
  std::size_t found = std::string::npos;
  for (std::size_t n = 1; n <= text.size() && found == std::string::npos; ++n)
    found = scan.scan(std::string_view(text).substr(0, n));
  EXPECT_EQ(found, whole);
}

// ---- row 12: pipes and FIFOs are streams -------------------------------------------------------

const std::string kSmall = kGeneral + "% a comment\n3 3 3\n1 1 1.5\n2 2 2.5\n3 1 -1\n";

void expect_small(const spx::Csr<double, int32_t>& A) {
  EXPECT_EQ(A.rows, 3);
  EXPECT_EQ(A.nnz(), 3);
  EXPECT_EQ(A.values[0], 1.5);
  EXPECT_EQ(A.values[1], 2.5);
  EXPECT_EQ(A.values[2], -1.0);
}

std::string gzip_of(const std::string& text) {
  TempPath f(".gz");
  write_gzip(f.path(), text, "", 0);
  std::ifstream in(f.path(), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(IoHostile, FifoIsReadAsAStream) {
  for (const bool gzip : {false, true}) {
    TempPath fifo(".fifo");
    ASSERT_EQ(mkfifo(fifo.path().c_str(), 0600), 0);
    const std::string bytes = gzip ? gzip_of(kSmall) : kSmall;
    std::thread writer([&] { std::ofstream(fifo.path(), std::ios::binary) << bytes; });
    spx::Csr<double, int32_t> A;
    const std::string message = error_of([&] { A = spx::read_matrix_market<double>(fifo.path()); });
    writer.join();
    EXPECT_EQ(message, "(no error)") << (gzip ? "gzip" : "plain");
    expect_small(A);
  }
}

TEST(IoHostile, PipeIsReadAsAStream) {
  for (const bool gzip : {false, true}) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const std::string bytes = gzip ? gzip_of(kSmall) : kSmall;
    std::thread writer([&] {
      std::size_t done = 0;
      while (done < bytes.size()) {
        const ssize_t n = write(fds[1], bytes.data() + done, bytes.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
      }
      close(fds[1]);
    });
    const std::string path = "/dev/fd/" + std::to_string(fds[0]);
    spx::Csr<double, int32_t> A;
    const std::string message = error_of([&] { A = spx::read_matrix_market<double>(path); });
    writer.join();
    close(fds[0]);
    EXPECT_EQ(message, "(no error)") << (gzip ? "gzip" : "plain");
    expect_small(A);
  }
}

// ---- row 5: counts checked while parsing, gzip bombs, memory needs from the header -------------

TEST(IoHostile, GzipBombFailsAtTheFirstEntryBeyondTheDeclaredCount) {
  // 10 entries declared, 1e7 given: 57 MiB of text (under the 64 MiB comment allowance, so the
  // parser sees it all, in parallel pieces). The pieces used to list every entry (160 MB of lists)
  // before the count was compared; now they stop a few thousand entries past it.
  omp_set_num_threads(4);
  TempPath f(".mtx.gz");
  write_gzip(f.path(), kGeneral + "4 4 10\n", "1 1 1\n", 10000000);
  const uint64_t before = peak_rss();
  const std::string message = error_of([&] { spx::read_matrix_market<double>(f.path()); });
  expect_words(message, {":13:", "more entries than the 10 declared"});
  // The text itself (57 MiB) plus slack; meaningful when the test runs in its own process (ctest).
  EXPECT_LT(peak_rss() - before, uint64_t{120} << 20);
}

TEST(IoHostile, ParallelParserChecksTheDeclaredCount) {
  omp_set_num_threads(4);
  std::string text = kGeneral + "1000 1000 1000\n";
  for (int i = 0; i < 1000000; ++i) text += "7 9 1\n";
  ASSERT_GT(text.size(), std::size_t{4} << 20);
  expect_words(error_of([&] { spx::parse_matrix_market<double>(text, "many.mtx"); }),
               {"many.mtx:1003:", "more entries than the 1000 declared"});
}

TEST(IoHostile, StreamTextBeyondWhatTheHeaderNeedsIsRefused) {
  // One entry declared, then 80 MiB of comment lines: more than the 64 MiB comment allowance.
  TempPath f(".mtx.gz");
  std::string comment(1, '%');
  comment.append(62, 'c');
  comment += '\n';
  write_gzip(f.path(), kGeneral + "2 2 1\n", comment, (int64_t{80} << 20) / 64);
  std::string message;
  const double s =
      seconds_of([&] { message = error_of([&] { spx::read_matrix_market<double>(f.path()); }); });
  expect_words(message, {"the text passes", "1 entries declared on line 2", "SPX_MAX_EXPANSION"});
  EXPECT_LT(s, 10.0);

  // The factor raises the limit: 4e6 x 64 bytes per entry is 256 MB.
  ASSERT_EQ(setenv("SPX_MAX_EXPANSION", "4e6", 1), 0);
  message = error_of([&] { spx::read_matrix_market<double>(f.path()); });
  EXPECT_NE(message.find("the file ends after 0 of the 1 entries"), std::string::npos) << message;
  ASSERT_EQ(setenv("SPX_MAX_EXPANSION", "lots", 1), 0);
  expect_words(error_of([&] { spx::read_matrix_market<double>(f.path()); }),
               {"SPX_MAX_EXPANSION='lots' is not a positive number"});
  unsetenv("SPX_MAX_EXPANSION");
}

TEST(IoHostile, HeaderNeedingMoreMemoryThanAvailableIsRefusedBeforeReading) {
  // A stream cannot bound its entries by its size: 1e12 declared entries are refused at once.
  TempPath f(".mtx.gz");
  write_gzip(f.path(), kGeneral + "1000000 1000000 1000000000000\n", "1 1 1\n", 3);
  expect_words(error_of([&] { spx::read_matrix_market<double, int64_t>(f.path()); }),
               {":2:", "needs about", "of memory", "available"});
  // A plain file holds at most size/4 entries: the same header there is a short file.
  TempPath plain(".mtx");
  write_text(plain.path(), kGeneral + "1000000 1000000 1000000000000\n1 1 1\n");
  expect_words(error_of([&] { spx::read_matrix_market<double, int64_t>(plain.path()); }),
               {"the file ends after 1 of the 1000000000000 entries"});
  // Rows alone can need memory: row_ptr of 1e15 empty rows.
  expect_words(error_of([] {
                 spx::parse_matrix_market<double, int64_t>(kGeneral + "1000000000000000 1 0\n", "rows.mtx");
               }),
               {"rows.mtx:2:", "needs about", "available"});
}

// ---- row 13: what a user can do about an index type too small -----------------------------------

TEST(IoHostile, IndexTypeMessagesNameWhatExists) {
  const std::string message =
      error_of([] { spx::parse_matrix_market<double>(kGeneral + "3000000000 2 0\n", "big.mtx"); });
  expect_words(message, {"big.mtx:2:", "int32_t", "read_matrix_market<T, int64_t>", "SparseMatrix",
                         "spx cg --index 64"});
  // Only ways that exist: spx cg reads 64-bit indices now (the old hint said no spx command did).
  EXPECT_EQ(message.find("spx commands"), std::string::npos) << message;
}

}  // namespace
