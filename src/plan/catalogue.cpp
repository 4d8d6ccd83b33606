// The kernel catalogue (plan/catalogue.hpp): every candidate of the planner, one row each.
#include "plan/catalogue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "plan/format_table.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {

namespace {

constexpr Operation kSpmv = Operation::Spmv, kSpmm = Operation::Spmm;
constexpr DenseLayout kRow = DenseLayout::RowMajor, kCol = DenseLayout::ColMajor;
constexpr Determinism kAlways = Determinism::Always, kNever = Determinism::Never,
                      kLongRows = Determinism::UnlessLongRows;

// The model's keys. The SpMM kernels are modelled on row-major operands (the column-major rows
// share their row-major key), cuSPARSE's SpMM as its best algorithm (rule_tables.cpp scales it per
// algorithm). Keys with `borrows` have no fit in data/profiles/h100.json yet: the sibling's
// coefficients on their own terms (COO ALG2 reads what ALG1 reads; the CSR SpMM's forced modes are
// its rule's two modes, each fitted under spmm_csr_row where the rule picked it; rcm_csr runs
// csr_param's kernel on the renumbered matrix).
constexpr std::array kModelKeys = {
    ModelKeyRow{"csr_param", kSpmv, Work::CsrParam},
    ModelKeyRow{"csr_vector", kSpmv, Work::CsrWarpPerRow},
    ModelKeyRow{"ell", kSpmv, Work::Ell},
    ModelKeyRow{"ellr_t", kSpmv, Work::EllrT},
    ModelKeyRow{"coo", kSpmv, Work::Coo},
    ModelKeyRow{"hyb", kSpmv, Work::Hyb},
    ModelKeyRow{"spmv_segsum", kSpmv, Work::Segsum},
    ModelKeyRow{"rcm_csr", kSpmv, Work::RcmCsr, SpmmCsrMode::Rule, "csr_param"},
    ModelKeyRow{"cusparse_csr_alg1", kSpmv, Work::CsrWarpPerRow},
    ModelKeyRow{"cusparse_csr_alg2", kSpmv, Work::CsrBalanced},
    ModelKeyRow{"cusparse_coo_alg1", kSpmv, Work::Coo},
    ModelKeyRow{"cusparse_coo_alg2", kSpmv, Work::Coo, SpmmCsrMode::Rule, "cusparse_coo_alg1"},
    ModelKeyRow{"cusparse_sell_alg1", kSpmv, Work::Sell},
    // csr_param's kernel on fewer index bytes: its coefficients on CSR-C16's own byte count.
    ModelKeyRow{"csr_c16", kSpmv, Work::CsrC16, SpmmCsrMode::Rule, "csr_param"},
    // BSR: no fit yet; csr_vector's coefficients (a warp-wide group per row of work) on BSR's bytes.
    ModelKeyRow{"bsr", kSpmv, Work::Bsr, SpmmCsrMode::Rule, "csr_vector"},
    ModelKeyRow{"cusparse_bsr", kSpmv, Work::Bsr, SpmmCsrMode::Rule, "csr_vector"},
    // ELL's kernel per slice on fewer index bytes: ELL's coefficients on SELL-C16's own byte count.
    ModelKeyRow{"sell_c16", kSpmv, Work::SellC16, SpmmCsrMode::Rule, "ell"},
    // csr_param's kernel reading float values: its coefficients on the mixed format's bytes.
    ModelKeyRow{"csr_param_mixed", kSpmv, Work::CsrParam, SpmmCsrMode::Rule, "csr_param"},
    // SELL-C16's kernel reading values through a table: ELL's coefficients on its own bytes.
    ModelKeyRow{"sell_c16_dict", kSpmv, Work::SellC16, SpmmCsrMode::Rule, "ell"},
    // SELL-C16's kernel on the RCM-renumbered matrix: ELL's coefficients on its bytes and gathers.
    ModelKeyRow{"rcm_sell_c16", kSpmv, Work::RcmSellC16, SpmmCsrMode::Rule, "ell"},
    ModelKeyRow{"spmm_csr_row", kSpmm, Work::SpmmCsr},
    ModelKeyRow{"spmm_csr_split_row", kSpmm, Work::SpmmCsr, SpmmCsrMode::Split, "spmm_csr_row"},
    ModelKeyRow{"spmm_csr_tiled_row", kSpmm, Work::SpmmCsr, SpmmCsrMode::Tiled, "spmm_csr_row"},
    ModelKeyRow{"spmm_ellr_t_row", kSpmm, Work::SpmmEllrT},
    ModelKeyRow{kVendorSpmmBestKey, kSpmm, Work::VendorSpmmBest},
};

KernelRow mixed(KernelRow r) {
  r.rounds_values = true;
  return r;
}

// Has a 64-bit-offset path (WideDeviceCsr): a candidate past 2^31 - 1 nonzeros.
KernelRow offsets64(KernelRow r) {
  r.offsets64 = true;
  return r;
}

// The light plan's kernel (KernelRow::light_plan) and its rival on irregular rows.
KernelRow light_plan(KernelRow r) {
  r.light_plan = true;
  return r;
}
KernelRow light_rival(KernelRow r) {
  r.light_rival = true;
  return r;
}

KernelRow spx_row(const char* name, RuleRanks ranks, Operation op, DenseLayout layout, const char* format,
                  Determinism d, const char* key, SpxExecutor executor, Ladder ladder = Ladder::None,
                  SpmmCsrMode mode = SpmmCsrMode::Rule) {
  KernelRow r{name, ranks, op, layout, format, "spx", d, key};
  r.executor = executor;
  r.ladder = ladder;
  r.csr_mode = mode;
  return r;
}

KernelRow vendor_row(const char* name, RuleRanks ranks, Operation op, DenseLayout layout, const char* format,
                     Determinism d, VendorAlg alg, bool in_vendor_best = false) {
  KernelRow r{name, ranks, op, layout, format, "cuSPARSE", d, op == kSpmm ? kVendorSpmmBestKey : name};
  r.vendor = alg;
  r.in_vendor_best = in_vendor_best;
  r.needs_16_byte_rows = op == kSpmm && layout == kRow && alg == VendorAlg::CsrAlg3;
  // Every cuSPARSE CSR algorithm takes 64-bit indices (on 64-bit columns: the executor widens them).
  r.offsets64 = std::string_view(format) == "csr";
  return r;
}

// A cuSPARSE SpMM row: its rank in its layout's order and its typical time over the modelled best
// (L <= 16, L > 16).
KernelRow vendor_spmm_row(const char* name, int rank, DenseLayout layout, const char* format, Determinism d,
                          VendorAlg alg, std::array<double, 2> over_best, bool in_vendor_best = false) {
  KernelRow r = vendor_row(name, {.spmm = rank}, kSpmm, layout, format, d, alg, in_vendor_best);
  r.over_best_l8 = over_best[0];
  r.over_best_l32 = over_best[1];
  return r;
}

// cuSPARSE determinism (cusparseSpMV / cusparseSpMM notes): SpMV CSR ALG1 and COO ALG1 are not
// deterministic, CSR ALG2, COO ALG2 and SELL are; non-transposed SpMM is, except COO ALG1, whose
// deterministic sibling is ALG2. spx: the CSR SpMM adds long-row partials with atomics; csr_param's
// long rows and the segmented sum's long tails are summed by the last to arrive in a fixed chunk
// (warp) order, so repeated products are bitwise equal (tests/gpu/spmv_csr_test.cpp,
// spmv_segsum_test.cpp); COO's fast mode adds with atomics.
//
// Rule-mode ranks (RuleRanks, 1 first; SpMV rows {uniform, spread, irregular, long rows}, 0: left
// out of that class), from the H100 calibration suite alone (bench/results/h100/model/calibration-*:
// the fastest kernels per class of matrix, f32 and f64; docs/planner.md). Uniform rows: the padded
// formats read no indices they do not need; spread rows: ELLR-T and the CSR kernels; irregular rows:
// cuSPARSE's COO and CSR ALG1 and the segmented sum balance the nonzeros; long rows: the CSR kernels
// with many threads per row. BSR first in every class: it is a candidate only where its blocks save
// at least bsr_min_saving of CSR's matrix bytes (format_bsr.cpp), and these products are
// streaming-bound. CSR-C16 (csr_param's kernel on 16-bit columns, eligible only where it streams >=
// 10% fewer bytes) follows csr_param until a profile has timed it; SELL-C16 (ELL's kernel per 32-row
// slice on 16-bit columns: 17-25% fewer bytes a slot than SELL) follows ell, ahead of cuSPARSE's
// SELL, likewise. rcm_csr (eligible only where x is gathered poorly) comes after the CSR kernels:
// unmeasured, its gather and scatter may eat its gain on short rows, so the rule keeps the plain CSR.
// SpMM ({.spmm}, per layout): spx's kernels won 41 of the 52 calibration products at L = 8 and 32
// among row-major candidates; cuSPARSE's CSR ALG3 most of the rest (long rows, tiny matrices). The
// candidates added after that calibration (the CSR SpMM's forced modes, cuSPARSE CSR ALG1 and COO
// ALG1 row-major) come last until a calibration places them.
//
// cuSPARSE SpMM's over_best (L <= 16, L > 16), from the H100 calibration suite (52 products per L;
// the H200's agree within 5%): each algorithm's time over the fastest of the four cuSPARSE entries
// the model's best was fitted on. Algorithms that were not in the calibration runs (CSR ALG1 and
// COO ALG1 in both layouts, CSR ALG2 and ALG3 column-major): 1.5 until they are.
std::vector<KernelRow> make_catalogue() {
  using V = VendorAlg;
  std::vector<KernelRow> t = {
      light_plan(offsets64(spx_row("csr_param", {9, 3, 3, 4}, kSpmv, kRow, "csr", kAlways, "csr_param",
                                   SpxExecutor::CsrParam, Ladder::CsrParam))),
      spx_row("csr_vector", {15, 16, 12, 3}, kSpmv, kRow, "csr", kAlways, "csr_vector",
              SpxExecutor::CsrVector),
      spx_row("spmv_segsum", {13, 8, 7, 8}, kSpmv, kRow, "csr", kAlways, "spmv_segsum", SpxExecutor::Segsum,
              Ladder::Segsum),
      offsets64(spx_row("ell", {3, 11, 0, 15}, kSpmv, kRow, "ell", kAlways, "ell", SpxExecutor::Ell)),
      offsets64(spx_row("ellr_t", {8, 7, 0, 14}, kSpmv, kRow, "ellr", kAlways, "ellr_t", SpxExecutor::EllrT,
                        Ladder::EllrT)),
      spx_row("coo", {17, 17, 11, 12}, kSpmv, kRow, "coo", kAlways, "coo", SpxExecutor::Coo),
      spx_row("hyb", {7, 10, 10, 13}, kSpmv, kRow, "hyb", kAlways, "hyb", SpxExecutor::Hyb),
      // Escape rows' chunks are added in chunk order by the last to arrive: deterministic.
      spx_row("csr_c16", {10, 4, 4, 5}, kSpmv, kRow, "csrc16", kAlways, "csr_c16", SpxExecutor::CsrC16,
              Ladder::CsrParam),
      // csr_param on the RCM-renumbered matrix, between a gather of x and a scatter of y.
      spx_row("rcm_csr", {12, 6, 6, 7}, kSpmv, kRow, "rcm", kAlways, "rcm_csr", SpxExecutor::RcmCsr,
              Ladder::CsrParam),
      spx_row("bsr", {1, 1, 1, 1}, kSpmv, kRow, "bsr", kAlways, "bsr", SpxExecutor::Bsr),
      offsets64(spx_row("sell_c16", {5, 13, 0, 17}, kSpmv, kRow, "sellc16", kAlways, "sell_c16",
                        SpxExecutor::SellC16)),
      offsets64(spx_row("sell_c16_dict", {4, 12, 0, 16}, kSpmv, kRow, "sellc16d", kAlways, "sell_c16_dict",
                        SpxExecutor::SellC16Dict)),
      // SELL-C16 (with the value dictionary where <= 256 values) on the RCM-renumbered matrix, after
      // a gather of x, writing y through the permutation; sums in slot order.
      spx_row("rcm_sell_c16", {11, 5, 5, 6}, kSpmv, kRow, "rcmsell", kAlways, "rcm_sell_c16",
              SpxExecutor::RcmSellC16),
      // Opt-in only (Options::mixed_precision): float values, double x, y and sums.
      mixed(spx_row("csr_param_mixed", {}, kSpmv, kRow, "csrmixed", kAlways, "csr_param_mixed",
                    SpxExecutor::CsrParamMixed, Ladder::CsrParam)),
      light_rival(vendor_row("cusparse_csr_alg1", {14, 9, 8, 9}, kSpmv, kRow, "csr", kNever, V::CsrAlg1)),
      vendor_row("cusparse_csr_alg2", {18, 18, 9, 10}, kSpmv, kRow, "csr", kAlways, V::CsrAlg2),
      vendor_row("cusparse_coo_alg1", {16, 15, 2, 11}, kSpmv, kRow, "coo", kNever, V::CooAlg1),
      vendor_row("cusparse_coo_alg2", {19, 19, 13, 19}, kSpmv, kRow, "coo", kAlways, V::CooAlg2),
      vendor_row("cusparse_sell_alg1", {6, 14, 0, 18}, kSpmv, kRow, "sell", kAlways, V::SellAlg1),
      vendor_row("cusparse_bsr", {2, 2, 14, 2}, kSpmv, kRow, "bsr", kAlways, V::BsrAlg1),
      // SpMM, row-major B and C.
      offsets64(spx_row("spmm_csr_row", {.spmm = 1}, kSpmm, kRow, "csr", kLongRows, "spmm_csr_row",
                        SpxExecutor::SpmmCsr, Ladder::SpmmCsr)),
      offsets64(spx_row("spmm_csr_split_row", {.spmm = 6}, kSpmm, kRow, "csr", kLongRows,
                        "spmm_csr_split_row", SpxExecutor::SpmmCsr, Ladder::SpmmCsr, SpmmCsrMode::Split)),
      offsets64(spx_row("spmm_csr_tiled_row", {.spmm = 7}, kSpmm, kRow, "csr", kLongRows,
                        "spmm_csr_tiled_row", SpxExecutor::SpmmCsr, Ladder::SpmmCsr, SpmmCsrMode::Tiled)),
      offsets64(spx_row("spmm_ellr_t_row", {.spmm = 2}, kSpmm, kRow, "ellr", kAlways, "spmm_ellr_t_row",
                        SpxExecutor::SpmmEllrT, Ladder::SpmmEllrT)),
      vendor_spmm_row("cusparse_spmm_csr_alg1_row", 8, kRow, "csr", kAlways, V::CsrAlg1, {1.5, 1.5}),
      vendor_spmm_row("cusparse_spmm_csr_alg2_row", 4, kRow, "csr", kAlways, V::CsrAlg2, {2.207, 1.605},
                      true),
      vendor_spmm_row("cusparse_spmm_csr_alg3_row", 3, kRow, "csr", kAlways, V::CsrAlg3, {1.226, 1.117},
                      true),
      vendor_spmm_row("cusparse_spmm_coo_alg1_row", 9, kRow, "coo", kNever, V::CooAlg1, {1.5, 1.5}),
      vendor_spmm_row("cusparse_spmm_coo_alg4_row", 5, kRow, "coo", kAlways, V::CooAlg4, {1.972, 1.446},
                      true),
      // SpMM, column-major B and C (cuSPARSE COO ALG2 is left out: 6-8x slower than ALG1/ALG3 on
      // the H100, bench/cuda_spmm.cpp).
      offsets64(spx_row("spmm_csr_col", {.spmm = 1}, kSpmm, kCol, "csr", kLongRows, "spmm_csr_row",
                        SpxExecutor::SpmmCsr, Ladder::SpmmCsr)),
      offsets64(spx_row("spmm_ellr_t_col", {.spmm = 2}, kSpmm, kCol, "ellr", kAlways, "spmm_ellr_t_row",
                        SpxExecutor::SpmmEllrT, Ladder::SpmmEllrT)),
      vendor_spmm_row("cusparse_spmm_csr_alg1_col", 3, kCol, "csr", kAlways, V::CsrAlg1, {1.5, 1.5}),
      vendor_spmm_row("cusparse_spmm_csr_alg2_col", 5, kCol, "csr", kAlways, V::CsrAlg2, {1.5, 1.5}),
      vendor_spmm_row("cusparse_spmm_csr_alg3_col", 6, kCol, "csr", kAlways, V::CsrAlg3, {1.5, 1.5}),
      vendor_spmm_row("cusparse_spmm_coo_alg1_col", 7, kCol, "coo", kNever, V::CooAlg1, {1.5, 1.5}),
      vendor_spmm_row("cusparse_spmm_coo_alg3_col", 4, kCol, "coo", kAlways, V::CooAlg3, {1.783, 4.095},
                      true),
  };
  return t;
}

constexpr std::array kRuleOrders = {RuleOrder::SpmvUniform,   RuleOrder::SpmvSpread,
                                    RuleOrder::SpmvIrregular, RuleOrder::SpmvLongRows,
                                    RuleOrder::SpmmRowMajor,  RuleOrder::SpmmColMajor};

const char* order_name(RuleOrder order) {
  switch (order) {
    case RuleOrder::SpmvUniform:
      return "spmv_uniform";
    case RuleOrder::SpmvSpread:
      return "spmv_spread";
    case RuleOrder::SpmvIrregular:
      return "spmv_irregular";
    case RuleOrder::SpmvLongRows:
      return "spmv_long_rows";
    case RuleOrder::SpmmRowMajor:
      return "spmm_row_major";
    case RuleOrder::SpmmColMajor:
      return "spmm_col_major";
  }
  return "?";
}

// A row's rank in `order`; 0 where the row is not of that order's product.
int rank_in(const KernelRow& r, RuleOrder order) {
  switch (order) {
    case RuleOrder::SpmvUniform:
      return r.op == kSpmv ? r.ranks.uniform : 0;
    case RuleOrder::SpmvSpread:
      return r.op == kSpmv ? r.ranks.spread : 0;
    case RuleOrder::SpmvIrregular:
      return r.op == kSpmv ? r.ranks.irregular : 0;
    case RuleOrder::SpmvLongRows:
      return r.op == kSpmv ? r.ranks.long_rows : 0;
    case RuleOrder::SpmmRowMajor:
      return r.op == kSpmm && r.layout == kRow ? r.ranks.spmm : 0;
    case RuleOrder::SpmmColMajor:
      return r.op == kSpmm && r.layout == kCol ? r.ranks.spmm : 0;
  }
  return 0;
}

// The table's own consistency: unique names, model keys that exist for the row's operation, ranks
// that order, one light plan kernel.
std::vector<KernelRow> checked_catalogue() {
  std::vector<KernelRow> t = make_catalogue();
  for (std::size_t i = 0; i < t.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j)
      if (std::string_view(t[i].name) == t[j].name)
        throw Error(fmt::format("kernel catalogue: '{}' appears twice", t[i].name));
    if (find_format(t[i].format) == nullptr)
      throw Error(fmt::format("kernel catalogue: '{}' has no format row '{}' (plan/format_table.cpp)",
                              t[i].name, t[i].format));
    const ModelKeyRow* key = find_model_key(t[i].model_key);
    if (key == nullptr || key->op != t[i].op)
      throw Error(fmt::format("kernel catalogue: '{}' has no model key '{}'", t[i].name, t[i].model_key));
  }
  check_rule_ranks(t);
  for (const KernelRow& r : t)
    if ((r.over_best_l8 > 0 && r.over_best_l32 > 0) != (r.spmm() && r.vendor != VendorAlg::None))
      throw Error(
          fmt::format("kernel catalogue: '{}' needs its over_best ratios if and only if it is a "
                      "cuSPARSE SpMM row",
                      r.name));
  if (std::count_if(t.begin(), t.end(), [](const KernelRow& r) { return r.light_plan; }) != 1)
    throw Error("kernel catalogue: exactly one row must be the light plan's kernel");
  if (std::count_if(t.begin(), t.end(), [](const KernelRow& r) { return r.light_rival; }) > 1 ||
      std::any_of(t.begin(), t.end(), [](const KernelRow& r) { return r.light_rival && r.light_plan; }))
    throw Error(
        "kernel catalogue: at most one row may be the light plan's rival, not the light kernel itself");
  for (const ModelKeyRow& k : kModelKeys)
    if (k.borrows != nullptr && find_model_key(k.borrows) == nullptr)
      throw Error(fmt::format("kernel catalogue: model key '{}' borrows unknown '{}'", k.key, k.borrows));
  return t;
}

