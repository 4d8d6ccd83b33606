// The benchmark engine: matrices × ops × precisions × registered kernels → checked, timed results.
//
// For every matrix (loaded once as Csr<double, int32_t>, or int64_t indices under BenchOptions::index,
// unless bench/footprint.hpp says nothing of it could fit) and precision, and every op, the engine builds one
// Problem with random inputs (deterministic, never zero), then for each selected kernel (and each variant of
// it): memory and parameter checks → prepare (untimed) → poison output with NaN → run → check against
// spx::ref's arithmetic (bench/check.hpp, fused: no stored reference) → time repeated runs. GEMM ops are run
// once per benchmark on random N × N matrices ("dense_N"), not per sparse matrix.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/inputs.hpp"
#include "bench/registry.hpp"
#include "bench/timing.hpp"
#include "bench/types.hpp"
#include "spx/features.hpp"
#include "spx/plan.hpp"
#include "spx/stats.hpp"

namespace spx::bench {

// Parameters for one kernel entry that takes them (KernelEntry::check_params).
struct KernelParams {
  std::string kernel;  // the entry's name
  std::string text;    // as the user gave them, quoted in notes and in the JSON (`override`)
  Params params;
};

struct BenchOptions {
  std::vector<MatrixSource> matrices;
  std::vector<OpSpec> ops = {OpSpec{}};
  std::vector<Precision> precisions = {Precision::F64};
  std::string backend = "cpu";       // "cpu" or "cuda" (resolve "auto" first)
  std::vector<std::string> kernels;  // kernel names or shell patterns ("omp_*"); empty: all
  std::vector<Format> formats;       // empty: all
  bool studies = false;              // also the study entries (KernelEntry::study)
  // spmm kernels on these B/C layouts only (empty: all); exactly one also makes B in that layout.
  std::vector<Layout> layouts;
  // `params` go to their entry's own run; each of `variants` is one more run of its entry, named
  // "KERNEL#1", "KERNEL#2", ... in order, with the variant's parameters on top of the entry's. A
  // run whose parameters the entry refuses fails its problem before any kernel of it runs.
  std::vector<KernelParams> params;
  std::vector<KernelParams> variants;
  TimingPolicy timing;
  int64_t max_nnz = -1;  // skip matrices with more nonzeros (-1: no limit)
  // The width each matrix is read with (reads_wide_indices): at 64 bits, Problem::offset_bits.
  plan::IndexWidth index = plan::IndexWidth::Auto;
  uint64_t seed = 1;  // for the random dense inputs
  // Each matrix's MatrixFeatures (spx::features, one host pass) in the report and the JSON: the
  // performance model's training and validation data.
  bool features = true;
};

struct MatrixInfo {
  std::string name;
  std::string source;       // path or generator spec
  std::string description;  // suite description, may be empty
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t nnz = 0;
  std::optional<MatrixStats> stats;        // absent for GEMM's dense inputs
  std::optional<MatrixFeatures> features;  // with BenchOptions::features (sparse matrices only)
  double load_seconds = 0;                 // read or generate
  int offset_bits = 32;                    // read with 32- or 64-bit indices (BenchOptions::index)
};

struct Result {
  std::string matrix;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t nnz = 0;
  OpKind op = OpKind::Spmv;
  int64_t cols_dense = 0;  // L (spmm), N (gemm), 0 (spmv)
  int offset_bits = 32;    // the matrix's index width (Problem::offset_bits)
  Precision precision = Precision::F64;
  std::string kernel;    // the entry's name, "#N" added for the N-th variant
  std::string override;  // the parameters' text when the run was given any (KernelParams::text)
  std::string backend;
  Format format = Format::Csr;
  bool vendor = false;
  bool reference = false;
  Params params;
  Timing timing;
  std::optional<Timing> cold;
  double gbs = 0;      // effective bytes (Reguly–Giles eq. 2) / median time
  double gbs_min = 0;  // minimum bytes (eq. 4) / median time
  double gflops = 0;
  bool checked = false;  // output matched spx::ref within the tolerance in this run
  double rel_error = 0;
  double check_ratio = 0;  // worst |error| / tolerance (≤ 1 passes)
  double max_error = 0;    // worst |error| (not NaN)
  double prepare_ms = 0;   // conversion / upload / setup, untimed in ms_*
  double speedup = 0;      // baseline median / this median (0: no baseline)
  std::string baseline;    // kernel the speedup is measured against
  std::optional<MatrixStats> stats;
};

// A backend without describe(): no figures (a copy_gbs of 0 leaves the bandwidth columns out).
inline const model::DeviceBasics kNoDevice{"", 0, 0, 0, 0, 0, 0, 0};

struct BenchReport {
  model::DeviceBasics device = kNoDevice;  // the backend's describe()
  std::string backend;                     // "cpu" or "cuda": the device's kind
  std::string commit;
  std::string date;  // ISO 8601 UTC
  std::vector<MatrixInfo> matrices;
  std::vector<Result> results;
  std::vector<std::string> notes;         // skipped kernels and matrices, load errors, check failures
  std::vector<std::string> input_errors;  // messages of matrices that could not be read or generated
  int failed_checks = 0;                  // results that did not match the reference, or threw
  int failed_inputs = 0;                  // = input_errors.size()
};

struct BenchCallbacks {
  // Before each step: `done` of `total` steps (one step per kernel run or matrix load).
  std::function<void(int done, int total, const std::string& what)> progress;
  // After each matrix's results are complete (the CLI prints its table then).
  std::function<void(const BenchReport&, const MatrixInfo&)> matrix_done;
};

// Kernels of the options' backend for (op, precision) that pass the name and format filters (study
// entries only with options.studies).
std::vector<const KernelEntry*> select_kernels(const Registry& registry, const BenchOptions& options,
                                               OpKind op, Precision precision);

// Throws spx::Error before running anything when the backend cannot run, or when the filters
// select no kernel at all for the requested ops and precisions.
void validate_options(const Registry& registry, const BenchOptions& options);

// Runs the benchmark. Errors in one matrix or kernel become notes (and failure counts); only
// problems with the options themselves throw.
BenchReport run_bench(const BenchOptions& options, const Registry& registry,
                      const BenchCallbacks& callbacks = {});

}  // namespace spx::bench
