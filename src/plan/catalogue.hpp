// The kernel catalogue: one row per planner candidate, the single place a kernel's name is written
// down outside its own files. The planner's candidate lists, the rule mode's orders (each row's
// RuleRanks), the light plan's kernel, the tuner's ladders, the model's kernel list and work terms,
// the executor factory (src/cuda/plan/executor.cpp, keyed by row), the every-candidate tests and the
// benchmark's entry names and the vendor SpMM ratios are read from this table; the model profiles
// are checked against it when they are loaded (an unknown name is an spx::Error naming it). Adding a kernel:
// its kernel files, one row here (its ranks included), one factory row on the CUDA side, its tests
// (docs/ARCHITECTURE.md, "Adding a kernel").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spx/cuda/kernel_params.hpp"
#include "spx/plan.hpp"
#include "spx/stats.hpp"

namespace spx::cuda {
struct DeviceProps;
}  // namespace spx::cuda

namespace spx::plan {

struct PlannerRuleTable;

// Whether a kernel's result is bitwise reproducible run to run, as a function of the matrix.
enum class Determinism {
  Always,
  Never,           // atomics or arrival-order sums on every matrix
  UnlessLongRows,  // atomics only on rows past the kernel's long-row threshold
};

// The run-time tuner's knobs of a kernel (plan/tuner.hpp turns these into ladders).
enum class Ladder { None, CsrParam, EllrT, Segsum, SpmmCsr, SpmmEllrT };

// What the model counts for a kernel (model_terms.cpp): the bytes it moves, its serial walk, its
// grid, its extra launches.
enum class Work {
  CsrParam,        // the parametrised CSR kernel under its rule (coop lanes per row)
  CsrWarpPerRow,   // a warp per row (csr_vector, cuSPARSE CSR ALG1)
  CsrBalanced,     // nonzero-balanced CSR (cuSPARSE CSR ALG2)
  CsrC16,          // csr_param's kernel over 16-bit column offsets (CSR-C16): 2 index bytes a nonzero
  Segsum,          // the segmented sum (tiles of nonzeros, a synchronizer)
  Coo,             // COO, a warp per chunk of nonzeros
  Ell,             // ELL, a thread per row over the padded width
  EllrT,           // ELLR-T under its rule
  Hyb,             // ELL part + COO tail
  Sell,            // SELL-32 slots
  RcmCsr,          // CsrParam on the RCM-renumbered matrix (x gathers as estimated after RCM), plus
                   // the gather of x and the scatter of y through the permutation
  Bsr,             // BSR blocks (their bytes from the planner's block counts), spx's or cuSPARSE's
  SellC16,         // SELL-32 slots over 16-bit column offsets (SELL-C16): 2 index bytes a slot
  RcmSellC16,      // SellC16 (or its value dictionary) on the RCM-renumbered matrix (x gathers as
                   // estimated after RCM), plus the gather of x and y written through the permutation
  SpmmCsr,         // the CSR SpMM under its rule, row-split or tiled as the row's SpmmCsrMode says
  SpmmEllrT,       // the ELLR-T SpMM under its rule
  VendorSpmmBest,  // cuSPARSE's best SpMM algorithm (one prediction, scaled per algorithm)
};

// The model key of cuSPARSE's SpMM: the fastest of the in_vendor_best algorithms per problem (the
// model fits it from the calibration's cuSPARSE SpMM entries, bench/model_data.cpp).
inline constexpr const char* kVendorSpmmBestKey = "cusparse_spmm_best";

// The CSR SpMM's mode: as its rule decides, or one of its two modes forced.
enum class SpmmCsrMode { Rule, Split, Tiled };

// A key of the performance model: the name its fits carry in a profile. A key without fitted
// coefficients in a profile uses those of `borrows` (a declared sibling with the same terms'
// meaning) with its own work terms, until a profile fits it.
struct ModelKeyRow {
  const char* key;
  Operation op;
  Work work;
  SpmmCsrMode csr_mode = SpmmCsrMode::Rule;  // Work::SpmmCsr only
  const char* borrows = nullptr;
};

// The spx executor that builds a row (src/cuda/plan/executor.cpp switches on it, so a row's kernel
// name is written only in its catalogue row); None for cuSPARSE rows, built from their VendorAlg.
enum class SpxExecutor {
  None,
  CsrParam,
  CsrVector,
  CsrC16,
  Segsum,
  Ell,
  SellC16,
  SellC16Dict,
  EllrT,
  Coo,
  Hyb,
  RcmCsr,
  RcmSellC16,
  Bsr,
  CsrParamMixed,
  SpmmCsr,
  SpmmEllrT
};

// The cuSPARSE algorithm a vendor row runs (the executor maps it to the API's enum).
enum class VendorAlg {
  None,
  CsrAlg1,
  CsrAlg2,
  CsrAlg3,
  CooAlg1,
  CooAlg2,
  CooAlg3,
  CooAlg4,
  SellAlg1,
  BsrAlg1
};

// The rule mode's orders of preference: PlannerRuleTable's spmv_* lists (one per class of matrix)
// and spmm_* lists (one per layout), made by catalogue_rule_order from the rows' RuleRanks.
enum class RuleOrder { SpmvUniform, SpmvSpread, SpmvIrregular, SpmvLongRows, SpmmRowMajor, SpmmColMajor };

// A row's places in the rule mode's orders, 1 first; 0: left out of that order (the planner ranks
// it after every kernel the order lists). SpMV rows have one per class of matrix, SpMM rows `spmm`
// in the order of their layout. Why each class is ordered so: catalogue.cpp, above the rows.
struct RuleRanks {
  int uniform = 0, spread = 0, irregular = 0, long_rows = 0;  // SpMV
  int spmm = 0;                                               // SpMM
};

struct KernelRow {
  const char* name;  // the candidate's name: plan reports, options' patterns, the tuning cache
  RuleRanks ranks;   // places in the rule mode's orders
  Operation op;
  DenseLayout layout;  // SpMM's B and C (SpMV rows: RowMajor, unused)
  const char* format;  // csr, ell, ellr, coo, hyb, sell, csrc16, sellc16, rcm, rcmsell, bsr
  const char* owner;   // "spx" or "cuSPARSE"
  Determinism determinism;
  const char* model_key;                     // a ModelKeyRow's key
  SpxExecutor executor = SpxExecutor::None;  // spx rows
  Ladder ladder = Ladder::None;
  VendorAlg vendor = VendorAlg::None;
  SpmmCsrMode csr_mode = SpmmCsrMode::Rule;  // the CSR SpMM rows
  // Row-major B and C whose rows must start on 16-byte boundaries (cuSPARSE CSR ALG3 faults
  // otherwise, docs/cuda-runtime.md): L x value bytes must be a multiple of 16.
  bool needs_16_byte_rows = false;
  // cuSPARSE SpMM: one of the algorithms whose fastest per problem the model fits as
  // cusparse_spmm_best (the entries the calibration runs; the planner's ratios are to that best).
  bool in_vendor_best = false;
  // cuSPARSE SpMM: this algorithm's time over that modelled best, typically (L <= 16, L > 16):
  // PlannerRuleTable::vendor_spmm_over_best is made from it. 0 on every other row.
  double over_best_l8 = 0.0, over_best_l32 = 0.0;
  // Rounds the matrix's values (mixed precision): a candidate only where Options::mixed_precision
  // allows it, never by default.
  bool rounds_values = false;
  // Runs on 64-bit row offsets (WideDeviceCsr): a candidate for matrices past 2^31 - 1 nonzeros
  // (Problem::offset_bits == 64). cuSPARSE's rows run there on a copy of the columns widened to 64
  // bits (it takes no 64-bit offsets over 32-bit columns): 8 more bytes a nonzero of device memory.
  bool offsets64 = false;
  const char* bench_entry = nullptr;  // the benchmark registry's entry that times it; null: `name`
  // Mode::Auto's light plan runs this kernel by its fixed rule (PlannerRuleTable::auto_light_kernel
  // is set from it): exactly one row, an SpMV on the CSR as it is.
  bool light_plan = false;
  // Raced against the light plan's kernel on irregular rows (PlannerRuleTable::auto_light_rival is
  // set from it): at most one row, an SpMV on the CSR as it is.
  bool light_rival = false;