const char* op_name(Operation op, DenseLayout layout) {
  if (op == kSpmv) return "SpMV";
  return layout == kRow ? "row-major SpMM" : "column-major SpMM";
}

}  // namespace

std::span<const KernelRow> catalogue() {
  static const std::vector<KernelRow> t = checked_catalogue();
  return t;
}

std::span<const ModelKeyRow> model_keys() { return kModelKeys; }

std::vector<const KernelRow*> rows_for(Operation op, DenseLayout layout) {
  std::vector<const KernelRow*> out;
  for (const KernelRow& r : catalogue())
    if (r.op == op && (op == kSpmv || r.layout == layout)) out.push_back(&r);
  return out;
}

std::vector<std::string> catalogue_rule_order(RuleOrder order) {
  std::vector<const KernelRow*> rows;
  for (const KernelRow& r : catalogue())
    if (rank_in(r, order) > 0) rows.push_back(&r);
  std::sort(rows.begin(), rows.end(),
            [&](const KernelRow* a, const KernelRow* b) { return rank_in(*a, order) < rank_in(*b, order); });
  std::vector<std::string> names;
  for (const KernelRow* r : rows) names.emplace_back(r->name);
  return names;
}

void check_rule_ranks(std::span<const KernelRow> t) {
  for (const KernelRow& r : t) {
    const RuleRanks& k = r.ranks;
    if (std::min({k.uniform, k.spread, k.irregular, k.long_rows, k.spmm}) < 0)
      throw Error(fmt::format("kernel catalogue: '{}' has a negative rule rank", r.name));
    if (r.op == kSpmv ? k.spmm != 0 : (k.uniform | k.spread | k.irregular | k.long_rows) != 0)
      throw Error(fmt::format("kernel catalogue: '{}' is ranked in another product's rule order", r.name));
  }
  for (RuleOrder order : kRuleOrders)
    for (std::size_t i = 0; i < t.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (rank_in(t[i], order) != 0 && rank_in(t[i], order) == rank_in(t[j], order))
          throw Error(fmt::format("kernel catalogue: '{}' and '{}' share rank {} in rule order {}", t[j].name,
                                  t[i].name, rank_in(t[i], order), order_name(order)));
}

const KernelRow& light_plan_row() {
  for (const KernelRow& r : catalogue())
    if (r.light_plan) return r;
  throw Error("kernel catalogue: no row is the light plan's kernel");  // checked_catalogue refuses it
}

const KernelRow* light_rival_row() {
  for (const KernelRow& r : catalogue())
    if (r.light_rival) return &r;
  return nullptr;
}

const KernelRow& executor_row(SpxExecutor executor) {
  const KernelRow* found = nullptr;
  for (const KernelRow& r : catalogue()) {
    if (r.executor != executor) continue;
    if (found != nullptr)
      throw Error(fmt::format("kernel catalogue: '{}' and '{}' share an executor", found->name, r.name));
    found = &r;
  }
  if (found == nullptr) throw Error("kernel catalogue: no row has this executor");
  return *found;
}

const KernelRow* find_kernel(std::string_view name) {
  for (const KernelRow& r : catalogue())
    if (name == r.name) return &r;
  return nullptr;
}

const KernelRow& kernel_row(std::string_view name) {
  const KernelRow* r = find_kernel(name);
  if (r == nullptr) throw Error(fmt::format("unknown kernel '{}' (not in the kernel catalogue)", name));
  return *r;
}

const ModelKeyRow* find_model_key(std::string_view key) {
  for (const ModelKeyRow& k : kModelKeys)
    if (key == k.key) return &k;
  return nullptr;
}

void check_kernel_names(const std::vector<std::string>& names, Operation op, DenseLayout layout,
                        const std::string& where) {
  for (const std::string& n : names) {
    const KernelRow* r = find_kernel(n);
    if (r == nullptr)
      throw Error(fmt::format("{}: unknown kernel '{}' (not in the kernel catalogue)", where, n));
    if (r->op != op || (op == kSpmm && r->layout != layout))
      throw Error(fmt::format("{}: '{}' is a {} kernel, not {}", where, n, op_name(r->op, r->layout),
                              op_name(op, layout)));
  }
}

void check_model_key(std::string_view key, const std::string& where) {
  if (find_model_key(key) == nullptr)
    throw Error(fmt::format("{}: unknown model kernel '{}' (not in the kernel catalogue)", where, key));
}

void check_planner_table(const PlannerRuleTable& t) {
  check_kernel_names(t.spmv_uniform, kSpmv, kRow, "planner rule order spmv_uniform");
  check_kernel_names(t.spmv_spread, kSpmv, kRow, "planner rule order spmv_spread");
  check_kernel_names(t.spmv_irregular, kSpmv, kRow, "planner rule order spmv_irregular");
  check_kernel_names(t.spmv_long_rows, kSpmv, kRow, "planner rule order spmv_long_rows");
  check_kernel_names(t.spmm_row_major, kSpmm, kRow, "planner rule order spmm_row_major");
  check_kernel_names(t.spmm_col_major, kSpmm, kCol, "planner rule order spmm_col_major");
  check_kernel_names({t.auto_light_kernel}, kSpmv, kRow, "planner auto_light_kernel");
  if (!t.auto_light_rival.empty())
    check_kernel_names({t.auto_light_rival}, kSpmv, kRow, "planner auto_light_rival");
  for (const std::string& light : {t.auto_light_kernel, t.auto_light_rival})
    if (!light.empty() && std::string_view(kernel_row(light).format) != "csr")
      throw Error(fmt::format(
          "planner auto_light_kernel/rival: '{}' converts the matrix; a light plan runs on the CSR", light));
  for (const auto& r : t.vendor_spmm_over_best) {
    const KernelRow* row = find_kernel(r.kernel);
    if (row == nullptr || row->op != kSpmm || std::string_view(row->owner) != "cuSPARSE")
      throw Error(fmt::format(
          "planner vendor_spmm_over_best: '{}' is not a cuSPARSE SpMM kernel of the catalogue", r.kernel));
  }
  for (const KernelRow& row : catalogue()) {
    if (row.op != kSpmm || std::string_view(row.owner) != "cuSPARSE") continue;
    const auto n = std::count_if(t.vendor_spmm_over_best.begin(), t.vendor_spmm_over_best.end(),
                                 [&](const auto& r) { return r.kernel == row.name; });
    if (n != 1)
      throw Error(fmt::format("planner vendor_spmm_over_best: {} ratios for '{}' (one needed)", n, row.name));
  }
}

bool deterministic(const KernelRow& row, const MatrixStats& s, int64_t long_row_threshold) {
  switch (row.determinism) {
    case Determinism::Always:
      return true;
    case Determinism::Never:
      return false;
    case Determinism::UnlessLongRows:
      return s.max_row <= long_row_threshold;
  }
  return false;
}

cuda::SpmmCsrParams spmm_csr_config(SpmmCsrMode mode, const MatrixStats& s, int64_t dense_cols,
                                    const cuda::DeviceProps& props, int value_bytes) {
  cuda::SpmmCsrParams c = spmm_csr_rule(s, dense_cols, props, value_bytes);
  if (mode == SpmmCsrMode::Split) c.tile_items = 0;
  if (mode == SpmmCsrMode::Tiled) c.tile_items = spmm_csr_tile_items(s, props);
  return c;
}

}  // namespace spx::plan
