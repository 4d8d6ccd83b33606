// The planner's host side: the candidates a sparse product can run with (spx's kernels and
// cuSPARSE's), how they are ranked (a constant-time rule, or the performance model), setup
// amortised over the expected number of calls, and the plan report a user reads (`explain()`).
//
// The planner never launches anything: the device side (spx/cuda/sparse_matrix.hpp) builds the
// chosen candidate, times the top ones in `measure` and `tune` modes, and runs the plan. Everything
// here is host code, so the rule and model modes are tested in CI on committed statistics.
// docs/planner.md has the design and the numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spx/bsr.hpp"
#include "spx/column_spans.hpp"
#include "spx/features.hpp"
#include "spx/matrix.hpp"
#include "spx/model.hpp"
#include "spx/reorder.hpp"
#include "spx/stats.hpp"

namespace spx::plan {

enum class Mode {
  Rule,     ///< constant time: statistics only (the kernels' fixed rules and the format rule)
  Model,    ///< the performance model's prediction (a device profile; falls back to Rule without one)
  Measure,  ///< the model's top candidates timed once at plan time, the fastest kept
  Tune,     ///< Measure, then the run-time tuner: neighbouring parameters tried on real calls
  /// Model or Measure, decided per problem by the value of timing: the model's predicted gap between
  /// its top candidates against its known error, over the expected calls, against the cost of timing
  /// (decide_auto; explain() says which and why).
  Auto,
};
const char* to_string(Mode m);
Mode mode_from_string(const std::string& s);  ///< "rule", "model", "measure", "tune", "auto"; else spx::Error

enum class Operation { Spmv, Spmm };

/// The width of a device matrix's row offsets (and so of its nonzero count). Auto: 32 bits where
/// the matrix fits them (4 bytes less a row, and every candidate runs), 64 where it must (more than
/// 2^31 - 1 nonzeros). Bits64 forces the 64-bit path on any matrix (tests, a matrix about to grow).
/// Column indices stay 32-bit either way: rows and columns must be below 2^31.
enum class IndexWidth { Auto, Bits32, Bits64 };
std::string to_string(IndexWidth w);               ///< "auto", "32", "64"
IndexWidth parse_index_width(std::string_view s);  ///< the same words; spx::Error naming the others
/// The offsets' width (32 or 64) a rows x cols matrix of nnz nonzeros gets under `w`; spx::Error
/// with the numbers when it cannot be held (Bits32 past 2^31 - 1 nonzeros, or rows or columns past
/// 2^31 - 1, which need 64-bit column indices the GPU path does not have).
int offset_bits(IndexWidth w, int64_t rows, int64_t cols, int64_t nnz);
/// Why a kernel without a 64-bit path does not run on a matrix of nnz nonzeros held with 64-bit
/// offsets (the planner's and the benchmark's one wording).
std::string offsets32_only_reason(int64_t nnz);
using DenseLayout = spx::Layout;  ///< SpMM's B and C: the dense matrices' one layout enum

struct Options {
  Mode mode = Mode::Auto;
  /// Products the caller expects to run with this plan: a candidate's setup (conversion,
  /// preprocessing) counts setup / expected_calls per call (Reguly & Giles §7, Fig. 16).
  int64_t expected_calls = 100;
  bool deterministic_only = false;  ///< only candidates whose result is bitwise reproducible
  /// Allow candidates that round a double matrix's values to float (csr_param_mixed: x, y and sums
  /// stay double; error bound in spx/mixed_precision.hpp). Never on by default.
  bool mixed_precision = false;
  /// Device memory a plan may add beyond the matrix's CSR (converted formats, workspaces, plans);
  /// 0: no limit beyond the memory the device has free.
  std::size_t memory_budget_bytes = 0;
  std::vector<std::string> kernels;  ///< allowed candidates: names or patterns ("cusparse_*"); empty: all
  /// Allowed formats: csr, ell, ellr, coo, hyb, sell, csrc16, sellc16, sellc16d, rcm, bsr, csrmixed;
  /// empty: all.
  std::vector<std::string> formats;
  bool vendor = true;   ///< include cuSPARSE's candidates
  int measure_top = 4;  ///< Measure / Tune: how many of the ranked candidates are timed
  /// Tune: at most this many products time a configuration (the planned one included), then the
  /// plan freezes at the fastest (the paper reached 98% of the exhaustive optimum after 8).
  int tune_calls = 8;
  /// Tuning cache file: "" reads $SPX_TUNING_CACHE (none when unset), "-" none. A plan found there
  /// for the same structure, device, precision, operation and L is taken without planning.
  std::string tuning_cache;
  /// Reuse the plan another matrix of the same structure made (its report): its kernel and knobs are
  /// built without planning. A report of another structure (fingerprint), device, precision,
  /// operation, L or layout is refused with an spx::Error saying which differs.
  const struct Report* reuse = nullptr;
};

/// One product to plan for.
struct Problem {
  Operation op = Operation::Spmv;
  int64_t cols_dense = 0;  ///< L for SpMM (0 for SpMV)
  DenseLayout layout = DenseLayout::RowMajor;
  int value_bytes = 8;  ///< 4 (f32) or 8 (f64)
  MatrixStats stats;
  std::optional<MatrixFeatures> features;  ///< needed by Mode::Model and above
  /// The rows' column spans (O(rows) from the host CSR): CSR-C16's and SELL-C16's eligibility;
  /// without them neither is a candidate.
  std::optional<ColumnSpanStats> column_spans;
  /// x's locality, sampled from the host CSR (square SpMV only): rcm_csr is eligible only where it
  /// says x is gathered poorly (spx/reorder.hpp).
  std::optional<reorder::Locality> locality;
  /// Block counts per block size (bsr_block_counts, sampled): BSR's eligibility and bytes; without
  /// them BSR is not a candidate.
  std::optional<BsrBlockCounts> bsr_blocks;
  /// Distinct values (bitwise), counted up to 256 (257: more; distinct_values_upto): SELL-C16 with a
  /// value dictionary's eligibility; without it that format is not a candidate.
  std::optional<int64_t> distinct_values;
  /// The device matrix's row offsets: 64 makes every candidate without a 64-bit path ineligible.
  int offset_bits = 32;
};

/// What the planner reads from the host CSR besides its statistics, for the formats' eligibility:
/// the rows' column spans; x's locality (square SpMV); the block counts and the distinct values
/// (SpMV; the latter only where no row is wider than 16-bit offsets). The front door and `spx plan
/// show` fill a Problem through the same function, so offline plans match the device's.
struct HostExtras {
  std::optional<ColumnSpanStats> column_spans;
  std::optional<reorder::Locality> locality;
  std::optional<BsrBlockCounts> bsr_blocks;
  std::optional<int64_t> distinct_values;
  /// Where distinct_values <= 256: those values' bit patterns (the value type's width, zero-extended)
  /// in order of first appearance, the SELL-C16-dict table the conversion then takes as it is.
  std::vector<uint64_t> value_table_bits;
};
/// Computes what p's operation needs that `extras` does not hold yet (so a matrix planned again pays
/// nothing), then copies it into p. Sampled to a budget of nonzeros (below a millisecond on 16 cores
/// whatever the size); the front door times it as Report::extras_us.
template <class T>
void fill_host_extras(const Csr<T, int32_t>& A, HostExtras& extras, Problem& p);
/// extras.distinct_values (counting stops at the 257th; a sample of a large matrix's values,
/// distinct_values_first_sampled) and, where at most 256, value_table_bits, from the matrix's values
/// (once: nothing when already counted). Part of fill_host_extras; the
/// front door's 64-bit matrix calls it alone, before its host copy goes.
template <class T>
void count_distinct_values(std::span<const T> values, HostExtras& extras);

/// One candidate, as explain() lists it.
struct Candidate {
  std::string kernel;  ///< the benchmark registry's name: csr_param, ellr_t, cusparse_csr_alg2, ...
  std::string owner;   ///< "spx" or "cuSPARSE"
  std::string format;  ///< csr, ell, ellr, coo, hyb, sell
  bool deterministic = true;
  bool eligible = true;
  std::string why_not;  ///< when not eligible
  std::string params;   ///< the configuration it runs with, when known ("coop=8 block=256")
  /// Knobs the tuner set (replacing the kernel's rule), by name: csr_param's coop, block_size,
  /// repeat; ELLR-T's threads_per_row, block_size; the CSR SpMM's threads_per_row, cols_per_pass.
  std::vector<std::pair<std::string, int64_t>> knobs;
  std::size_t extra_bytes = 0;  ///< device memory beyond the CSR (estimate, then measured when built)
  double setup_us = 0;          ///< conversion + preprocessing: estimate, then measured when built
  double rule_rank = 0;         ///< Mode::Rule: lower is better
  double predicted_us = std::numeric_limits<double>::quiet_NaN();
  double measured_us = std::numeric_limits<double>::quiet_NaN();
  /// The model's known relative error for this kernel (its fit's mean on the calibration samples);
  /// NaN without a prediction.
  double model_error = std::numeric_limits<double>::quiet_NaN();
  /// What the choice minimises: (measured, else predicted, else rule) per call + setup / calls.
  double score = std::numeric_limits<double>::infinity();
};

struct Report {
  Problem problem;  ///< features dropped after planning (they are large)
  Mode mode = Mode::Model;
  std::string decided_by;   ///< "rule", "model", "measured", "racing", "raced", "tuned", "cache", "light"
  std::string auto_reason;  ///< Mode::Auto: why it ranked by the model or timed the top candidates
  std::string device;
  std::string profile;  ///< the model profile's device name, or "" when none was used
  int64_t expected_calls = 0;
  std::vector<Candidate> candidates;  ///< ranked best first; ineligible ones last
  std::size_t chosen = 0;             ///< index into candidates
  double planning_us = 0;             ///< host wall time of planning (features, ranking, timing)
  double features_us = 0;             ///< of which computing the features
  /// of which the formats' host-side inputs (locality, BSR block counts, distinct values), computed
  /// once per matrix by its first plan that ranks (a light plan needs none)
  double extras_us = 0;
  double setup_us = 0;  ///< building the chosen candidate
  /// Products timed on real calls: Mode::Tune's trials, or Mode::Auto's race (decided_by "racing"
  /// until it ends, then "raced").
  int64_t tuner_calls = 0;
  bool frozen = true;  ///< false while a tuner or a race still times calls

