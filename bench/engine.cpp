#include "bench/engine.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <new>
#include <span>

#include "bench/check.hpp"
#include "bench/footprint.hpp"
#include "bench/provenance.hpp"
#include "bench/traffic.hpp"
#include "common/splitmix64.hpp"
#include "common/wall_clock.hpp"
#include "spx/convert.hpp"
#include "spx/error.hpp"

namespace spx::bench {

namespace {

using Clock = spx::detail::WallClock;
using spx::detail::seconds_since;

// Inputs are uniform in [-1, 1): splitmix64, so they are the same on every platform and never
// all zero (a zero x would let a kernel that skips work look correct and fast). Element e of the
// stream `seed` is the generator's output number e + 1 from the state seed * gamma + 1, computed
// from e directly, so all threads fill at once and the values are those of the sequential stream
// the committed results were measured with.
double input_value(uint64_t seed, uint64_t e) {
  using detail::kSplitmix64Gamma;
  const uint64_t z = detail::splitmix64(seed * kSplitmix64Gamma + 1 + e * kSplitmix64Gamma);
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

template <class T>
void fill_inputs(std::span<T> out, uint64_t seed) {
  const int64_t n = static_cast<int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < n; ++e)
    out[static_cast<std::size_t>(e)] = static_cast<T>(input_value(seed, static_cast<uint64_t>(e)));
}

// Element (i, j) is the stream's element i + j * rows whatever the layout, so a row-major B holds
// the same values as the column-major one.
template <class T>
Dense<T> random_dense(int64_t rows, int64_t cols, uint64_t seed, Layout layout = Layout::ColMajor) {
  Dense<T> d(rows, cols, layout);
  if (layout == Layout::ColMajor) {
    fill_inputs(std::span<T>(d.data), seed);
    return d;
  }
  const int64_t n = rows * cols;
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < n; ++e)
    d(e % rows, e / rows) = static_cast<T>(input_value(seed, static_cast<uint64_t>(e)));
  return d;
}

// SpMM's B is column-major, or in the one layout the options ask for (spx spmm --layout row): a
// kernel on that layout then reads it as it is, and a host-resident product of gigabytes needs no
// second copy of B.
Layout b_layout(const BenchOptions& options) {
  return options.layouts.size() == 1 ? options.layouts.front() : Layout::ColMajor;
}

bool matches_any(const std::vector<std::string>& patterns, const std::string& name) {
  if (patterns.empty()) return true;
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return fnmatch(p.c_str(), name.c_str(), 0) == 0; });
}

std::string problem_label(const Problem& p) {
  return fmt::format("{} {} {}", p.matrix, op_spec_of(p.op, p.rows, p.cols, p.cols_dense).label(),
                     to_string(p.precision));
}

// "element 17" of a vector, "element (3, 1)" of a matrix (the checker counts column-major), "the
// output's shape" when the checker could not compare at all.
std::string element_text(const Problem& p, int64_t first_bad) {
  if (first_bad < 0) return "the output's shape";
  if (p.op == OpKind::Spmv || p.op == OpKind::Gemm || p.rows == 0)
    return fmt::format("element {}", first_bad);
  return fmt::format("element ({}, {})", first_bad % p.rows, first_bad / p.rows);
}

// The CSR's bytes with 32-bit columns; at 64-bit offsets 4 bytes more a row pointer.
Traffic traffic_of(const Problem& p) {
  const int64_t value = value_bytes(p.precision);
  constexpr int64_t index = sizeof(int32_t);
  Traffic t;
  switch (p.op) {
    case OpKind::Spmv:
      t = spmv_traffic(p.rows, p.cols, p.nnz, value, index);
      break;
    case OpKind::Spmm:
      t = spmm_traffic(p.rows, p.cols, p.nnz, p.cols_dense, value, index);
      break;
    case OpKind::Gemm:
      return gemm_traffic(p.rows, p.cols_dense, p.cols, value);
  }
  if (p.offset_bits == 64) {
    const double wider = static_cast<double>(sizeof(int64_t) - index) * static_cast<double>(p.rows + 1);
    t.effective_bytes += wider;
    t.minimum_bytes += wider;
  }
  return t;
}

