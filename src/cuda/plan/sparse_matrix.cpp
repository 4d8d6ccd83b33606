// The front door (spx/cuda/sparse_matrix.hpp): planning (rule, model, measure, tune; the tuning
// cache), building the chosen candidate, and running it — with the run-time tuner timing
// neighbouring configurations on real calls through events it reads without waiting.
#include "spx/cuda/sparse_matrix.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "common/wall_clock.hpp"
#include "cuda/common/check.hpp"
#include "cuda/formats/upload_valid.hpp"
#include "cuda/plan/executor.hpp"
#include "cuda/plan/race.hpp"
#include "cuda/spmm/spmm_checks.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "plan/tuner.hpp"
#include "spx/column_spans.hpp"
#include "spx/convert.hpp"
#include "spx/cuda/features.hpp"
#include "spx/cuda/stream.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/error.hpp"
#include "spx/model.hpp"
#include "spx/sell_c16.hpp"

namespace spx::cuda {

namespace {

using Clock = spx::detail::WallClock;
using spx::detail::us_since;

// The committed profiles, loaded once per device name (nullopt: the device has none).
std::mutex profiles_mutex;
std::map<std::string, std::optional<model::Profile>> profiles_loaded;

const model::Profile* profile_for(const std::string& device_name) {
  std::lock_guard<std::mutex> lock(profiles_mutex);
  auto it = profiles_loaded.find(device_name);
  if (it == profiles_loaded.end()) {
    std::optional<model::Profile> p;
    if (auto path = model::find_profile(device_name)) p = model::load_profile(*path);
    it = profiles_loaded.emplace(device_name, std::move(p)).first;
  }
  return it->second ? &*it->second : nullptr;
}

// The profile, loading it on another thread while the matrix is taken in when this process has
// not loaded it yet: parsing the JSON took ~0.4 ms (H200 host and the development host), which the
// first plan of a process paid before any product; the intake of a large matrix takes far longer.
std::shared_future<const model::Profile*> profile_soon(const std::string& device_name) {
  bool loaded = false;
  {
    std::lock_guard<std::mutex> lock(profiles_mutex);
    loaded = profiles_loaded.count(device_name) != 0;
  }
  // Loaded: profile_for's lookup when the plan asks (deferred). Else async | deferred: where no
  // thread can be started, the load runs when the plan asks for it.
  const auto policy = loaded ? std::launch::deferred : std::launch::async | std::launch::deferred;
  return std::async(policy, [device_name] { return profile_for(device_name); }).share();
}

model::DeviceBasics basics_of(const DeviceProps& props, const model::Profile* profile) {
  return profile != nullptr ? profile->device : model::device_basics(props);
}

std::size_t free_device_bytes() {
  std::size_t free_bytes = 0, total = 0;
  SPX_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

bool capturing(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  SPX_CUDA_CHECK(cudaStreamIsCapturing(s, &status));
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace

// One plan: its report, the built candidate, and the tuner while it tunes.
template <class T>
struct PlanState {
  plan::Report report;
  std::unique_ptr<detail::Executor<T>> exec;
  std::optional<plan::Tuner> tuner;
  std::optional<detail::Race<T>> race;  // Mode::Auto racing its top candidates on real calls
  Event start, stop;
  bool pending = false;  // an event pair recorded around a trial, not yet read
  std::string cache_path;
  plan::CacheKey cache_key;
};

template <class T>
struct SparseMatrix<T>::Impl {
  Context* ctx = nullptr;
  std::shared_future<const model::Profile*> profile_load;  // profile_soon's, from attach on
  Csr<T, int32_t> host;
  DeviceCsr<T, int32_t> device;
  MatrixStats stats;
  // The formats' host-side eligibility inputs (plan::fill_host_extras): the column spans at
  // construction (O(rows)), the sampled ones when the first SpMV plan is made (SpMM and CG-only users
  // never pay them).
  mutable plan::HostExtras extras;
  std::optional<MatrixFeatures> features;
  double features_us = 0;
  std::optional<PlanState<T>> spmv;
  std::map<std::pair<int64_t, int>, PlanState<T>> spmm;
  // 64-bit offsets: the device matrix and its row pointer's host copy, instead of host and device.
  std::optional<WideDeviceCsr<T>> wide;
  std::vector<int64_t> wide_row_ptr;

  detail::MatrixParts<T> parts() const {
    if (wide)
      return {nullptr,
              nullptr,
              &stats,
              &*wide,
              std::span<const int64_t>(wide_row_ptr),
              std::span<const uint64_t>(extras.value_table_bits)};
    return {&host, &device, &stats, nullptr, {}, std::span<const uint64_t>(extras.value_table_bits)};
  }

  // The wide matrix of a host matrix of 64-bit or 32-bit indices (validated here): its statistics,
  // the device copy, the host row pointer. No host copy is kept.
  template <class I>
  void hold_wide(const Csr<T, I>& A) {
    stats = spx::stats(A);                       // validates A first
    extras.column_spans = column_span_stats(A);  // SELL-C16's eligibility at 64 bits
    if (extras.column_spans->wide_rows == 0)     // SELL-C16-dict's: its table, made while A is here
      plan::count_distinct_values(std::span<const T>(A.values), extras);
    wide = upload_wide(*ctx, A);
    wide_row_ptr.assign(A.row_ptr.begin(), A.row_ptr.end());
  }

  void attach(Context& context) {
    ctx = &context;
    profile_load = profile_soon(context.props().name);
  }

  // A matrix at 32-bit offsets: its statistics (validating it), the device copy, the host copy kept.
  void hold_narrow(Csr<T, int32_t> A) {
    stats = spx::stats(A);
    extras.column_spans = column_span_stats(A);
    device = detail::upload_valid(*ctx, A);  // validated by stats above
    host = std::move(A);
  }

  const MatrixFeatures& ensure_features() {
    if (wide)
      throw Error(
          "the performance model's features are computed on 32-bit offsets only; this matrix has "
          "64-bit ones");
    if (!features) {
      const auto t0 = Clock::now();
      features = cuda::features(*ctx, device);
      features_us = us_since(t0);
    }
    return *features;
  }

  // Builds `c` (timing its setup), or marks it ineligible with the reason it could not be built.
  std::unique_ptr<detail::Executor<T>> build(const plan::Problem& p, plan::Candidate& c,
                                             const plan::Knobs& knobs) {
    const auto t0 = Clock::now();
    try {
      auto e = detail::build_executor<T>(*ctx, parts(), p, c.kernel, knobs);
      ctx->synchronize();
      c.setup_us = us_since(t0);
      c.extra_bytes = e->bytes;
      c.params = e->describe();
      c.knobs = e->knobs();
      return e;
    } catch (const Error& err) {
      c.eligible = false;
      c.why_not = err.what();
      return nullptr;
    }
  }

  // Scratch operands of the problem's shape (x, y for SpMV; B, C for SpMM), made once per plan,
  // and the warm median of a candidate on them.
  struct Scratch {
    DeviceBuffer<T> x, y;
    DeviceDense<T> B, C;
  };

  Scratch make_scratch(const plan::Problem& p) {
    Scratch sc;
    const auto ones = [&](T* dst, std::size_t n) {
      const std::vector<T> h(n, T{1});  // any finite values: the time does not depend on them
      copy_to_device_sync(*ctx, dst, h.data(), n * sizeof(T));
    };
    if (p.op == plan::Operation::Spmv) {
      sc.x = DeviceBuffer<T>(static_cast<std::size_t>(stats.cols), "planner x");
      sc.y = DeviceBuffer<T>(static_cast<std::size_t>(stats.rows), "planner y");
      ones(sc.x.data(), sc.x.size());
    } else {
      const Layout layout = p.layout;
      sc.B = make_device_dense<T>(stats.cols, p.cols_dense, layout);
      sc.C = make_device_dense<T>(stats.rows, p.cols_dense, layout);
      ones(sc.B.data.data(), sc.B.data.size());
    }
    return sc;
  }

  double time_us(const plan::Problem& p, Scratch& sc, detail::Executor<T>& e) {
    TimingOptions o;
    o.warmup = 2;
    o.min_runs = 10;
    // 2 ms per candidate: at 0.5 ms three launch-bound picks fell below 0.85 of the oracle on noise
    // (bench/results/h100/planner/NOTES.md, study log); ~8 ms of planning for four candidates.
    o.min_seconds = 0.002;
    o.max_runs = 200;
    if (p.op == plan::Operation::Spmv) {
      const std::span<const T> xs(sc.x.span());
      return 1e3 * time_kernel(
                       *ctx, [&] { e.spmv(*ctx, xs, sc.y.span(), T{1}, T{0}); }, o)
                       .median_ms;
    }
    const DenseView<const T> b = view(static_cast<const DeviceDense<T>&>(sc.B));
    const DenseView<T> c = view(sc.C);
    return 1e3 * time_kernel(
                     *ctx, [&] { e.spmm(*ctx, b, c, T{1}, T{0}); }, o)
                     .median_ms;
  }

  // Mode::Auto where planning cannot pay (plan::light_plan): the light kernel built at once (on
  // irregular rows with its rival, the two raced on the first calls), no features, no ranking, no
  // timing at plan time. False (nothing done) where planning pays, a plan in the tuning cache would
  // be taken instead, or the light kernel is not eligible or does not build.
  bool light_plan(PlanState<T>& st, const plan::Problem& p, const plan::Options& o,
                  const model::Profile* profile) {
    const model::DeviceBasics basics = basics_of(ctx->props(), profile);
    const auto light = plan::light_plan(p, o, basics);
    if (!light) return false;
    if (!st.cache_path.empty() && plan::TuningCache(st.cache_path).find(st.cache_key)) return false;
    std::vector<plan::Candidate> cands =
        plan::candidates(p, o, basics, std::numeric_limits<std::size_t>::max());
    const auto candidate = [&](const std::string& kernel) -> plan::Candidate* {
      const auto it = std::find_if(cands.begin(), cands.end(),
                                   [&](const plan::Candidate& c) { return c.kernel == kernel; });
      return it == cands.end() || !it->eligible ? nullptr : &*it;
    };
    plan::Candidate* light_c = candidate(light->kernel);
    if (light_c == nullptr) return false;
    plan::Candidate c = *light_c;
    auto e = build(p, c, {});
    if (!e) return false;
    plan::Report& r = st.report;
    c.score = std::numeric_limits<double>::infinity();
    r.candidates = {c};
    r.chosen = 0;
    r.decided_by = "light";
    r.auto_reason = light->why;
    r.setup_us = c.setup_us;
    r.problem = p;
    // Irregular rows: the rival raced against the light kernel on the first calls (run_race).
    if (plan::Candidate* rival_c = light->rival.empty() ? nullptr : candidate(light->rival)) {
      plan::Candidate rival = *rival_c;
      if (auto re = build(p, rival, {})) {
        rival.score = std::numeric_limits<double>::infinity();
        r.candidates.push_back(rival);
        detail::Race<T> race;
        race.untimed_decided_by = "light";
        race.entries.push_back({c.kernel, std::move(e), {}});
        race.entries.push_back({rival.kernel, std::move(re), {}});
        race.schedule(light->race_samples);
        r.decided_by = "racing";
        r.frozen = false;
        st.race.emplace(std::move(race));
        return true;
      }
    }
    st.exec = std::move(e);
    return true;
  }

  PlanState<T> make_plan(const plan::Problem& problem_in, const plan::Options& options) {
    const auto t0 = Clock::now();
    PlanState<T> st;
    plan::Problem p = problem_in;
    plan::Report& r = st.report;
    // 64-bit offsets: the model has no fit for the 64-bit kernels (nor features there), and the few
    // candidates with a 64-bit path cost little to time next to a product of billions of nonzeros.
    plan::Options o = options;
    if (wide && (o.mode == plan::Mode::Auto || o.mode == plan::Mode::Model)) {
      o.mode = plan::Mode::Measure;
      r.auto_reason =
          "64-bit offsets: the model has no fit for the 64-bit kernels, so the candidates with a "
          "64-bit path are timed";
    }
    r.mode = o.mode;
    r.device = ctx->props().name;
    r.expected_calls = o.expected_calls;
    // The cache's key has no offset width: 64-bit plans are neither read nor written there.
    st.cache_path = wide ? std::string() : plan::cache_path(o);
    st.cache_key = {stats.fingerprint, ctx->props().name, static_cast<int>(sizeof(T)), p.op,
                    p.cols_dense,      p.layout};

    const model::Profile* profile = o.mode == plan::Mode::Rule ? nullptr : profile_load.get();
    if (light_plan(st, p, o, profile)) {
      r.planning_us = us_since(t0);
      return st;
    }
    // The formats' host-side inputs, after the light plan (which needs none) and inside the planning
    // time (sampled to budgets: 1-3 ms on the H200 host at 6-29M nonzeros).
    if (!wide) {
      const auto t_extras = Clock::now();
      plan::fill_host_extras(host, extras, p);
      r.extras_us = us_since(t_extras);
    }
    if (o.mode != plan::Mode::Rule && !wide) {
      p.features = ensure_features();
      r.features_us = features_us;
    }
    if (profile != nullptr) r.profile = profile->device.name;
    std::vector<plan::Candidate> cands =
        plan::candidates(p, o, basics_of(ctx->props(), profile), free_device_bytes());

    // The report's problem (features dropped: they are large) and the planning time.
    const auto finish = [&] {
      p.features.reset();
      r.problem = p;
      r.planning_us = us_since(t0);
    };
    // A plan made elsewhere (another matrix's, the cache's): its kernel built with its knobs, first
    // in the report whatever the ranking says, since it was measured on this structure. False when
    // the kernel is not a candidate here (or not eligible, where that is required) or refuses.
    const auto adopt = [&](const std::string& kernel, const plan::Knobs& knobs, double measured_us,
                           const char* decided_by, bool require_eligible) {
      const auto it = std::find_if(cands.begin(), cands.end(), [&](const plan::Candidate& c) {
        return c.kernel == kernel && (c.eligible || !require_eligible);
      });
      if (it == cands.end()) return false;
      auto e = build(p, *it, knobs);
      if (!e) return false;
      it->measured_us = measured_us;
      const plan::Candidate adopted = *it;
      plan::rank(cands, p, o, profile);
      const auto now = std::find_if(cands.begin(), cands.end(),
                                    [&](const plan::Candidate& c) { return c.kernel == kernel; });
      *now = adopted;
      std::rotate(cands.begin(), now, now + 1);
      r.candidates = std::move(cands);
      r.chosen = 0;
      r.decided_by = decided_by;
      r.setup_us = r.candidates[0].setup_us;
      st.exec = std::move(e);
      finish();
      return true;
    };

    // A plan another matrix of this structure made, checked to fit.
    if (o.reuse != nullptr) {
      const plan::Report& from = *o.reuse;
      const plan::Problem& q = from.problem;
      std::string differs;
      if (q.stats.fingerprint != stats.fingerprint)
        differs = fmt::format("it was made for another structure (fingerprint {:016x}, this matrix {:016x})",
                              q.stats.fingerprint, stats.fingerprint);
      else if (from.device.rfind(ctx->props().name, 0) != 0)
        differs = fmt::format("it was made on {}, this is {}", from.device, ctx->props().name);
      else if (q.value_bytes != p.value_bytes || q.op != p.op || q.cols_dense != p.cols_dense ||
               q.layout != p.layout)
        differs = "it was made for another precision, operation, L or layout";
      if (!differs.empty()) throw Error("the plan to reuse does not fit: " + differs);
      const plan::Candidate& w = from.winner();
      if (!adopt(w.kernel, w.knobs, w.measured_us, "reused", false)) {
        const auto c = std::find_if(cands.begin(), cands.end(),
                                    [&](const plan::Candidate& x) { return x.kernel == w.kernel; });
        throw Error(c == cands.end()
                        ? fmt::format("the plan to reuse names an unknown candidate '{}'", w.kernel)
                        : fmt::format("the plan to reuse ({}) cannot run here: {}", w.kernel, c->why_not));
      }
      return st;
    }

    // A plan from the tuning cache: the same structure, device, precision, operation, L and layout.
    if (!st.cache_path.empty())
      if (auto hit = plan::TuningCache(st.cache_path).find(st.cache_key))
        if (adopt(hit->kernel, hit->knobs, hit->us, "cache", true)) return st;

    plan::rank(cands, p, o, profile);
    r.decided_by = (o.mode == plan::Mode::Rule || profile == nullptr) ? "rule" : "model";
    std::unique_ptr<detail::Executor<T>> chosen;
    bool timing = o.mode == plan::Mode::Measure || o.mode == plan::Mode::Tune;
    int measure_top = o.measure_top;
    plan::AutoDecision ad;
    if (o.mode == plan::Mode::Auto) {  // model, measure or race, by the value of timing (decide_auto)
      ad = plan::decide_auto(cands, o);
      r.auto_reason = ad.why;
      timing = ad.measure;
      measure_top = ad.time_top;
    }
    if (ad.race) {
      // The top candidates built now, raced on the caller's first calls (run_race); a candidate that
      // does not build drops out. Fewer than two: the model's ranking, as below.
      detail::Race<T> race;
      for (std::size_t i = 0; i < cands.size() && static_cast<int>(race.entries.size()) < ad.time_top; ++i) {
        if (!cands[i].eligible) continue;
        if (auto e = build(p, cands[i], {})) race.entries.push_back({cands[i].kernel, std::move(e), {}});
      }
      if (race.entries.size() >= 2) {
        race.schedule(ad.race_samples);
        r.candidates = std::move(cands);
        r.chosen = 0;
        r.setup_us = r.candidates[0].setup_us;
        r.decided_by = "racing";
        r.frozen = false;
        st.race.emplace(std::move(race));
        finish();
        return st;
      }
      if (race.entries.size() == 1 && race.entries[0].kernel == cands[0].kernel)
        chosen = std::move(race.entries[0].exec);
      plan::rank(cands, p, o, profile);  // a refusal made a candidate ineligible
    }
    if (timing) {
      // Time the ranked top candidates once; keep the best per call with its setup amortised.
      std::vector<std::unique_ptr<detail::Executor<T>>> built(cands.size());
      Scratch scratch = make_scratch(p);
      int timed = 0;
      // A candidate whose estimated setup alone, spread over the expected calls, already costs more
      // than the best score timed so far cannot win: it is not built (a host conversion of a matrix
      // of a billion nonzeros takes tens of seconds).
      const double calls = static_cast<double>(std::max<int64_t>(o.expected_calls, 1));
      double best_score = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < cands.size() && timed < std::max(1, measure_top); ++i) {
        if (!cands[i].eligible || cands[i].setup_us / calls >= best_score) continue;
        built[i] = build(p, cands[i], {});
        if (!built[i]) continue;
        try {
          cands[i].measured_us = time_us(p, scratch, *built[i]);
        } catch (const Error& err) {  // refused on these operands (e.g. cuSPARSE's alignment rules)
          cands[i].eligible = false;
          cands[i].why_not = err.what();
          built[i].reset();
          continue;
        }
        best_score = std::min(best_score, cands[i].measured_us + cands[i].setup_us / calls);
        ++timed;
      }
      std::vector<std::pair<std::string, std::unique_ptr<detail::Executor<T>>>> keep;
      for (std::size_t i = 0; i < cands.size(); ++i)
        if (built[i]) keep.emplace_back(cands[i].kernel, std::move(built[i]));
      plan::rank(cands, p, o, profile);
      for (auto& [kernel, e] : keep)
        if (kernel == cands[0].kernel) chosen = std::move(e);
      keep.clear();  // frees the losers' converted matrices
      r.decided_by = "measured";
    }
    // Rule/model: build the best-ranked candidate that builds (a refusal moves to the next).
    for (std::size_t i = 0; !chosen && i < cands.size() && cands[i].eligible; ++i) {
      chosen = build(p, cands[i], {});
      if (!chosen) {
        plan::rank(cands, p, o, profile);  // it became ineligible: re-sort, retry from the top
        i = static_cast<std::size_t>(-1);
      }
    }
    if (!chosen)
      throw Error(fmt::format("no candidate can run this product ({} x {}, {} nonzeros): {}", stats.rows,
                              stats.cols, stats.nnz, plan::why_none(cands)));
    r.chosen = 0;
    r.setup_us = cands[0].setup_us;
    if (o.mode == plan::Mode::Tune) {
      auto ladders = plan::tuning_ladders(cands[0].kernel);
      if (!ladders.empty()) {
        st.tuner.emplace(chosen->knobs(), std::move(ladders), std::max(1, o.tune_calls), 0.02, 0.4,
                         plan::tuning_openers(cands[0].kernel));
        r.frozen = false;
      }
    }
    st.exec = std::move(chosen);
    r.candidates = std::move(cands);
    finish();
    if (r.frozen && r.decided_by == "measured") save_to_cache(st);
    return st;
  }

  void save_to_cache(const PlanState<T>& st) {
    if (st.cache_path.empty()) return;
    // Matrices planned on several host threads (one per GPU of a team) share the file: one
    // read-modify-write at a time.
    static std::mutex file_mutex;
    std::lock_guard<std::mutex> lock(file_mutex);
    plan::TuningCache cache(st.cache_path);
    const plan::Candidate& w = st.report.winner();
    cache.put(st.cache_key, {w.kernel, st.exec->knobs(), w.measured_us, st.report.decided_by, {}});
    cache.save();
  }

  // One planned call; with a tuner, the trial configurations are timed on real calls, and a race
  // its contenders.
  template <class Run>
  void run(PlanState<T>& st, Run&& launch) {
    if (st.race) {
      if (!st.race->finished) return run_race(st, launch);
      // The losers are freed on the first call outside a graph capture (no cudaFree inside one).
      if (!capturing(ctx->stream())) st.race.reset();
    }
    if (!st.tuner || st.tuner->frozen()) return launch(*st.exec);
    plan::Tuner& tuner = *st.tuner;
    const cudaStream_t s = ctx->stream();
    if (st.pending) {
      const cudaError_t q = cudaEventQuery(st.stop.get());
      if (q == cudaErrorNotReady) return launch(*st.exec);  // still running: read it next call
      SPX_CUDA_CHECK(q);
      float ms = 0;
      SPX_CUDA_CHECK(cudaEventElapsedTime(&ms, st.start.get(), st.stop.get()));
      st.pending = false;
      tuner.report(1e3 * ms);
      ++st.report.tuner_calls;
    }
    if (tuner.frozen() || capturing(s)) return freeze(st, launch);
    if (!st.exec->set_knobs(*ctx, tuner.next())) {
      tuner.report(std::numeric_limits<double>::infinity());
      if (tuner.frozen()) return freeze(st, launch);
      (void)st.exec->set_knobs(*ctx, tuner.best());
      return launch(*st.exec);
    }
    SPX_CUDA_CHECK(cudaEventRecord(st.start.get(), s));
    launch(*st.exec);
    SPX_CUDA_CHECK(cudaEventRecord(st.stop.get(), s));
    st.pending = true;
  }

  // A call while racing: read the trials that finished (in order, never waiting), then launch the
  // next contender in turn between an event pair; when every trial was read (or a graph is being
  // captured, where events cannot time), keep the fastest and free the others.
  template <class Run>
  void run_race(PlanState<T>& st, Run&& launch) {
    detail::Race<T>& race = *st.race;
    const cudaStream_t s = ctx->stream();
    const bool capture = capturing(s);
    while (!capture && race.read < race.launched) {
      auto& t = race.trials[race.read];
      const cudaError_t q = cudaEventQuery(t.stop.get());
      if (q == cudaErrorNotReady) break;
      SPX_CUDA_CHECK(q);
      float ms = 0;
      SPX_CUDA_CHECK(cudaEventElapsedTime(&ms, t.start.get(), t.stop.get()));
      if (t.timed) race.entries[t.entry].us.push_back(1e3 * ms);
      ++race.read;
    }
    if (capture || race.done()) return finish_race(st, launch);
    if (race.launched == race.trials.size()) return launch(*race.entries[0].exec);  // times not back yet
    auto& t = race.trials[race.launched++];
    SPX_CUDA_CHECK(cudaEventRecord(t.start.get(), s));
    launch(*race.entries[t.entry].exec);
    SPX_CUDA_CHECK(cudaEventRecord(t.stop.get(), s));
    ++st.report.tuner_calls;
  }

  template <class Run>
  void finish_race(PlanState<T>& st, Run&& launch) {
    detail::Race<T>& race = *st.race;
    plan::Report& r = st.report;
    const std::size_t w = race.winner();
    const double calls = static_cast<double>(std::max<int64_t>(r.expected_calls, 1));
    for (auto& e : race.entries) {
      auto c = std::find_if(r.candidates.begin(), r.candidates.end(),
                            [&](const plan::Candidate& x) { return x.kernel == e.kernel; });
      if (c == r.candidates.end()) continue;
      c->measured_us = detail::Race<T>::median(e.us);
      if (!std::isnan(c->measured_us)) c->score = c->measured_us + c->setup_us / calls;
    }
    // The winner first, as the report lists the chosen candidate; the rest keep the model's order.
    const auto it = std::find_if(r.candidates.begin(), r.candidates.end(), [&](const plan::Candidate& x) {
      return x.kernel == race.entries[w].kernel;
    });
    if (it != r.candidates.end()) std::rotate(r.candidates.begin(), it, it + 1);
    r.chosen = 0;
    r.setup_us = r.candidates[0].setup_us;
    st.exec = std::move(race.entries[w].exec);
    const bool timed = !race.entries[w].us.empty();
    race.finished = true;
    if (!capturing(ctx->stream())) st.race.reset();  // frees the other contenders' matrices
    r.decided_by = timed ? "raced" : race.untimed_decided_by;
    r.frozen = true;
    if (timed) save_to_cache(st);
    launch(*st.exec);
  }

  template <class Run>
  void freeze(PlanState<T>& st, Run&& launch) {
    plan::Tuner& tuner = *st.tuner;
    if (!st.exec->set_knobs(*ctx, tuner.best()))
      throw Error(
          fmt::format("the tuner's best configuration ({}) was refused", plan::to_string(tuner.best())));
    plan::Candidate& w = st.report.candidates[st.report.chosen];
    w.params = st.exec->describe();
    w.knobs = st.exec->knobs();
    if (std::isfinite(tuner.best_us())) w.measured_us = tuner.best_us();
    st.report.frozen = true;
    st.report.decided_by = "tuned";
    st.tuner.reset();
    save_to_cache(st);
    launch(*st.exec);
  }

  plan::Problem problem(plan::Operation op, int64_t L, plan::DenseLayout layout) const {
    plan::Problem p;
    p.op = op;
    p.cols_dense = L;
    p.layout = layout;
    p.value_bytes = static_cast<int>(sizeof(T));
    p.stats = stats;
    if (wide) {
      // The host extras need the host matrix: only the column spans and the distinct values, taken
      // while it was there (none for a matrix assembled on the device), and of the features the SELL
      // slots (from the row pointer), what the SELL-C16 rows read. The model is not used at 64 bits.
      p.offset_bits = 64;
      p.column_spans = extras.column_spans;
      p.distinct_values = extras.distinct_values;
      MatrixFeatures f;
      f.rows = stats.rows;
      f.cols = stats.cols;
      f.nnz = stats.nnz;
      f.sell_slots = sell_c16_slots(std::span<const int64_t>(wide_row_ptr));
      p.features = f;
      return p;
    }
    // The host extras are added by make_plan (timed, and only where a plan ranks candidates).
    return p;
  }
};

template <class T>
SparseMatrix<T>::SparseMatrix(Context& ctx, Csr<T, int32_t> A, plan::IndexWidth width)
    : impl_(std::make_unique<Impl>()) {
  impl_->attach(ctx);
  if (plan::offset_bits(width, A.rows, A.cols, A.nnz()) == 64) {
    impl_->hold_wide(A);
    return;
  }
  impl_->hold_narrow(std::move(A));
}

template <class T>
SparseMatrix<T>::SparseMatrix(Context& ctx, const Csr<T, int64_t>& A, plan::IndexWidth width)
    : impl_(std::make_unique<Impl>()) {
  impl_->attach(ctx);
  if (plan::offset_bits(width, A.rows, A.cols, A.nnz()) == 64) {
    impl_->hold_wide(A);
    return;
  }
  impl_->hold_narrow(cast<T, int32_t>(A));  // cast validates; it fits (offset_bits said so)
}

template <class T>
SparseMatrix<T>::SparseMatrix(Context& ctx, Csr<T, int64_t>&& A, plan::IndexWidth width)
    : impl_(std::make_unique<Impl>()) {
  impl_->attach(ctx);
  // The caller's matrix is freed as soon as it is read, so it is never held twice.
  if (plan::offset_bits(width, A.rows, A.cols, A.nnz()) == 64) {
    impl_->hold_wide(A);
    A = Csr<T, int64_t>();
    return;
  }
  Csr<T, int32_t> narrow = cast<T, int32_t>(A);
  A = Csr<T, int64_t>();
  impl_->hold_narrow(std::move(narrow));
}

template <class T>
SparseMatrix<T>::SparseMatrix(Context& ctx, WideDeviceCsr<T> A) : impl_(std::make_unique<Impl>()) {
  impl_->attach(ctx);
  if (A.rows < 0 || A.cols < 0 || A.nnz < 0 || A.row_ptr.size() != static_cast<std::size_t>(A.rows) + 1 ||
      A.col_idx.size() != static_cast<std::size_t>(A.nnz) ||
      A.values.size() != static_cast<std::size_t>(A.nnz))
    throw Error(
        fmt::format("a device CSR of {} x {} with {} nonzeros has {} row offsets, {} columns and {} "
                    "values",
                    A.rows, A.cols, A.nnz, A.row_ptr.size(), A.col_idx.size(), A.values.size()));
  std::vector<int64_t> row_ptr(A.row_ptr.size());
  copy_to_host_sync(ctx, row_ptr.data(), A.row_ptr.data(), A.row_ptr.bytes());
  // The structure's checks a kernel relies on that the row pointer alone allows (the columns were
  // checked where the matrix was assembled: upload_wide, upload_row_blocks).
  if (row_ptr.front() != 0 || row_ptr.back() != A.nnz)
    throw Error(fmt::format("a device CSR's row offsets run from {} to {}, not from 0 to its {} nonzeros",
                            row_ptr.front(), row_ptr.back(), A.nnz));
  for (std::size_t r = 0; r + 1 < row_ptr.size(); ++r)
    if (row_ptr[r + 1] < row_ptr[r])
      throw Error(fmt::format("a device CSR's row offsets decrease at row {} ({} then {})", r, row_ptr[r],
                              row_ptr[r + 1]));
  impl_->stats = csr_row_length_stats(A.rows, A.cols, std::span<const int64_t>(row_ptr));
  impl_->stats.fingerprint = row_length_fingerprint(A.rows, A.cols, row_ptr);
  impl_->wide.emplace(std::move(A));
  impl_->wide_row_ptr = std::move(row_ptr);
}

template <class T>
SparseMatrix<T>::~SparseMatrix() = default;
template <class T>
SparseMatrix<T>::SparseMatrix(SparseMatrix&&) noexcept = default;
template <class T>
SparseMatrix<T>& SparseMatrix<T>::operator=(SparseMatrix&&) noexcept = default;

template <class T>
int64_t SparseMatrix<T>::rows() const {
  return impl_->stats.rows;
}
template <class T>
int64_t SparseMatrix<T>::cols() const {
  return impl_->stats.cols;
}
template <class T>
int64_t SparseMatrix<T>::nnz() const {
  return impl_->stats.nnz;
}
template <class T>
int SparseMatrix<T>::offset_bits() const {
  return impl_->wide ? 64 : 32;
}
template <class T>
std::size_t SparseMatrix<T>::device_bytes() const {
  return impl_->wide ? impl_->wide->bytes() : impl_->device.bytes();
}
template <class T>
const WideDeviceCsr<T>& SparseMatrix<T>::wide_csr() const {
  if (!impl_->wide) throw Error("wide_csr(): this matrix has 32-bit row offsets (csr() holds it)");
  return *impl_->wide;
}
template <class T>
const MatrixStats& SparseMatrix<T>::stats() const {
  return impl_->stats;
}
template <class T>
const Csr<T, int32_t>& SparseMatrix<T>::host() const {
  if (impl_->wide) throw Error("host(): a matrix with 64-bit row offsets keeps no host copy");
  return impl_->host;
}
template <class T>
const DeviceCsr<T, int32_t>& SparseMatrix<T>::csr() const {
  if (impl_->wide) throw Error("csr(): this matrix has 64-bit row offsets (wide_csr() holds it)");
  return impl_->device;
}
template <class T>
Context& SparseMatrix<T>::context() const {
  return *impl_->ctx;
}
template <class T>
const MatrixFeatures& SparseMatrix<T>::features() {
  return impl_->ensure_features();
}

template <class T>
const plan::Report& SparseMatrix<T>::plan_spmv(const plan::Options& options) {
  impl_->spmv.reset();  // the old plan's memory is released before the new one is built
  impl_->spmv.emplace(
      impl_->make_plan(impl_->problem(plan::Operation::Spmv, 0, plan::DenseLayout::RowMajor), options));
  return impl_->spmv->report;
}

template <class T>
const plan::Report& SparseMatrix<T>::plan_spmm(int64_t cols_dense, plan::DenseLayout layout,
                                               const plan::Options& options) {
  if (cols_dense < 1) throw Error(fmt::format("an SpMM plan needs L >= 1 dense columns, got {}", cols_dense));
  const auto key = std::make_pair(cols_dense, static_cast<int>(layout));
  impl_->spmm.erase(key);
  auto [it, _] = impl_->spmm.emplace(
      key, impl_->make_plan(impl_->problem(plan::Operation::Spmm, cols_dense, layout), options));
  return it->second.report;
}

template <class T>
const plan::Report* SparseMatrix<T>::spmv_report() const {
  return impl_->spmv ? &impl_->spmv->report : nullptr;
}

template <class T>
const plan::Report* SparseMatrix<T>::spmm_report(int64_t cols_dense, plan::DenseLayout layout) const {
  const auto it = impl_->spmm.find(std::make_pair(cols_dense, static_cast<int>(layout)));
  return it == impl_->spmm.end() ? nullptr : &it->second.report;
}

template <class T>
void spmv(Context& ctx, SparseMatrix<T>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  auto& m = A.impl();
  if (&ctx != m.ctx) throw Error("spmv: the context is not the one the matrix was created with");
  if (static_cast<int64_t>(x.size()) != A.cols() || static_cast<int64_t>(y.size()) != A.rows())
    throw Error(fmt::format("spmv: A is {} x {} but x has {} entries and y {}", A.rows(), A.cols(), x.size(),
                            y.size()));
  // Every candidate (cuSPARSE's too) would write y while reading x: refused, not computed in place.
  check_spmv_operands<T>("spmv", A.rows(), A.cols(), x, y);
  if (!m.spmv) A.plan_spmv();
  m.run(*m.spmv, [&](detail::Executor<T>& e) { e.spmv(ctx, x, y, alpha, beta); });
}

template <class T>
void spmm(Context& ctx, SparseMatrix<T>& A, DenseView<const T> B, DenseView<T> C, T alpha, T beta) {
  auto& m = A.impl();
  if (&ctx != m.ctx) throw Error("spmm: the context is not the one the matrix was created with");
  if (B.rows != A.cols() || C.rows != A.rows() || B.cols != C.cols)
    throw Error(fmt::format("spmm: A is {} x {}, B {} x {}, C {} x {}", A.rows(), A.cols(), B.rows, B.cols,
                            C.rows, C.cols));
  if (B.layout != C.layout) throw Error("spmm: B and C must have the same layout");
  detail::check_spmm_operands("spmm", A.rows(), A.cols(), detail::shape_of(B), detail::shape_of(C),
                              sizeof(T));
  const Layout layout = B.layout;
  if (B.cols == 0) return;  // nothing to multiply: C has no columns
  auto it = m.spmm.find(std::make_pair(B.cols, static_cast<int>(layout)));
  if (it == m.spmm.end()) {
    A.plan_spmm(B.cols, layout);
    it = m.spmm.find(std::make_pair(B.cols, static_cast<int>(layout)));
  }
  m.run(it->second, [&](detail::Executor<T>& e) { e.spmm(ctx, B, C, alpha, beta); });
}

template class SparseMatrix<float>;
template class SparseMatrix<double>;
template void spmv(Context&, SparseMatrix<float>&, std::span<const float>, std::span<float>, float, float);
template void spmv(Context&, SparseMatrix<double>&, std::span<const double>, std::span<double>, double,
                   double);
template void spmm(Context&, SparseMatrix<float>&, DenseView<const float>, DenseView<float>, float, float);
template void spmm(Context&, SparseMatrix<double>&, DenseView<const double>, DenseView<double>, double,
                   double);

}  // namespace spx::cuda
