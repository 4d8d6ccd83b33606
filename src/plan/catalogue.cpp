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
    ModelKeyRow{"cusparse_spmm_best", kSpmm, Work::VendorSpmmBest},
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

KernelRow spx_row(const char* name, Operation op, DenseLayout layout, const char* format, Determinism d,
                  const char* key, SpxExecutor executor, Ladder ladder = Ladder::None,
                  SpmmCsrMode mode = SpmmCsrMode::Rule) {
  KernelRow r{name, op, layout, format, "spx", d, key};
  r.executor = executor;
  r.ladder = ladder;
  r.csr_mode = mode;
  return r;
}

KernelRow vendor_row(const char* name, Operation op, DenseLayout layout, const char* format, Determinism d,
                     VendorAlg alg, bool in_vendor_best = false) {
  KernelRow r{name, op, layout, format, "cuSPARSE", d, op == kSpmm ? "cusparse_spmm_best" : name};
  r.vendor = alg;
  r.in_vendor_best = in_vendor_best;
  r.needs_16_byte_rows = op == kSpmm && layout == kRow && alg == VendorAlg::CsrAlg3;
  // Every cuSPARSE CSR algorithm takes 64-bit indices (on 64-bit columns: the executor widens them).
  r.offsets64 = std::string_view(format) == "csr";
  return r;
}