// The parameters BenchOptions gives `kernel` (empty when none), and its variants.
const KernelParams* params_for(const BenchOptions& options, const KernelEntry& kernel) {
  const auto it = std::find_if(options.params.begin(), options.params.end(),
                               [&](const KernelParams& p) { return p.kernel == kernel.name; });
  return it == options.params.end() ? nullptr : &*it;
}

std::vector<const KernelParams*> variants_of(const BenchOptions& options, const KernelEntry& kernel) {
  std::vector<const KernelParams*> out;
  for (const KernelParams& v : options.variants)
    if (v.kernel == kernel.name) out.push_back(&v);
  return out;
}

// One run of a kernel entry: its own, or one of its variants ("spmm_csr_row#2").
struct KernelRun {
  const KernelEntry* kernel = nullptr;
  std::string name;
  Params params;
  std::string text;
};

// The entry's own run, then its variants, each variant's parameters on top of the entry's.
std::vector<KernelRun> runs_of(const BenchOptions& options, const KernelEntry& kernel) {
  const KernelParams* own = params_for(options, kernel);
  std::vector<KernelRun> runs{{&kernel, kernel.name, own ? own->params : Params{}, own ? own->text : ""}};
  int n = 0;
  for (const KernelParams* v : variants_of(options, kernel)) {
    KernelRun run = runs.front();
    run.name = fmt::format("{}#{}", kernel.name, ++n);
    run.params.insert(run.params.end(), v->params.begin(), v->params.end());
    run.text = run.text.empty() ? v->text : run.text + " " + v->text;
    runs.push_back(std::move(run));
  }
  return runs;
}

// One (matrix, op, precision) with its inputs and checker, shared by all kernels.
class ProblemRunner {
 public:
  ProblemRunner(const BenchOptions& options, const Registry& registry, BenchReport& report,
                const BenchCallbacks& callbacks, int& done, int total)
      : options_(options),
        registry_(registry),
        report_(report),
        callbacks_(callbacks),
        done_(done),
        total_(total) {}

  // The runs of the kernels that can run this problem; the others become notes and count as done.
  // Called on the problem's shape before its inputs are allocated. A kernel is skipped when its
  // skip_reason() says so, or when the problem's inputs with what the kernel adds would not fit in
  // the memory free now (a note naming the numbers, bench/footprint.hpp). Parameters an entry
  // refuses fail the whole problem here, before anything of it runs: the comparison asked for
  // cannot be made, and saying so now beats saying so after timing the others.
  std::vector<KernelRun> runnable(const Problem& shape, const std::vector<const KernelEntry*>& kernels) {
    const MemoryAvailable available = memory_available(registry_, options_.backend);
    std::vector<KernelRun> out;
    for (const KernelEntry* kernel : kernels) {
      std::string why = shape.offset_bits == 64 && !kernel->offsets64 ? plan::offsets32_only_reason(shape.nnz)
                        : kernel->skip_reason                         ? kernel->skip_reason(shape)
                                                                      : std::string();
      if (why.empty()) why = memory_refusal(problem_footprint(shape, {kernel}), available);
      std::vector<KernelRun> runs = runs_of(options_, *kernel);
      if (!why.empty()) {
        note(shape, kernel->name, "skipped: " + why);
        done_ += static_cast<int>(runs.size());
        continue;
      }
      for (KernelRun& run : runs) out.push_back(std::move(run));
    }
    bool refused = false;
    for (const KernelRun& run : out) {
      if (std::string bad = params_refused(shape, run); !bad.empty()) {
        ++report_.failed_checks;
        note(shape, run.name, fmt::format("FAILED: {}: {}", run.text, bad));
        refused = true;
      }
    }
    if (refused) {
      done_ += static_cast<int>(out.size());
      out.clear();
    }
    return out;
  }

  void run_all(const Problem& problem, const Checker& check, const std::vector<KernelRun>& runs) {
    const std::size_t first = report_.results.size();
    for (const KernelRun& run : runs) {
      if (callbacks_.progress) {
        callbacks_.progress(done_, total_, fmt::format("{} {}", problem_label(problem), run.name));
      }
      run_one(problem, check, run);
      ++done_;
    }
    set_speedups(first);
    note_disturbed_timings(problem, first);
  }

