#include "wide_product.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench/check.hpp"
#include "bench/footprint.hpp"
#include "bench/provenance.hpp"
#include "bench/report.hpp"
#include "bench/traffic.hpp"
#include "common/wall_clock.hpp"
#include "spx/cuda/device.hpp"
#include "spx/error.hpp"
#include "spx/matrix.hpp"
#ifdef SPX_HAVE_CUDA
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/cuda/timing.hpp"
#endif

namespace spx::cli {

void refuse_beside_wide(const std::string& option, plan::IndexWidth width) {
  if (width == plan::IndexWidth::Bits64)
    throw Error(
        fmt::format("{} runs with 32-bit indices; --index 64 runs the planned product on the GPU: drop {}",
                    option, option));
  throw Error(fmt::format(
      "{} runs with 32-bit indices, and this matrix needs 64-bit ones (past 2^31 - 1 nonzeros), which only "
      "the planned product on the GPU has: drop {}",
      option, option));
}

#ifdef SPX_HAVE_CUDA
namespace {

using json = nlohmann::ordered_json;

// The rows checked: the first, the last and this many drawn at random (a fixed seed, so a failure
// repeats); every row when the matrix has no more.
constexpr int64_t kSampledRows = 2048;
constexpr uint64_t kSampleSeed = 7;
// x and B: uniform in [-1, 1) from this seed (never all zero, as the engine's inputs).
constexpr uint64_t kInputSeed = 1;
// The device copy that measures the bandwidth the minimum traffic is compared with.
constexpr std::size_t kCopyBandwidthBytes = std::size_t{256} << 20;
// The most products a tuning plan (--plan tune, a race) runs before it is timed frozen, as the
// benchmark's spx_auto entry allows.
constexpr int kMaxTrialCalls = 4096;

using spx::detail::seconds_since;

std::vector<int64_t> sampled_rows(int64_t rows) {
  std::vector<int64_t> sample;
  if (rows <= kSampledRows + 2) {
    for (int64_t r = 0; r < rows; ++r) sample.push_back(r);
    return sample;
  }
  std::mt19937_64 rng(kSampleSeed);
  sample = {0, rows - 1};
  for (int64_t s = 0; s < kSampledRows; ++s)
    sample.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(rows)));
  std::sort(sample.begin(), sample.end());
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  return sample;
}

// A's rows `sample`, in that order, as a matrix of their own (A's columns): the host reference's
// input, kept while A itself goes to the device.
template <class T>
Csr<T, int64_t> rows_of(const Csr<T, int64_t>& A, const std::vector<int64_t>& sample) {
  Csr<T, int64_t> S(static_cast<int64_t>(sample.size()), A.cols);
  for (std::size_t s = 0; s < sample.size(); ++s) {
    const int64_t r = sample[s];
    for (int64_t k = A.row_ptr[static_cast<std::size_t>(r)]; k < A.row_ptr[static_cast<std::size_t>(r) + 1];
         ++k) {
      S.col_idx.push_back(A.col_idx[static_cast<std::size_t>(k)]);
      S.values.push_back(A.values[static_cast<std::size_t>(k)]);
    }
    S.row_ptr[s + 1] = static_cast<int64_t>(S.col_idx.size());
  }
  return S;
}

// Host memory for what this path holds beside the matrix (x or B): refused with the numbers
// before it is allocated.
void require_host_memory(uint64_t bytes, const std::string& what) {
  const uint64_t available = bench::host_memory_available();
  if (available > 0 && bytes > available)
    throw Error(fmt::format("{} needs {} of host memory, {} available", what, human_bytes(bytes),
                            human_bytes(available)));
}

cuda::TimingOptions timing_options(int repeat) {
  cuda::TimingOptions t;  // the benchmark engine's policy (bench/timing.hpp): >= 10 runs and 0.2 s
  t.min_runs = 10;
  t.min_seconds = 0.2;
  if (repeat > 0) {
    t.warmup = 1;
    t.min_runs = repeat;
    t.max_runs = repeat;
    t.min_seconds = 0;
  }
  return t;
}

