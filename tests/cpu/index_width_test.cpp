// 64-bit row offsets on the planning side (host code): the width chosen from the sizes, its words,
// the candidates that run there and the reason the others give, and the row-length fingerprint a
// device-resident matrix is keyed by; the checks upload_row_blocks makes on each block.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "cpu/cpu_kernel_bounds.hpp"
#include "cuda/formats/row_blocks.hpp"
#include "plan/catalogue.hpp"
#include "spx/column_spans.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/plan.hpp"
#include "spx/sell_c16.hpp"
#include "spx/stats.hpp"

namespace spx::test {
namespace {

constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr std::size_t kPlenty = std::size_t{1} << 40;

TEST(IndexWidth, ChosenFromTheSizesOrAsAsked) {
  using plan::IndexWidth;
  EXPECT_EQ(plan::offset_bits(IndexWidth::Auto, 10, 10, kMax32), 32);
  EXPECT_EQ(plan::offset_bits(IndexWidth::Auto, 10, 10, kMax32 + 1), 64);
  EXPECT_EQ(plan::offset_bits(IndexWidth::Bits64, 10, 10, 5), 64);
  EXPECT_EQ(plan::offset_bits(IndexWidth::Bits32, 10, 10, kMax32), 32);
  try {
    (void)plan::offset_bits(IndexWidth::Bits32, 10, 10, kMax32 + 1);
    ADD_FAILURE() << "32-bit offsets past 2^31 - 1 nonzeros";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2147483648 nonzeros"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("width 64"), std::string::npos) << e.what();
  }
  // Rows or columns past 2^31 - 1 need 64-bit columns, which the GPU path does not have.
  EXPECT_THROW((void)plan::offset_bits(IndexWidth::Auto, kMax32 + 1, 10, 5), Error);
  EXPECT_THROW((void)plan::offset_bits(IndexWidth::Bits64, 10, kMax32 + 1, 5), Error);
  EXPECT_THROW((void)plan::offset_bits(IndexWidth::Auto, -1, 10, 5), Error);
}

TEST(IndexWidth, WordsRoundTripAndOthersAreRefused) {
  for (auto w : {plan::IndexWidth::Auto, plan::IndexWidth::Bits32, plan::IndexWidth::Bits64})
    EXPECT_EQ(plan::parse_index_width(plan::to_string(w)), w);
  try {
    (void)plan::parse_index_width("int64");
    ADD_FAILURE() << "int64 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'int64'"), std::string::npos) << e.what();
  }
}

// At 64-bit offsets exactly the catalogue rows with offsets64 stay eligible; the others say why,
// and cuSPARSE's count their widened columns.
TEST(IndexWidth, OnlyKernelsWithA64BitPathAreCandidates) {
  const auto A = gen::generate<double, int32_t>("stencil27:n=10");
  for (auto op : {plan::Operation::Spmv, plan::Operation::Spmm}) {
    for (auto layout : {plan::DenseLayout::RowMajor, plan::DenseLayout::ColMajor}) {
      if (op == plan::Operation::Spmv && layout == plan::DenseLayout::ColMajor) continue;
      plan::Problem p;
      p.op = op;
      p.layout = layout;
      p.cols_dense = op == plan::Operation::Spmm ? 8 : 0;
      p.stats = stats(A);
      plan::Options o;
      o.mixed_precision = true;  // so that no candidate is refused by the options first
      const auto narrow = plan::candidates(p, o, {}, kPlenty);
      p.offset_bits = 64;
      const auto wide = plan::candidates(p, o, {}, kPlenty);
      ASSERT_EQ(narrow.size(), wide.size());
      int eligible = 0;
      for (std::size_t i = 0; i < wide.size(); ++i) {
        const plan::KernelRow& row = plan::kernel_row(wide[i].kernel);
        if (!row.offsets64) {
          EXPECT_FALSE(wide[i].eligible) << row.name;
          EXPECT_NE(wide[i].why_not.find("32-bit row offsets only"), std::string::npos) << wide[i].why_not;
          EXPECT_NE(wide[i].why_not.find(": asked for"), std::string::npos) << wide[i].why_not;
          continue;
        }
        EXPECT_EQ(wide[i].eligible, narrow[i].eligible) << row.name << ": " << wide[i].why_not;
        eligible += wide[i].eligible ? 1 : 0;
        const std::size_t widened = std::string_view(row.owner) == "cuSPARSE" ? 8 * A.nnz() : 0;
        EXPECT_EQ(wide[i].extra_bytes, narrow[i].extra_bytes + widened) << row.name;
      }
      EXPECT_GE(eligible, 2) << "spx's and cuSPARSE's CSR at least";
      EXPECT_NE(plan::why_none(wide).find("32-bit row offsets only"), std::string::npos);
    }
  }
  // Past 2^31 - 1 nonzeros the reason says so (statistics alone: nothing that large is built).
  plan::Problem big;
  big.stats.rows = big.stats.cols = 100'000'000;
  big.stats.nnz = kMax32 + 1000;
  big.stats.max_row = big.stats.min_row = 21;
  big.offset_bits = 64;
  plan::Options o;
  o.mixed_precision = true;
  for (const plan::Candidate& c : plan::candidates(big, o, {}, kPlenty)) {
    if (!plan::kernel_row(c.kernel).offsets64) {
      EXPECT_NE(c.why_not.find("past 2^31 - 1"), std::string::npos) << c.kernel << ": " << c.why_not;
    }
  }
}