 private:
  void note(const Problem& p, const std::string& kernel, const std::string& what) {
    report_.notes.push_back(fmt::format("{} {}: {}", problem_label(p), kernel, what));
  }

  // One note per problem naming the CPU kernels whose median is far above their minimum: the
  // table's medians then say more about the machine's other load than about the kernels.
  void note_disturbed_timings(const Problem& p, std::size_t first) {
    std::string kernels;
    for (std::size_t i = first; i < report_.results.size(); ++i) {
      const Result& r = report_.results[i];
      const double spread = r.backend == "cpu" ? disturbed_spread(r.timing) : 0;
      if (spread > 0) kernels += fmt::format("{}{} {:.1f}x", kernels.empty() ? "" : ", ", r.kernel, spread);
    }
    if (kernels.empty()) return;
    report_.notes.push_back(
        fmt::format("{}: timings disturbed: median / min = {} (> {}): other processes were using the cores; "
                    "compare `ms min`, or rerun on a quiet machine",
                    problem_label(p), kernels, kDisturbedMedianOverMin));
  }

  static std::string params_refused(const Problem& shape, const KernelRun& run) {
    if (run.params.empty()) return {};
    if (!run.kernel->check_params) return "this kernel takes no parameters";
    return run.kernel->check_params(shape, run.params);
  }

  void run_one(const Problem& shared, const Checker& check_output, const KernelRun& run) {
    const KernelEntry& kernel = *run.kernel;
    Problem problem = shared;  // a copy (sizes and pointers) that carries this run's parameters
    problem.params = run.params;
    std::unique_ptr<Instance> instance;
    const auto prepare_start = Clock::now();
    try {
      instance = kernel.prepare(problem);
    } catch (const std::bad_alloc&) {
      note(problem, run.name, "skipped: out of memory while preparing");
      return;
    } catch (const std::exception& e) {
      note(problem, run.name, std::string("skipped: ") + e.what());
      return;
    }
    const double prepare_ms = 1e3 * seconds_since(prepare_start);

    Result r;
    r.matrix = problem.matrix;
    r.rows = problem.rows;
    r.cols = problem.cols;
    r.nnz = problem.nnz;
    r.op = problem.op;
    r.cols_dense = problem.cols_dense;
    r.offset_bits = problem.offset_bits;
    r.precision = problem.precision;
    r.kernel = run.name;
    r.override = run.text;
    r.backend = kernel.backend;
    r.format = kernel.format;
    r.vendor = kernel.vendor;
    r.reference = kernel.reference;
    r.prepare_ms = prepare_ms;
    if (problem.stats != nullptr) r.stats = *problem.stats;
    try {
      // The checked run is also the warm-up run.
      instance->poison_output();
      instance->run();
      const CheckResult check = check_output(instance->output());
      r.checked = check.passed;
      r.rel_error = check.relative_error;
      r.check_ratio = check.worst_ratio;
      r.max_error = check.max_error;
      if (!check.passed) {
        ++report_.failed_checks;
        note(problem, run.name,
             fmt::format(
                 "CHECK FAILED: {} out of tolerance (worst error {:.3g}x the bound, relative error {:.3g})",
                 element_text(problem, check.first_bad), check.worst_ratio, check.relative_error));
      }
      r.timing = measure(*instance, options_.timing);
      if (Timing cold; instance->measure_cold(options_.timing, cold)) r.cold = cold;
      r.params = instance->params();
    } catch (const std::exception& e) {
      ++report_.failed_checks;
      note(problem, run.name, std::string("FAILED: ") + e.what());
      return;
    }
    const Traffic traffic = traffic_of(problem);
    if (r.timing.median_ms > 0) {
      const double seconds = r.timing.median_ms * 1e-3;
      r.gbs = traffic.effective_bytes / seconds / 1e9;
      r.gbs_min = traffic.minimum_bytes / seconds / 1e9;
      r.gflops = traffic.flops / seconds / 1e9;
    }
    report_.results.push_back(std::move(r));
  }