// cuSPARSE determinism (cusparseSpMV / cusparseSpMM notes): SpMV CSR ALG1 and COO ALG1 are not
// deterministic, CSR ALG2, COO ALG2 and SELL are; non-transposed SpMM is, except COO ALG1, whose
// deterministic sibling is ALG2. spx: the CSR SpMM adds long-row partials with atomics; csr_param's
// long rows and the segmented sum's long tails are summed by the last to arrive in a fixed chunk
// (warp) order, so repeated products are bitwise equal (tests/gpu/spmv_csr_test.cpp,
// spmv_segsum_test.cpp); COO's fast mode adds with atomics.
std::vector<KernelRow> make_catalogue() {
  using V = VendorAlg;
  std::vector<KernelRow> t = {
      offsets64(spx_row("csr_param", kSpmv, kRow, "csr", kAlways, "csr_param", SpxExecutor::CsrParam,
                        Ladder::CsrParam)),
      spx_row("csr_vector", kSpmv, kRow, "csr", kAlways, "csr_vector", SpxExecutor::CsrVector),
      spx_row("spmv_segsum", kSpmv, kRow, "csr", kAlways, "spmv_segsum", SpxExecutor::Segsum, Ladder::Segsum),
      offsets64(spx_row("ell", kSpmv, kRow, "ell", kAlways, "ell", SpxExecutor::Ell)),
      offsets64(spx_row("ellr_t", kSpmv, kRow, "ellr", kAlways, "ellr_t", SpxExecutor::EllrT, Ladder::EllrT)),
      spx_row("coo", kSpmv, kRow, "coo", kAlways, "coo", SpxExecutor::Coo),
      spx_row("hyb", kSpmv, kRow, "hyb", kAlways, "hyb", SpxExecutor::Hyb),
      // Escape rows' chunks are added in chunk order by the last to arrive: deterministic.
      spx_row("csr_c16", kSpmv, kRow, "csrc16", kAlways, "csr_c16", SpxExecutor::CsrC16, Ladder::CsrParam),
      // csr_param on the RCM-renumbered matrix, between a gather of x and a scatter of y.
      spx_row("rcm_csr", kSpmv, kRow, "rcm", kAlways, "rcm_csr", SpxExecutor::RcmCsr, Ladder::CsrParam),
      spx_row("bsr", kSpmv, kRow, "bsr", kAlways, "bsr", SpxExecutor::Bsr),
      offsets64(spx_row("sell_c16", kSpmv, kRow, "sellc16", kAlways, "sell_c16", SpxExecutor::SellC16)),
      offsets64(spx_row("sell_c16_dict", kSpmv, kRow, "sellc16d", kAlways, "sell_c16_dict",
                        SpxExecutor::SellC16Dict)),
      // SELL-C16 (with the value dictionary where <= 256 values) on the RCM-renumbered matrix, after
      // a gather of x, writing y through the permutation; sums in slot order.
      spx_row("rcm_sell_c16", kSpmv, kRow, "rcmsell", kAlways, "rcm_sell_c16", SpxExecutor::RcmSellC16),
      // Opt-in only (Options::mixed_precision): float values, double x, y and sums.
      mixed(spx_row("csr_param_mixed", kSpmv, kRow, "csrmixed", kAlways, "csr_param_mixed",
                    SpxExecutor::CsrParamMixed, Ladder::CsrParam)),
      vendor_row("cusparse_csr_alg1", kSpmv, kRow, "csr", kNever, V::CsrAlg1),
      vendor_row("cusparse_csr_alg2", kSpmv, kRow, "csr", kAlways, V::CsrAlg2),
      vendor_row("cusparse_coo_alg1", kSpmv, kRow, "coo", kNever, V::CooAlg1),
      vendor_row("cusparse_coo_alg2", kSpmv, kRow, "coo", kAlways, V::CooAlg2),
      vendor_row("cusparse_sell_alg1", kSpmv, kRow, "sell", kAlways, V::SellAlg1),
      vendor_row("cusparse_bsr", kSpmv, kRow, "bsr", kAlways, V::BsrAlg1),
      // SpMM, row-major B and C.
      offsets64(spx_row("spmm_csr_row", kSpmm, kRow, "csr", kLongRows, "spmm_csr_row", SpxExecutor::SpmmCsr,
                        Ladder::SpmmCsr)),
      offsets64(spx_row("spmm_csr_split_row", kSpmm, kRow, "csr", kLongRows, "spmm_csr_split_row",
                        SpxExecutor::SpmmCsr, Ladder::SpmmCsr, SpmmCsrMode::Split)),
      offsets64(spx_row("spmm_csr_tiled_row", kSpmm, kRow, "csr", kLongRows, "spmm_csr_tiled_row",
                        SpxExecutor::SpmmCsr, Ladder::SpmmCsr, SpmmCsrMode::Tiled)),
      offsets64(spx_row("spmm_ellr_t_row", kSpmm, kRow, "ellr", kAlways, "spmm_ellr_t_row",
                        SpxExecutor::SpmmEllrT, Ladder::SpmmEllrT)),
      vendor_row("cusparse_spmm_csr_alg1_row", kSpmm, kRow, "csr", kAlways, V::CsrAlg1),
      vendor_row("cusparse_spmm_csr_alg2_row", kSpmm, kRow, "csr", kAlways, V::CsrAlg2, true),
      vendor_row("cusparse_spmm_csr_alg3_row", kSpmm, kRow, "csr", kAlways, V::CsrAlg3, true),
      vendor_row("cusparse_spmm_coo_alg1_row", kSpmm, kRow, "coo", kNever, V::CooAlg1),
      vendor_row("cusparse_spmm_coo_alg4_row", kSpmm, kRow, "coo", kAlways, V::CooAlg4, true),
      // SpMM, column-major B and C (cuSPARSE COO ALG2 is left out: 6-8x slower than ALG1/ALG3 on
      // the H100, bench/cuda_spmm.cpp).
      offsets64(spx_row("spmm_csr_col", kSpmm, kCol, "csr", kLongRows, "spmm_csr_row", SpxExecutor::SpmmCsr,
                        Ladder::SpmmCsr)),
      offsets64(spx_row("spmm_ellr_t_col", kSpmm, kCol, "ellr", kAlways, "spmm_ellr_t_row",
                        SpxExecutor::SpmmEllrT, Ladder::SpmmEllrT)),
      vendor_row("cusparse_spmm_csr_alg1_col", kSpmm, kCol, "csr", kAlways, V::CsrAlg1),
      vendor_row("cusparse_spmm_csr_alg2_col", kSpmm, kCol, "csr", kAlways, V::CsrAlg2),
      vendor_row("cusparse_spmm_csr_alg3_col", kSpmm, kCol, "csr", kAlways, V::CsrAlg3),
      vendor_row("cusparse_spmm_coo_alg1_col", kSpmm, kCol, "coo", kNever, V::CooAlg1),
      vendor_row("cusparse_spmm_coo_alg3_col", kSpmm, kCol, "coo", kAlways, V::CooAlg3, true),
  };
  return t;
}

// The table's own consistency: unique names, model keys that exist for the row's operation.
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
