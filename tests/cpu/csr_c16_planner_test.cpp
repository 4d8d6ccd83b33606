// The planner's CSR-C16 candidate (src/plan/format_csrc16.cpp): eligible where the escape rows hold
// few nonzeros and the 16-bit columns save enough bytes, refused with the reason otherwise; its
// device bytes and the model's work terms count 2 index bytes a nonzero.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "csr_c16_cases.hpp"
#include "plan/catalogue.hpp"
#include "spx/column_spans.hpp"
#include "spx/csr_c16.hpp"
#include "spx/features.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"
#include "spx/stats.hpp"

namespace spx {
namespace {

constexpr std::size_t kPlenty = std::size_t{1} << 40;

plan::Problem problem(const Csr<double, int32_t>& A, int value_bytes, bool spans = true) {
  plan::Problem p;
  p.value_bytes = value_bytes;
  p.stats = stats(A);
  if (spans) p.column_spans = column_span_stats(A);
  return p;
}

plan::Candidate c16(const plan::Problem& p) {
  const auto all = plan::candidates(p, {}, {}, kPlenty);
  const auto it =
      std::find_if(all.begin(), all.end(), [](const plan::Candidate& c) { return c.kernel == "csr_c16"; });
  EXPECT_NE(it, all.end());
  return it == all.end() ? plan::Candidate{} : *it;
}

TEST(CsrC16Planner, EligibleOnNarrowRowsThatSaveBytes) {
  const auto A = test::c16_banded<double>(4001, 300007, 30000, 12, 5);
  for (int v : {4, 8}) {
    const plan::Candidate c = c16(problem(A, v));
    EXPECT_TRUE(c.eligible) << c.why_not;
    EXPECT_EQ(c.format, "csrc16");
    EXPECT_TRUE(c.deterministic);
    // A whole copy: the format's bytes.
    EXPECT_EQ(c.extra_bytes, static_cast<std::size_t>(csr_c16_stream_bytes(column_span_stats(A), v)));
    if (v == 8) {
      EXPECT_EQ(c.extra_bytes, to_csr_c16(A).bytes());
    }
    EXPECT_GT(c.setup_us, 0.0);
  }
}

TEST(CsrC16Planner, RefusedWithTheReason) {
  const auto& t = plan::default_rule_tables().planner;
  // Every other row wide (5 nonzeros against the narrow rows' 3): most nonzeros escape.
  const auto wide = test::c16_banded<double>(4001, 300007, 30000, 3, 6, 0.0, 2);
  const plan::Candidate w = c16(problem(wide, 8));
  EXPECT_FALSE(w.eligible);
  EXPECT_NE(w.why_not.find("65535"), std::string::npos) << w.why_not;
  EXPECT_GT(1.0 - column_span_stats(wide).narrow_share(), t.c16_max_escape_share);

  // Rows of 2 nonzeros in f64: the base column costs what the narrower offsets save.
  const auto short_rows = test::c16_banded<double>(4001, 30007, 300, 2, 7);
  const plan::Candidate s = c16(problem(short_rows, 8));
  EXPECT_FALSE(s.eligible);
  EXPECT_NE(s.why_not.find("save"), std::string::npos) << s.why_not;

  // Without the spans (a Problem not made by the front door).
  const plan::Candidate none = c16(problem(test::c16_banded<double>(401, 3007, 30, 12, 8), 8, false));
  EXPECT_FALSE(none.eligible);
  EXPECT_NE(none.why_not.find("column spans"), std::string::npos) << none.why_not;

  plan::Options only;
  only.formats = {"csrc16"};
  EXPECT_NO_THROW((void)plan::candidates(problem(short_rows, 8), only, {}, kPlenty));
}

TEST(CsrC16Planner, StreamBytesAndTheFloor) {
  ColumnSpanStats s;
  s.rows = 1000;
  s.nnz = 1000 * 1000;
  // Long narrow rows approach the floor: (v + 2) / (v + 4) of CSR's bytes.
  EXPECT_NEAR(csr_c16_stream_bytes(s, 8) / csr_stream_bytes(s, 8), 10.0 / 12.0, 1e-2);
  EXPECT_NEAR(csr_c16_stream_bytes(s, 4) / csr_stream_bytes(s, 4), 6.0 / 8.0, 1e-2);
  // Escape nonzeros cost CSR's bytes plus 8 a row.
  s.wide_rows = 10;
  s.wide_nnz = 10 * 1000;
  EXPECT_DOUBLE_EQ(csr_c16_stream_bytes(s, 8), 990000.0 * 10 + 8000 + 4 + 10000.0 * 12 + 80 + 4);
}

TEST(CsrC16Planner, ModelCountsTwoIndexBytes) {
  const auto A = test::c16_banded<double>(4001, 300007, 30000, 12, 9);
  const MatrixFeatures f = features(A);
  model::DeviceBasics d;
  const model::Terms csr = model::terms({"csr_param", 8, 0}, f, d);
  const model::Terms c16 = model::terms({"csr_c16", 8, 0}, f, d);
  // Same walk, grid and launches; fewer streamed bytes.
  EXPECT_EQ(c16.x[5], csr.x[5]);
  EXPECT_EQ(c16.x[6], csr.x[6]);
  EXPECT_LT(c16.x[1] + c16.x[2], csr.x[1] + csr.x[2]);
  const plan::ModelKeyRow* key = plan::find_model_key("csr_c16");
  ASSERT_NE(key, nullptr);
  EXPECT_STREQ(key->borrows, "csr_param");
}

}  // namespace
}  // namespace spx