  const Candidate& winner() const { return candidates.at(chosen); }
  /// Candidates, predicted and measured µs, setup, memory, and why the winner won, for people.
  std::string explain() const;
};

/// The candidate list of a problem, each marked eligible or not (padding limits, layout, options,
/// memory budget against `free_bytes`), with setup and memory estimates, unranked.
std::vector<Candidate> candidates(const Problem& p, const Options& o, const model::DeviceBasics& device,
                                  std::size_t free_bytes);

/// Why none of `cands` can run, for an error message: the reasons of the (up to three) candidates
/// the options allowed ("ell: padding 536 ..."), else the options' own refusal (no allowed kernel).
std::string why_none(const std::vector<Candidate>& cands);

/// Ranks `cands` in place, best first, by mode (Rule: the format rule; Model: the profile's
/// prediction, candidates it has no fit for after those it has). Sets score, predicted_us.
/// `profile` may be null: Model then ranks as Rule.
void rank(std::vector<Candidate>& cands, const Problem& p, const Options& o, const model::Profile* profile);

/// Mode::Auto's choice for a problem ranked by the model (rank()): time the top `time_top`
/// candidates (measure) or take the model's ranking. Pure: tested on synthetic candidates.
struct AutoDecision {
  bool measure = false;  ///< time the top `time_top` at plan time (scratch operands, 2 ms each)
  bool race = false;     ///< or race them on the caller's first calls (`race_samples` timed calls each)
  int time_top = 0;
  int race_samples = 0;
  std::string why;
};
/// Contenders: eligible candidates whose optimistic score (predicted × (1 − error)) beats the top
/// one's pessimistic score (× (1 + error)), at most `measure_top`. Timing pays when the expected
/// saving — the top's time per call × the largest overlap of the error bands × a share, over the
/// expected calls — exceeds its cost, which is the cheaper of two ways to time:
///  - a race on the caller's first calls (PlannerRuleTable::auto_race_*): the contenders' setups and
///    what their slower calls lose; it needs a few calls per contender out of a share of the
///    expected calls, and is never used for deterministic_only plans (the first calls would run
///    different kernels, so their results would differ in the last bits);
///  - timing at plan time on scratch operands: auto_timing_us (or 10 runs) per contender, plus the
///    setup of those that are not the top.
AutoDecision decide_auto(const std::vector<Candidate>& ranked, const Options& o);

/// Mode::Auto before any planning: whether planning can pay at all. Planning (the features on the
/// GPU, the ranking) costs about PlannerRuleTable::auto_plan_fixed_us + auto_plan_us_per_mnnz per
/// million nonzeros; it can save at most auto_light_gain_share (auto_light_gain_share_uniform on
/// rows of uniform length, where ELL and SELL beat the light kernel) of the products' time over the
/// expected calls, each product taking at least auto_launch_floor_us or CSR's bytes at the device's
/// copy bandwidth. Where the cost exceeds the saving (small matrices, few calls), an SpMV takes a
/// light plan: auto_light_kernel by its fixed rule, no features, no conversion, no timing. Only for
/// SpMV in Mode::Auto without kernel or format restrictions; nullopt otherwise or when planning pays.
struct LightPlan {
  std::string kernel;
  std::string rival;     // raced against `kernel` on the first calls where not empty
  int race_samples = 0;  // timed calls each in that race
  std::string why;
};
std::optional<LightPlan> light_plan(const Problem& p, const Options& o, const model::DeviceBasics& device);

// --- Tuning cache -------------------------------------------------------------------------------

/// What a plan is for: equal keys may share a plan.
struct CacheKey {
  uint64_t fingerprint = 0;
  std::string device;
  int value_bytes = 8;
  Operation op = Operation::Spmv;
  int64_t cols_dense = 0;
  DenseLayout layout = DenseLayout::RowMajor;
  std::string str() const;  ///< "spmv f64 L=0 row NVIDIA H100 80GB HBM3 0123456789abcdef"
};

struct CacheEntry {
  std::string kernel;
  std::vector<std::pair<std::string, int64_t>> knobs;
  double us = 0;           ///< measured per call
  std::string decided_by;  ///< "measured", "tuned"
  std::string date;
};

/// A JSON file of plans (an object keyed by CacheKey::str()), shared by processes and threads.
/// The file is parsed once per process and again only when it changed (its inode, size or times);
/// find() sees the file as it was when first asked. save() locks PATH.lock, re-reads the file, adds
/// this object's put() entries (they win over the file's for the same key; other keys are kept),
/// writes a temporary file unique to the writer and renames it over PATH: concurrent writers lose
/// nothing and a reader never sees half a file. Nothing here throws for a bad file: a missing or
/// empty file is an empty cache; a malformed file, an invalid entry, or a failed read or write is a
/// one-line warning on stderr naming the file and the reason, and the cache is then empty (or
/// unsaved). docs/planner.md has the contract.
class TuningCache {
 public:
  explicit TuningCache(std::string path);
  const std::string& path() const { return path_; }
  std::optional<CacheEntry> find(const CacheKey& key) const;
  /// An entry with an empty kernel name or a time that is not finite and >= 0 is refused (a warning).
  void put(const CacheKey& key, CacheEntry entry);
  /// False (after a warning) when the file could not be written; the puts stay in this object.
  bool save() const;
  std::size_t size() const;  ///< the file's entries and the puts

 private:
  using Entries = std::unordered_map<std::string, CacheEntry>;
  const Entries& loaded() const;
  std::string path_;
  Entries puts_;
  mutable std::shared_ptr<const Entries> loaded_;  ///< the file's entries, read on first use
};

/// The cache file Options name: tuning_cache, else $SPX_TUNING_CACHE; "" when none ("-" is none).
std::string cache_path(const Options& o);

/// Glob match of a kernel name against Options::kernels ("*" any run, "?" one character).
bool allowed(const std::string& kernel, const std::vector<std::string>& patterns);

}  // namespace spx::plan
