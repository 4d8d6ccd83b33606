// The benchmark's memory check and the planner count a format's copy in one place, the format table
// (plan/format_table.hpp): for every catalogue row the footprint's bytes are the row's extra_bytes
// for the Problem the planner's front door builds, and the rows' bytes are what the copies the
// benchmark's entries build hold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/footprint.hpp"
#include "plan/catalogue.hpp"
#include "plan/format_bsr.hpp"
#include "plan/format_table.hpp"
#include "spx/bsr.hpp"
#include "spx/column_spans.hpp"
#include "spx/convert.hpp"
#include "spx/csr_c16.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"
#include "spx/sell_c16.hpp"
#include "spx/stats.hpp"

namespace spx::test {
namespace {

using namespace spx::bench;

// Uniform, skewed, blocked and wide-row matrices (wide rows: CSR-C16's escape part).
const std::vector<std::string> kSpecs = {"stencil27:n=9", "powerlaw:n=3000,avg=6",
                                         "blockdense:n=1024,block=4,per_row=3",
                                         "longrows:rows=3000,cols=90000,long=3,len=2000,empty=0.3,short=5"};

// The planner's Problem as its front door fills it (src/cuda/plan/sparse_matrix.cpp), with all the
// features (Mode::Model).
template <class T>
plan::Problem front_door_problem(const Csr<T, int32_t>& A, const plan::KernelRow& row) {
  plan::Problem q;
  q.op = row.op;
  q.cols_dense = row.spmm() ? 8 : 0;
  q.layout = row.layout;
  q.value_bytes = static_cast<int>(sizeof(T));
  q.stats = spx::stats(A);
  q.features = spx::features(A);
  q.column_spans = column_span_stats(A);
  if (!row.spmm()) q.bsr_blocks = bsr_block_counts(A);
  return q;
}

template <class T>
void expect_footprint_reads_the_format_table(const Csr<T, int32_t>& A) {
  const MatrixStats stats = spx::stats(A);
  const FormatInputs inputs = format_inputs(A, std::nullopt);
  for (const plan::KernelRow& row : plan::catalogue()) {
    SCOPED_TRACE(row.name);
    Problem p;
    p.op = row.spmm() ? OpKind::Spmm : OpKind::Spmv;
    p.precision = sizeof(T) == 4 ? Precision::F32 : Precision::F64;
    p.cols_dense = row.spmm() ? 8 : 0;
    p.rows = A.rows;
    p.cols = A.cols;
    p.nnz = A.nnz();
    p.stats = &stats;
    p.format_inputs = &inputs;
    KernelEntry e;
    e.name = std::string(row.bench_name());
    e.backend = "cuda";
    e.op = p.op;
    e.format = Format::Csr;  // the catalogue row decides, not what the entry declares
    if (row.spmm())
      e.layout = row.layout == plan::DenseLayout::RowMajor ? Layout::RowMajor : Layout::ColMajor;
    const plan::FormatRow& format = *plan::find_format(row.format);
    const double expected = format.extra_bytes(front_door_problem(A, row));
    const FormatCopy copy = format_copy(p, e);
    EXPECT_EQ(copy.bytes, static_cast<uint64_t>(expected)) << format.name;
    if (expected > 0) {
      EXPECT_STREQ(copy.format, format.name);
      // The device side of the problem counts that copy under the format's name.
      const Footprint f = problem_footprint(p, {&e});
      bool found = false;
      for (const Footprint::Item& item : f.device)
        found = found || (item.what == "A (" + std::string(format.name) + ")" && item.bytes == copy.bytes);
      EXPECT_TRUE(found) << format.name;
    }
  }
}

TEST(BenchFootprintFormats, EveryCatalogueRowCountsTheFormatTablesBytes) {
  for (const std::string& spec : kSpecs) {
    SCOPED_TRACE(spec);
    const auto A = gen::generate<double, int32_t>(spec);
    expect_footprint_reads_the_format_table(A);
    expect_footprint_reads_the_format_table(spx::cast<float, int32_t>(A));
  }
}

// The partial features the engine computes for the memory check are the full features' fields.
TEST(BenchFootprintFormats, FormatInputsAreTheFeaturesTheRowsRead) {
  for (const std::string& spec : kSpecs) {
    SCOPED_TRACE(spec);
    const auto A = gen::generate<double, int32_t>(spec);
    const MatrixFeatures full = spx::features(A);
    const FormatInputs in = format_inputs(A, std::nullopt);
    EXPECT_EQ(in.features.sell_slots, full.sell_slots);
    EXPECT_EQ(in.features.hyb_width, full.hyb_width);
    EXPECT_EQ(in.features.hyb_ell_nnz, full.hyb_ell_nnz);
    EXPECT_EQ(in.column_spans.wide_nnz, column_span_stats(A).wide_nnz);
    EXPECT_EQ(in.bsr_blocks, bsr_block_counts(A));
  }
}

// Non-candidate entries (CPU references, study variants) fall back on the format they declare, in
// the same table; dense has no row.
TEST(BenchFootprintFormats, NonCandidatesUseTheirDeclaredFormatsRow) {
  const auto A = gen::generate<double, int32_t>("powerlaw:n=3000,avg=6");
  const MatrixStats stats = spx::stats(A);
  const FormatInputs inputs = format_inputs(A, std::nullopt);
  Problem p;
  p.rows = A.rows;
  p.cols = A.cols;
  p.nnz = A.nnz();
  p.stats = &stats;
  p.format_inputs = &inputs;
  KernelEntry e;
  e.name = "ref_hyb";
  e.backend = "cpu";
  e.format = Format::Hyb;
  EXPECT_EQ(format_copy(p, e).bytes,
            static_cast<uint64_t>(plan::find_format("hyb")->extra_bytes(format_problem(p))));
  EXPECT_GT(format_copy(p, e).bytes, 0u);
  e.format = Format::Dense;
  EXPECT_EQ(format_copy(p, e).bytes, 0u);
  // Before loading (no stats): rows of the average length, ELL's slots as many as the nonzeros.
  p.stats = nullptr;
  p.format_inputs = nullptr;
  e.format = Format::Ell;
  const uint64_t rows32 = (static_cast<uint64_t>(A.rows) + 31) / 32 * 32;
  const uint64_t width = (static_cast<uint64_t>(A.nnz()) + A.rows - 1) / A.rows;
  EXPECT_EQ(format_copy(p, e).bytes, rows32 * width * 12);
}

// The rows' bytes against the copies the benchmark's entries build (host conversions; the device
// copies have the same arrays).
TEST(BenchFootprintFormats, RowsCountWhatTheCopiesHold) {
  for (const std::string& spec : kSpecs) {
    SCOPED_TRACE(spec);
    const auto A = gen::generate<double, int32_t>(spec);
    plan::Problem q;
    q.value_bytes = 8;
    q.stats = spx::stats(A);
    q.features = spx::features(A);
    q.column_spans = column_span_stats(A);
    q.bsr_blocks = bsr_block_counts(A);
    auto bytes_of = [&](const char* format) { return plan::find_format(format)->extra_bytes(q); };
    constexpr double kSlot = 8 + 4;
    const auto ell = to_ell(A, -1, std::size_t{1} << 40);
    EXPECT_EQ(bytes_of("ell"), static_cast<double>(ell.values.size()) * kSlot);
    const auto ellr = to_ellr(A, std::size_t{1} << 40);
    EXPECT_EQ(bytes_of("ellr"), static_cast<double>(ellr.values.size()) * kSlot +
                                    4.0 * static_cast<double>(ellr.row_len.size()));
    const auto coo = to_coo(A);
    EXPECT_EQ(bytes_of("coo"), static_cast<double>(coo.values.size()) * (8 + 4 + 4));
    const auto hyb = to_hyb(A);
    EXPECT_EQ(bytes_of("hyb"), static_cast<double>(hyb.ell.values.size()) * kSlot +
                                   static_cast<double>(hyb.coo.values.size()) * (8 + 4 + 4));
    EXPECT_EQ(bytes_of("csrc16"), static_cast<double>(to_csr_c16(A).bytes()));
    // BSR at the block size of fewest bytes, whether or not it saves enough to be a candidate (the
    // benchmark's BSR entries build it on every matrix). Exact where the counts are not sampled.
    ASSERT_FALSE(q.bsr_blocks->sampled);
    const auto best = plan::best_bsr_block(*q.bsr_blocks, 8);
    ASSERT_TRUE(best.has_value());
    const auto bsr = to_bsr(A, best->block);
    EXPECT_EQ(bytes_of("bsr"), static_cast<double>(bsr.values.size()) * 8 +
                                   4.0 * static_cast<double>(bsr.col_idx.size() + bsr.row_ptr.size()));
  }
}

}  // namespace
}  // namespace spx::test