// SELL-C16 and SELL-C16-dict have a 64-bit path (converted on the device from the 64-bit CSR):
// eligible at 64 bits given what the front door's 64-bit matrix hands the planner (the column spans
// and the distinct values counted before its host copy goes, the SELL slots from the row pointer);
// without the count the dictionary variant says what it needs.
TEST(IndexWidth, SellC16RunsAtSixtyFourBits) {
  const auto A = gen::generate<double, int32_t>("stencil27:n=10");
  const std::vector<int64_t> row_ptr(A.row_ptr.begin(), A.row_ptr.end());
  EXPECT_EQ(sell_c16_slots(std::span<const int64_t>(row_ptr)), sell_c16_slots(A));
  plan::Problem p;
  p.op = plan::Operation::Spmv;
  p.stats = stats(A);
  p.column_spans = column_span_stats(A);
  p.features = MatrixFeatures{};
  p.features->sell_slots = sell_c16_slots(A);
  p.offset_bits = 64;
  int seen = 0;
  for (const plan::Candidate& c : plan::candidates(p, {}, {}, kPlenty)) {
    if (c.kernel == "sell_c16_dict") {
      EXPECT_EQ(c.why_not, "needs the count of distinct values");
    }
    if (c.kernel == "sell_c16") {
      EXPECT_TRUE(c.eligible) << c.why_not;
    }
    seen += c.kernel == "sell_c16" || c.kernel == "sell_c16_dict" ? 1 : 0;
  }
  EXPECT_EQ(seen, 2);
  plan::HostExtras extras;
  plan::count_distinct_values(std::span<const double>(A.values), extras);
  ASSERT_TRUE(extras.distinct_values.has_value());
  p.distinct_values = extras.distinct_values;
  for (const plan::Candidate& c : plan::candidates(p, {}, {}, kPlenty)) {
    if (c.kernel == "sell_c16_dict" || c.kernel == "sell_c16") {
      EXPECT_TRUE(c.eligible) << c.kernel << ": " << c.why_not;
    }
  }
}

TEST(IndexWidth, RowLengthFingerprintSeesLengthsNotColumns) {
  const std::vector<int64_t> a = {0, 2, 2, 5}, b = {0, 2, 3, 5};
  EXPECT_EQ(row_length_fingerprint(3, 7, a), row_length_fingerprint(3, 7, a));
  EXPECT_NE(row_length_fingerprint(3, 7, a), row_length_fingerprint(3, 7, b));
  EXPECT_NE(row_length_fingerprint(3, 7, a), row_length_fingerprint(3, 8, a));
  // Never the structure fingerprint of a matrix with those lengths (another seed).
  Csr<double, int32_t> A(3, 7);
  A.row_ptr = {0, 2, 2, 5};
  A.col_idx = {0, 1, 2, 3, 4};
  A.values.assign(5, 1.0);
  EXPECT_NE(row_length_fingerprint(3, 7, a), structure_fingerprint(A));
}

// upload_row_blocks's checks (no GPU needed): each names the block of rows and the numbers.
TEST(IndexWidth, RowBlockChecksNameTheBlock) {
  const auto block = [](int64_t begin, int64_t end) {
    return gen::stencil_rows<double>(7, 5, 4, 3, begin, end);
  };
  const int64_t cols = 5 * 4 * 3;
  const auto b = block(10, 20);
  EXPECT_NO_THROW(cuda::detail::check_row_block(b, 10, 20, cols, 0, b.nnz()));
  EXPECT_NO_THROW(cuda::detail::check_row_block(b, 10, 20, cols, 5, b.nnz() + 5));
  expect_error([&] { cuda::detail::check_row_block(b, 10, 21, cols, 0, b.nnz()); },
               "the block of rows [10, 21) is 10 x 60, not 11 x 60");
  expect_error([&] { cuda::detail::check_row_block(b, 10, 20, cols + 1, 0, b.nnz()); },
               "is 10 x 60, not 10 x 61");
  expect_error([&] { cuda::detail::check_row_block(b, 10, 20, cols, 7, b.nnz() + 6); },
               fmt::format("brings the nonzeros to {}, past the {} announced", b.nnz() + 7, b.nnz() + 6));
  auto bad = b;
  bad.col_idx[3] = cols;  // a column index out of range never reaches the device
  EXPECT_THROW(cuda::detail::check_row_block(bad, 10, 20, cols, 0, b.nnz()), Error);
  expect_error([] { cuda::detail::check_rows_per_block(0); }, "0 rows per block");
  EXPECT_NO_THROW(cuda::detail::check_rows_per_block(1));
  EXPECT_NO_THROW(cuda::detail::check_row_blocks_total(42, 42));
  expect_error([] { cuda::detail::check_row_blocks_total(41, 42); },
               "the blocks hold 41 nonzeros, 42 were announced");
}

}  // namespace
}  // namespace spx::test