  std::string_view bench_name() const { return bench_entry != nullptr ? bench_entry : name; }
  bool spmm() const { return op == Operation::Spmm; }
};

std::span<const KernelRow> catalogue();
std::span<const ModelKeyRow> model_keys();

// The rows of one product (SpMV, or SpMM in one layout), in catalogue order.
std::vector<const KernelRow*> rows_for(Operation op, DenseLayout layout);

// The kernels of one rule order, sorted by their rank in it (rows ranked 0 left out).
std::vector<std::string> catalogue_rule_order(RuleOrder order);
// Ranks that order (checked when the catalogue is made): none negative, none shared within an
// order, none in an order of the other product; an spx::Error naming the row.
void check_rule_ranks(std::span<const KernelRow> rows);
// The one row flagged light_plan; the row flagged light_rival (null when none).
const KernelRow& light_plan_row();
const KernelRow* light_rival_row();
// The one row that `executor` builds (spx::Error unless exactly one): for code that runs a kernel
// outside the planner and reports it under its catalogue name (CG's csr_param operator).
const KernelRow& executor_row(SpxExecutor executor);

const KernelRow* find_kernel(std::string_view name);      // null when unknown
const KernelRow& kernel_row(std::string_view name);       // spx::Error naming an unknown kernel
const ModelKeyRow* find_model_key(std::string_view key);  // null when unknown

// Checks that every name of `names` is a candidate of `op` (and of `layout` for SpMM): an
// spx::Error naming the first unknown one and `where` it was read ("rule order spmv_uniform").
void check_kernel_names(const std::vector<std::string>& names, Operation op, DenseLayout layout,
                        const std::string& where);
// An spx::Error naming `key` and `where` unless it is a model key of the catalogue.
void check_model_key(std::string_view key, const std::string& where);

// The planner's rule table against the catalogue: every name of its rule orders is a candidate of
// that order's product, and every cuSPARSE SpMM row has exactly one ratio to the modelled best.
// rule_tables.cpp calls it when the default tables are made.
void check_planner_table(const PlannerRuleTable& t);

bool deterministic(const KernelRow& row, const MatrixStats& s, int64_t long_row_threshold);

// The CSR SpMM's configuration in a row's mode: the rule's, then the mode forced (Split: no tiles;
// Tiled: spmm_csr_tile_items). The executor, the model and the benchmark's forced entries call it.
cuda::SpmmCsrParams spmm_csr_config(SpmmCsrMode mode, const MatrixStats& s, int64_t dense_cols,
                                    const cuda::DeviceProps& props, int value_bytes);

}  // namespace spx::plan