  // Speedup over the best vendor kernel of this problem, or over the fastest reference kernel
  // when no vendor kernel ran (the CPU backend).
  void set_speedups(std::size_t first) {
    auto& results = report_.results;
    const Result* best = nullptr;
    for (bool vendor : {true, false}) {
      for (std::size_t i = first; i < results.size(); ++i) {
        const Result& r = results[i];
        if ((vendor ? r.vendor : r.reference) && r.timing.median_ms > 0 &&
            (best == nullptr || r.timing.median_ms < best->timing.median_ms)) {
          best = &r;
        }
      }
      if (best != nullptr) break;
    }
    if (best == nullptr) return;
    const double baseline_ms = best->timing.median_ms;
    const std::string baseline = best->kernel;
    for (std::size_t i = first; i < results.size(); ++i) {
      if (results[i].timing.median_ms > 0) {
        results[i].speedup = baseline_ms / results[i].timing.median_ms;
        results[i].baseline = baseline;
      }
    }
  }

  const BenchOptions& options_;
  const Registry& registry_;
  BenchReport& report_;
  const BenchCallbacks& callbacks_;
  int& done_;
  int total_;
};

template <class T, class I>
void run_sparse_ops(const BenchOptions& options, const Registry& registry, const MatrixInfo& info,
                    const FormatInputs* formats, const Csr<T, I>& A, Precision precision,
                    ProblemRunner& runner) {
  std::vector<T> x(static_cast<std::size_t>(A.cols));
  fill_inputs(std::span<T>(x), options.seed);
  for (const OpSpec& op : options.ops) {
    if (op.op == OpKind::Gemm) continue;
    Problem p;
    p.matrix = info.name;
    p.op = op.op;
    p.precision = precision;
    p.cols_dense = op.size;
    p.rows = A.rows;
    p.cols = A.cols;
    p.nnz = A.nnz();
    p.offset_bits = info.offset_bits;
    p.stats = info.stats ? &*info.stats : nullptr;
    p.format_inputs = formats;
    p.b_layout = b_layout(options);
    auto kernels = runner.runnable(p, select_kernels(registry, options, op.op, precision));
    if (kernels.empty()) continue;
    TypedInput<T> input;
    if constexpr (sizeof(I) == 8)
      input.A_wide = &A;
    else
      input.A = &A;
    Dense<T> B;
    Checker check;
    if (op.op == OpKind::Spmv) {
      input.x = x;
      check = [&A, &x](const OutputView& y) { return check_spmv<T>(A, x, y); };
    } else {
      B = random_dense<T>(A.cols, op.size, options.seed + 1, p.b_layout);
      input.B = &B;
      check = [&A, &B](const OutputView& C) { return check_spmm<T>(A, B, C); };
    }
    if constexpr (sizeof(T) == 4) {
      p.f32 = input;
    } else {
      p.f64 = input;
    }
    runner.run_all(p, check, kernels);
  }
}

template <class T>
void run_gemm(const BenchOptions& options, const Registry& registry, const OpSpec& op, Precision precision,
              const std::string& name, ProblemRunner& runner) {
  // C (m × n) = A (m × k) · B (k × n): rows = m, cols = k (columns of A), cols_dense = n.
  const int64_t m = op.m(), n = op.size, k = op.k();
  Problem p;
  p.matrix = name;
  p.op = OpKind::Gemm;
  p.precision = precision;
  p.cols_dense = n;
  p.rows = m;
  p.cols = k;
  p.nnz = m * k;
  auto kernels = runner.runnable(p, select_kernels(registry, options, OpKind::Gemm, precision));
  if (kernels.empty()) return;
  Dense<T> A = random_dense<T>(m, k, options.seed + 2);
  Dense<T> B = random_dense<T>(k, n, options.seed + 3);
  TypedInput<T> input;
  input.A_dense = &A;
  input.B = &B;
  if constexpr (sizeof(T) == 4) {
    p.f32 = input;
  } else {
    p.f64 = input;
  }
  const Projection projection = gemm_projection<T>(A, B, options.seed + 4);
  runner.run_all(
      p, [&](const OutputView& C) { return check_projection(C, projection); }, kernels);
}

