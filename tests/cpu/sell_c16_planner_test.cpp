// The planner's SELL-C16 candidate (src/plan/format_sellc16.cpp): eligible where every row spans at
// most 65535 columns and SELL-32's padding stays within sell_max_slots_per_nnz, refused with the
// reason otherwise; its device bytes and the model's work terms count 2 index bytes a slot.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "plan/catalogue.hpp"
#include "sell_c16_cases.hpp"
#include "spx/column_spans.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"
#include "spx/plan/rules.hpp"
#include "spx/sell_c16.hpp"
#include "spx/stats.hpp"

namespace spx {
namespace {

constexpr std::size_t kPlenty = std::size_t{1} << 40;

plan::Problem problem(const Csr<double, int32_t>& A, int value_bytes, bool spans = true,
                      bool with_features = true) {
  plan::Problem p;
  p.value_bytes = value_bytes;
  p.stats = stats(A);
  if (spans) p.column_spans = column_span_stats(A);
  if (with_features) p.features = features(A);
  return p;
}

plan::Candidate sell_c16(const plan::Problem& p, const plan::Options& o = {}) {
  const auto all = plan::candidates(p, o, {}, kPlenty);
  const auto it =
      std::find_if(all.begin(), all.end(), [](const plan::Candidate& c) { return c.kernel == "sell_c16"; });
  EXPECT_NE(it, all.end());
  return it == all.end() ? plan::Candidate{} : *it;
}

TEST(SellC16Planner, EligibleOnStencilsWithTheirBytes) {
  const auto A = gen::stencil_3d_27pt<double, int32_t>(21, 23, 25);
  for (int v : {4, 8}) {
    const plan::Candidate c = sell_c16(problem(A, v));
    EXPECT_TRUE(c.eligible) << c.why_not;
    EXPECT_EQ(c.format, "sellc16");
    EXPECT_TRUE(c.deterministic);
    // A whole copy: the format's bytes, exactly what the conversion stores.
    EXPECT_EQ(c.extra_bytes, static_cast<std::size_t>(sell_c16_stream_bytes(sell_c16_slots(A), A.rows, v)));
    if (v == 8) {
      EXPECT_EQ(c.extra_bytes, to_sell_c16(A).bytes());
    }
    EXPECT_GT(c.setup_us, 0.0);
  }
  plan::Options only;
  only.formats = {"sellc16"};
  EXPECT_TRUE(sell_c16(problem(A, 8), only).eligible);
}

TEST(SellC16Planner, RefusedWithTheReason) {
  // A row spanning 65536 columns: not representable.
  const auto wide = test::c16_banded<double>(64, 65537, 40, 3, 6, 0.0, 1);
  const plan::Candidate w = sell_c16(problem(wide, 8));
  EXPECT_FALSE(w.eligible);
  EXPECT_NE(w.why_not.find("65535"), std::string::npos) << w.why_not;

  // One long row among short ones: SELL-32 pads its slice far past 4 slots per nonzero.
  const auto padded =
      test::c16_with_huge_row(test::c16_banded<double>(1031, 150001, 500, 2, 7), 517, 20000, 1000, false);
  const plan::Candidate s = sell_c16(problem(padded, 8));
  EXPECT_FALSE(s.eligible);
  EXPECT_NE(s.why_not.find("slots per nonzero"), std::string::npos) << s.why_not;

  const auto A = gen::stencil_2d_5pt<double, int32_t>(31, 33);
  const plan::Candidate no_spans = sell_c16(problem(A, 8, false));
  EXPECT_FALSE(no_spans.eligible);
  EXPECT_NE(no_spans.why_not.find("column spans"), std::string::npos) << no_spans.why_not;
  const plan::Candidate no_features = sell_c16(problem(A, 8, true, false));
  EXPECT_FALSE(no_features.eligible);
  EXPECT_NE(no_features.why_not.find("features"), std::string::npos) << no_features.why_not;
}

TEST(SellC16Planner, ModelCountsTwoIndexBytesASlot) {
  const auto A = gen::stencil_3d_7pt<double, int32_t>(31, 33, 35);
  const MatrixFeatures f = features(A);
  model::DeviceBasics d;
  for (int v : {4, 8}) {
    const model::Terms sell = model::terms({"cusparse_sell_alg1", v, 0}, f, d);
    const model::Terms c16 = model::terms({"sell_c16", v, 0}, f, d);
    // Same walk and grid; fewer streamed bytes.
    EXPECT_EQ(c16.x[5], sell.x[5]);
    EXPECT_EQ(c16.x[6], sell.x[6]);
    EXPECT_LT(c16.x[1] + c16.x[2], sell.x[1] + sell.x[2]);
  }
  const plan::ModelKeyRow* key = plan::find_model_key("sell_c16");
  ASSERT_NE(key, nullptr);
  EXPECT_STREQ(key->borrows, "ell");
}

TEST(SellC16Planner, BytesPerSlot) {
  // Slots dominate: (v + 2) / (v + 4) of SELL-32's bytes, 6/8 in f32 and 10/12 in f64.
  const int64_t slots = 32 * 1000 * 27, rows = 32 * 1000;
  for (int v : {4, 8}) {
    const double sell = static_cast<double>(slots) * (v + 4) + 4.0 * (rows / 32 + 1);
    EXPECT_NEAR(sell_c16_stream_bytes(slots, rows, v) / sell, (v + 2.0 + 4.0 / 27) / (v + 4.0), 5e-3);
  }
}

}  // namespace
}  // namespace spx