template <class T>
void run(const WideProduct& w) {
  const bool spmm = w.dense_cols > 0;
  const int64_t L = spmm ? w.dense_cols : 1;
  const char* precision = sizeof(T) == 4 ? "f32" : "f64";
  std::ostream& out = human_output(w.json_path);

  auto t0 = std::chrono::steady_clock::now();
  Csr<T, int64_t> A = bench::load_matrix<T, int64_t>(w.source);
  const double load_s = seconds_since(t0);
  const int64_t rows = A.rows, cols = A.cols, nnz = A.nnz();
  const std::vector<int64_t> sample = sampled_rows(rows);
  const Csr<T, int64_t> sampled = rows_of(A, sample);

  // x (SpMV) or B (SpMM, row-major): cols × L on the host, kept for the check.
  require_host_memory(static_cast<uint64_t>(cols) * static_cast<uint64_t>(L) * sizeof(T),
                      fmt::format("{} ({} x {}, {})", spmm ? "B" : "x", cols, L, precision));
  Dense<T> B(cols, L, Layout::RowMajor);
  {
    std::mt19937_64 rng(kInputSeed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (T& v : B.data) v = static_cast<T>(uniform(rng));
  }

  cuda::Context ctx;
  // Before the matrix takes its share of the device memory.
  const double copy_gbs = cuda::measure_copy_bandwidth(ctx, kCopyBandwidthBytes).gbs;
  t0 = std::chrono::steady_clock::now();
  cuda::SparseMatrix<T> M(ctx, std::move(A), w.width);
  auto dB = cuda::make_device_dense<T>(cols, L, Layout::RowMajor);
  auto dC = cuda::make_device_dense<T>(rows, L, Layout::RowMajor);
  if (dB.ld != B.ld) throw Error("the device B's leading dimension differs from the host's");
  cuda::copy_to_device_sync(ctx, dB.data.data(), B.data.data(), B.data.size() * sizeof(T));
  const cuda::DenseView<const T> b = cuda::view(static_cast<const cuda::DeviceDense<T>&>(dB));
  const cuda::DenseView<T> c = cuda::view(dC);

  plan::Options options;
  options.mode = plan::mode_from_string(w.planned.plan);
  options.expected_calls = w.planned.expected_calls;
  options.tuning_cache = w.planned.tuning_cache.empty() ? std::string("-") : w.planned.tuning_cache;
  const auto launch = [&] {
    if (spmm)
      cuda::spmm(ctx, M, b, c);
    else
      cuda::spmv(ctx, M, std::span<const T>(b.data, static_cast<std::size_t>(cols)),
                 std::span<T>(c.data, static_cast<std::size_t>(rows)));
  };
  const auto report = [&]() -> const plan::Report* {
    return spmm ? M.spmm_report(L, plan::DenseLayout::RowMajor) : M.spmv_report();
  };
  if (spmm)
    (void)M.plan_spmm(L, plan::DenseLayout::RowMajor, options);
  else
    (void)M.plan_spmv(options);
  // A tuning plan or a race times real calls until it freezes; the frozen plan is what is timed.
  for (int i = 0; i < kMaxTrialCalls && !report()->frozen; ++i) {
    launch();
    ctx.synchronize();
  }
  ctx.synchronize();
  const double setup_ms = 1e3 * seconds_since(t0);
  const plan::Report& r = *report();

  // The checked run: the sampled rows of the output poisoned with NaN first, so a row the product
  // leaves unwritten fails.
  const std::vector<T> poison(static_cast<std::size_t>(L), std::numeric_limits<T>::quiet_NaN());
  const auto row_bytes = static_cast<std::size_t>(L) * sizeof(T);
  for (const int64_t row : sample)
    cuda::copy_to_device_sync(ctx, c.data + row * c.ld, poison.data(), row_bytes);
  launch();
  ctx.synchronize();
  Dense<T> got(static_cast<int64_t>(sample.size()), L, Layout::RowMajor);
  for (std::size_t s = 0; s < sample.size(); ++s)
    cuda::copy_to_host_sync(ctx, got.data.data() + s * static_cast<std::size_t>(L), c.data + sample[s] * c.ld,
                            row_bytes);
  const bench::CheckResult check =
      spmm ? bench::check_spmm(sampled, B, bench::OutputView(got))
           : bench::check_spmv(sampled, std::span<const T>(B.data), bench::OutputView(got));

  const Timing t = cuda::time_kernel(ctx, launch, timing_options(w.repeat));
  // The CSR's bytes as the benchmark counts them (32-bit columns), plus 4 bytes a row pointer at 64
  // bits.
  bench::Traffic traffic = spmm ? bench::spmm_traffic(rows, cols, nnz, L, sizeof(T), 4)
                                : bench::spmv_traffic(rows, cols, nnz, sizeof(T), 4);
  if (M.offset_bits() == 64) {
    traffic.effective_bytes += 4.0 * static_cast<double>(rows + 1);
    traffic.minimum_bytes += 4.0 * static_cast<double>(rows + 1);
  }
  const double seconds = t.median_ms * 1e-3;
  const double gbs = traffic.effective_bytes / seconds / 1e9, gbs_min = traffic.minimum_bytes / seconds / 1e9;
  const double gflops = traffic.flops / seconds / 1e9;

  const MatrixStats& st = M.stats();
  const plan::Candidate& winner = r.winner();
  fmt::print(out,
             "{:<11}{}  {} x {}, {} nonzeros (row length {}/{:.1f}/{} min/avg/max), read with 64-bit indices "
             "in {:.2f} s\n",
             "matrix", w.source.name, rows, cols, nnz, st.min_row, st.avg_row, st.max_row, load_s);
  fmt::print(
      out, "{:<11}spx_auto  (cuda, {}, {}{}-bit row offsets, mode {}, chosen {} ({}) by {}, decided by {})\n",
      "kernel", precision, spmm ? fmt::format("L = {} row-major, ", L) : std::string(), M.offset_bits(),
      plan::to_string(r.mode), winner.kernel, winner.params, winner.owner, r.decided_by);
  if (w.planned.explain) fmt::print(out, "{}", r.explain());
  fmt::print(out,
             "{:<11}{:.4f} ms median, {:.4f} min, {:.4f} max over {} runs (setup {:.1f} ms, not timed)\n",
             "time", t.median_ms, t.min_ms, t.max_ms, t.runs, setup_ms);
  fmt::print(
      out,
      "{:<11}{:.2f} GB/s effective (Reguly-Giles eq. 2), {:.2f} GB/s minimum traffic (eq. 4) = {:.0f}% of "
      "the measured copy bandwidth {:.1f} GB/s\n",
      "bandwidth", gbs, gbs_min, copy_gbs > 0 ? 100 * gbs_min / copy_gbs : 0.0, copy_gbs);
  fmt::print(out, "{:<11}{:.3f} GFLOP/s (2 flops per nonzero{})\n", "compute", gflops,
             spmm ? " and column" : "");
  const std::string rows_checked =
      static_cast<int64_t>(sample.size()) == rows
          ? fmt::format("all {} rows", rows)
          : fmt::format("{} sampled rows (first, last, {} random)", sample.size(), kSampledRows);
  fmt::print(out, "{:<11}{} on {}: worst error {:.2g} of the rounding-error bound, relative error {:.2g}\n",
             "check", check.passed ? "ok, matches spx::ref" : "FAILED against spx::ref", rows_checked,
             check.worst_ratio, check.relative_error);

  if (!w.json_path.empty()) {
    json j;
    j["schema"] = "spx-wide-product-1";
    j["commit"] = bench::source_commit();
    j["date"] = bench::utc_now_iso8601();
    j["device"] = cuda::query_device(0).name;
    j["copy_gbs"] = copy_gbs;
    j["matrix"] = {{"name", w.source.name},          {"rows", rows},          {"cols", cols}, {"nnz", nnz},
                   {"offset_bits", M.offset_bits()}, {"load_seconds", load_s}};
    j["op"] = spmm ? "spmm" : "spmv";
    if (spmm) {
      j["cols_dense"] = L;
      j["layout"] = "row";
    }
    j["precision"] = precision;
    j["index"] = plan::to_string(w.width);
    j["plan"] = {{"mode", plan::to_string(r.mode)}, {"chosen", winner.kernel},
                 {"owner", winner.owner},           {"config", winner.params},
                 {"decided_by", r.decided_by},      {"expected_calls", r.expected_calls},
                 {"planning_us", r.planning_us},    {"setup_us", r.setup_us}};
    if (w.planned.explain) j["plan"]["explain"] = r.explain();
    j["timing"] = {{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms}, {"runs", t.runs}};
    j["gbs"] = gbs;
    j["gbs_min"] = gbs_min;
    j["gflops"] = gflops;
    j["check"] = {{"rows", sample.size()},
                  {"passed", check.passed},
                  {"worst_ratio", check.worst_ratio},
                  {"max_error", check.max_error},
                  {"relative_error", check.relative_error}};
    bench::write_json(w.json_path, j);
  }
  if (!check.passed)
    throw Error(
        fmt::format("spx_auto at {}-bit row offsets: the result does not match spx::ref on {} (worst error "
                    "{:.3g} times the bound)",
                    M.offset_bits(), rows_checked, check.worst_ratio));
}

}  // namespace
#endif

void run_wide_product(const WideProduct& w) {
  if (w.precision != "f32" && w.precision != "f64")
    throw Error(fmt::format("--precision {}: choose f32 or f64", w.precision));
#ifdef SPX_HAVE_CUDA
  if (cuda::device_count() == 0)
    throw Error(fmt::format("at 64-bit indices, spx {} runs the planned product on the GPU: {}", w.command,
                            cuda::gpu_unavailable_reason()));
  if (w.precision == "f32")
    run<float>(w);
  else
    run<double>(w);
#else
  throw Error(
      fmt::format("at 64-bit indices, spx {} runs the planned product on the GPU, and this spx was built "
                  "without CUDA",
                  w.command));
#endif
}

}  // namespace spx::cli