// Tables and JSON group results by matrix name: a second "cage11" (the same file given twice, or
// two folders) becomes "cage11#2".
std::string unique_name(const BenchReport& report, const std::string& name) {
  auto taken = [&](const std::string& n) {
    return std::any_of(report.matrices.begin(), report.matrices.end(),
                       [&](const MatrixInfo& m) { return m.name == n; });
  };
  std::string candidate = name;
  for (int i = 2; taken(candidate); ++i) candidate = fmt::format("{}#{}", name, i);
  return candidate;
}

// Before loading a matrix: why no kernel of any of its problems would fit in the memory free now
// (its shape estimated from the generator spec or the file header), or "" when one would or nothing
// is known. The first refusal is the message: `spx spmm stencil27:n=300 --cols 512` says so at once
// instead of generating 730M nonzeros first.
std::string refuse_before_loading(const BenchOptions& options, const Registry& registry,
                                  const MatrixSource& source, bool wide) {
  const std::optional<ShapeEstimate> shape = estimate_shape(source);
  if (!shape) return {};
  const bool f32 = std::find(options.precisions.begin(), options.precisions.end(), Precision::F32) !=
                   options.precisions.end();
  const Footprint load = load_footprint(source, *shape, f32, wide);
  const MemoryAvailable available = memory_available(registry, options.backend);
  std::string first;
  for (Precision precision : options.precisions) {
    for (const OpSpec& op : options.ops) {
      const auto kernels = op.op == OpKind::Gemm ? std::vector<const KernelEntry*>{}
                                                 : select_kernels(registry, options, op.op, precision);
      if (kernels.empty()) continue;
      Problem p;
      p.matrix = source.name;
      p.op = op.op;
      p.precision = precision;
      p.cols_dense = op.size;
      p.rows = shape->rows;
      p.cols = shape->cols;
      p.nnz = shape->nnz;
      p.offset_bits = wide ? 64 : 32;
      p.b_layout = b_layout(options);
      for (const KernelEntry* kernel : kernels) {
        if (wide && !kernel->offsets64) continue;  // skipped after loading, with the reason
        Footprint need = load;
        need += problem_footprint(p, {kernel});
        const std::string why = memory_refusal(need, available);
        if (why.empty()) return {};
        if (first.empty())
          first = fmt::format("{} {} {}: {}", op.label(), to_string(precision), kernel->name, why);
      }
    }
  }
  return first;
}

// Kernel runs per matrix (sparse ops) or per benchmark (gemm ops), for the progress count.
int kernel_runs(const Registry& registry, const BenchOptions& options, bool gemm) {
  int n = 0;
  for (Precision precision : options.precisions) {
    for (const OpSpec& op : options.ops) {
      if ((op.op == OpKind::Gemm) == gemm)
        for (const KernelEntry* k : select_kernels(registry, options, op.op, precision))
          n += 1 + static_cast<int>(variants_of(options, *k).size());
    }
  }
  return n;
}

// Loads one matrix with I-bit indices and runs its problems: the report gets its MatrixInfo (not
// when it cannot be loaded or is past --max-nnz: a note, an input error) and results. `done` counts
// the load.
template <class I>
void bench_matrix(const BenchOptions& options, const Registry& registry, const MatrixSource& source,
                  BenchReport& report, ProblemRunner& runner, int& done) {
  MatrixInfo info;
  info.name = unique_name(report, source.name);
  info.source = source.location;
  info.description = source.description;
  info.offset_bits = 8 * static_cast<int>(sizeof(I));
  Csr<double, I> A;
  const auto load_start = Clock::now();
  try {
    A = load_matrix<double, I>(source);
  } catch (const std::bad_alloc&) {
    ++report.failed_inputs;
    report.input_errors.push_back(source.name + ": out of memory while loading");
    report.notes.push_back(fmt::format("{}: skipped: out of memory while loading", source.name));
    return;
  } catch (const std::exception& e) {
    ++report.failed_inputs;
    report.input_errors.push_back(e.what());
    report.notes.push_back(fmt::format("{}: ERROR: {}", source.name, e.what()));
    return;
  }
  info.load_seconds = seconds_since(load_start);
  ++done;
  if (options.max_nnz >= 0 && A.nnz() > options.max_nnz) {
    report.notes.push_back(
        fmt::format("{}: skipped: {} nonzeros > --max-nnz {}", source.name, A.nnz(), options.max_nnz));
    return;
  }
  info.rows = A.rows;
  info.cols = A.cols;
  info.nnz = A.nnz();
  info.stats = spx::stats(A);
  if (options.features) info.features = spx::features(A);
  // What the memory checks' format estimates read (the planner's format table), once per matrix. At
  // 64 bits none: the formats it sizes do not run there, and the rows fall back on the statistics.
  std::optional<FormatInputs> formats;
  if constexpr (sizeof(I) == 4) formats = format_inputs(A, info.features);
  const FormatInputs* format_view = formats ? &*formats : nullptr;
  report.matrices.push_back(info);
  for (Precision precision : options.precisions) {
    try {
      if (precision == Precision::F32) {
        const Csr<float, I> A32 = spx::cast<float, I>(A);
        run_sparse_ops<float>(options, registry, info, format_view, A32, precision, runner);
      } else {
        run_sparse_ops<double>(options, registry, info, format_view, A, precision, runner);
      }
    } catch (const std::bad_alloc&) {
      report.notes.push_back(fmt::format("{} {}: skipped: out of memory", info.name, to_string(precision)));
    } catch (const std::exception& e) {
      // e.g. the inputs of this precision failing to build: nothing of it can run.
      ++report.failed_checks;
      report.notes.push_back(fmt::format("{} {}: FAILED: {}", info.name, to_string(precision), e.what()));
    }
  }
}
}  // namespace

std::vector<const KernelEntry*> select_kernels(const Registry& registry, const BenchOptions& options,
                                               OpKind op, Precision precision) {
  std::vector<const KernelEntry*> out;
  for (const KernelEntry& k : registry.kernels()) {
    if (k.backend != options.backend || k.op != op || !k.supports(precision)) continue;
    if (k.study && !options.studies) continue;
    if (op == OpKind::Spmm && k.layout && !options.layouts.empty() &&
        std::find(options.layouts.begin(), options.layouts.end(), *k.layout) == options.layouts.end()) {
      continue;
    }
    if (!options.formats.empty() &&
        std::find(options.formats.begin(), options.formats.end(), k.format) == options.formats.end()) {
      continue;
    }
    if (!matches_any(options.kernels, k.name)) continue;
    out.push_back(&k);
  }
  return out;
}

void validate_options(const Registry& registry, const BenchOptions& options) {
  if (std::string why = backend_unavailable_reason(registry, options.backend); !why.empty()) {
    throw Error(fmt::format("backend {}: {}", options.backend, why));
  }
  for (const auto& pattern : options.kernels) {
    const bool known =
        std::any_of(registry.kernels().begin(), registry.kernels().end(), [&](const KernelEntry& k) {
          return k.backend == options.backend && fnmatch(pattern.c_str(), k.name.c_str(), 0) == 0;
        });
    const bool only_studies =
        known && !options.studies &&
        std::none_of(registry.kernels().begin(), registry.kernels().end(), [&](const KernelEntry& k) {
          return k.backend == options.backend && !k.study && fnmatch(pattern.c_str(), k.name.c_str(), 0) == 0;
        });
    if (only_studies)
      throw Error(fmt::format("'{}' names study entries of the {} backend: add --studies to run them",
                              pattern, options.backend));
    if (!known) {
      std::string names;
      for (const KernelEntry& k : registry.kernels()) {
        if (k.backend == options.backend && (options.studies || !k.study) &&
            names.find(k.name) == std::string::npos) {
          names += (names.empty() ? "" : ", ") + k.name;
        }
      }
      throw Error(fmt::format("no {} kernel named '{}' (kernels: {})", options.backend, pattern, names));
    }
  }
  for (const auto* list : {&options.params, &options.variants}) {
    for (const KernelParams& given : *list) {
      const bool takes =
          std::any_of(registry.kernels().begin(), registry.kernels().end(), [&](const KernelEntry& k) {
            return k.backend == options.backend && k.name == given.kernel && k.check_params;
          });
      if (!takes)
        throw Error(fmt::format("{}: no {} kernel named '{}' takes parameters", given.text, options.backend,
                                given.kernel));
    }
  }
  for (auto given = options.params.begin(); given != options.params.end(); ++given) {
    if (std::any_of(options.params.begin(), given,
                    [&](const KernelParams& p) { return p.kernel == given->kernel; }))
      throw Error(fmt::format("two sets of parameters for {}'s own run (give the second as a variant)",
                              given->kernel));
  }
  for (Precision precision : options.precisions) {
    for (const OpSpec& op : options.ops) {
      if (!select_kernels(registry, options, op.op, precision).empty()) return;
    }
  }
  throw Error(fmt::format("no {} kernel matches the requested ops, precisions, formats and kernels",
                          options.backend));
}

BenchReport run_bench(const BenchOptions& options, const Registry& registry,
                      const BenchCallbacks& callbacks) {
  validate_options(registry, options);
  BenchReport report;
  report.backend = options.backend;
  report.commit = source_commit();
  report.date = utc_now_iso8601();
  if (const BackendEntry* backend = registry.backend(options.backend); backend && backend->describe) {
    report.device = backend->describe();
  }
  // One step per matrix load and per kernel run.
  const int steps_per_matrix = 1 + kernel_runs(registry, options, false);
  const int total =
      static_cast<int>(options.matrices.size()) * steps_per_matrix + kernel_runs(registry, options, true);
  int done = 0;
  ProblemRunner runner(options, registry, report, callbacks, done, total);

  for (const MatrixSource& source : options.matrices) {
    const int done_after_matrix = done + steps_per_matrix;
    auto skip = [&](const std::string& why) {
      report.notes.push_back(fmt::format("{}: skipped: {}", source.name, why));
      done = done_after_matrix;
    };
    if (options.max_nnz >= 0 && source.approx_nnz > options.max_nnz) {
      skip(fmt::format("about {} nonzeros > --max-nnz {}", source.approx_nnz, options.max_nnz));
      continue;
    }
    bool wide = false;
    try {
      wide = reads_wide_indices(source, options.index, "spx bench --index 64");
    } catch (const std::exception& e) {
      ++report.failed_inputs;
      report.input_errors.push_back(e.what());
      report.notes.push_back(fmt::format("{}: ERROR: {}", source.name, e.what()));
      done = done_after_matrix;
      continue;
    }
    if (std::string why = refuse_before_loading(options, registry, source, wide); !why.empty()) {
      skip(why);
      continue;
    }
    if (callbacks.progress) callbacks.progress(done, total, fmt::format("{}: loading", source.name));
    const std::size_t matrices_before = report.matrices.size();
    if (wide)
      bench_matrix<int64_t>(options, registry, source, report, runner, done);
    else
      bench_matrix<int32_t>(options, registry, source, report, runner, done);
    done = done_after_matrix;
    if (report.matrices.size() > matrices_before && callbacks.matrix_done)
      callbacks.matrix_done(report, report.matrices.back());
  }

  for (const OpSpec& op : options.ops) {
    if (op.op != OpKind::Gemm) continue;
    MatrixInfo info;
    const bool square = op.m() == op.size && op.k() == op.size;
    // "dense_4096" for a square product, "dense_65536x512x512" (m x n x k) otherwise.
    info.name =
        square ? fmt::format("dense_{}", op.size) : fmt::format("dense_{}x{}x{}", op.m(), op.size, op.k());
    info.source =
        square ? fmt::format("random {0} x {0} column-major", op.size)
               : fmt::format("random A {} x {}, B {} x {}, column-major", op.m(), op.k(), op.k(), op.size);
    info.rows = op.m();
    info.cols = op.k();
    info.nnz = op.m() * op.k();
    report.matrices.push_back(info);
    for (Precision precision : options.precisions) {
      try {
        if (precision == Precision::F32) {
          run_gemm<float>(options, registry, op, precision, info.name, runner);
        } else {
          run_gemm<double>(options, registry, op, precision, info.name, runner);
        }
      } catch (const std::bad_alloc&) {
        report.notes.push_back(fmt::format("{} {}: skipped: out of memory", info.name, to_string(precision)));
      }
    }
    if (callbacks.matrix_done) callbacks.matrix_done(report, report.matrices.back());
  }
  if (callbacks.progress) callbacks.progress(total, total, "");
  return report;
}

}  // namespace spx::bench
