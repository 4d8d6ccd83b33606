// spx spmm FILE|SPEC --cols L : one sparse x dense product C = A*B on the GPU, timed and checked
// against spx::ref's arithmetic. Device-resident by default (B and C on the GPU; our kernel and
// cuSPARSE's best side by side), or --host-resident: B and C stay in host memory and stream through
// the GPU in column chunks (FastSpMM* with --streams 1, FastSpMM with more; --compare runs both and
// prints the paper's Table 4 columns and the acceleration factor). docs/cli.md, docs/spmm-streaming.md.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "bench/check.hpp"
#include "bench/inputs.hpp"
#include "bench/provenance.hpp"
#include "bench/report.hpp"
#include "bench/traffic.hpp"
#include "cli_common.hpp"
#include "spx/convert.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/cuda/spmm_host.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/error.hpp"
#include "spx/stats.hpp"

namespace spx::cli {

void add_spmm_command(CLI::App& app);

namespace {

using json = nlohmann::ordered_json;

struct SpmmOptions {
  std::string input;
  int64_t cols = 0;
  std::string precision = "f64";
  std::string layout = "row";
  std::string kernel = "auto";
  bool host_resident = false;
  int streams = 2;
  int64_t chunk_cols = 0;
  std::string device_memory_limit;
  std::string transfer = "auto";
  bool compare = false;
  bool pinned_host = false;
  int repeat = 0;
  std::string json_path;
  std::vector<std::string> csr_configs;  // --csr-config, each timed beside the rule's choice
  // Set by CLI11: whether the host-resident-only options were given.
  bool streams_given = false, chunk_given = false, limit_given = false, transfer_given = false;
};

// One --csr-config: "G=16,V=2,BS=128". Each key replaces one field of the configuration that
// spmm_csr_rule picks for the matrix and L: G threads per row, V columns per lane, BS block size,
// Lc columns per pass, tile items per tile (0 = row-split mode), long the long-row threshold. The
// syntax is checked before anything is loaded, the values by the kernel's own check once merged.
using CsrConfigField = int cuda::SpmmCsrConfig::*;
struct CsrConfigKey {
  std::string_view name;
  CsrConfigField field;
};
constexpr CsrConfigKey kCsrConfigKeys[] = {
    {"G", &cuda::SpmmCsrConfig::threads_per_row}, {"V", &cuda::SpmmCsrConfig::cols_per_lane},
    {"BS", &cuda::SpmmCsrConfig::block_size},     {"Lc", &cuda::SpmmCsrConfig::cols_per_pass},
    {"tile", &cuda::SpmmCsrConfig::tile_items},   {"long", &cuda::SpmmCsrConfig::long_row_nnz}};

struct CsrConfigOverride {
  std::string text;
  std::vector<std::pair<CsrConfigField, int>> fields;
};

CsrConfigOverride parse_csr_config(const std::string& text) {
  CsrConfigOverride o{text, {}};
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const auto* known = std::find_if(std::begin(kCsrConfigKeys), std::end(kCsrConfigKeys),
                                     [&](const CsrConfigKey& k) { return k.name == key; });
    if (eq == std::string::npos || known == std::end(kCsrConfigKeys)) {
      std::string names;
      for (const CsrConfigKey& k : kCsrConfigKeys)
        names += fmt::format("{}{}", names.empty() ? "" : ", ", k.name);
      throw Error(
          fmt::format("--csr-config '{}': '{}' is not KEY=VALUE with KEY one of {}", text, item, names));
    }
    const std::string value = item.substr(eq + 1);
    int v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc{} || end != value.data() + value.size() || v < 0)
      throw Error(
          fmt::format("--csr-config '{}': {} = '{}' is not a non-negative integer", text, key, value));
    o.fields.emplace_back(known->field, v);
    start = comma + 1;
  }
  return o;
}

// Parsed once, after check_options and before anything is loaded.
std::vector<CsrConfigOverride> parse_csr_configs(const std::vector<std::string>& texts) {
  std::vector<CsrConfigOverride> out;
  for (const std::string& text : texts) out.push_back(parse_csr_config(text));
  return out;
}

// Option combinations that make no sense are refused before any device or file is touched, so the
// message is the same in every build.
void check_options(const SpmmOptions& o) {
  if (o.cols < 1) throw Error(fmt::format("--cols {}: B needs at least one column", o.cols));
  if (!o.host_resident) {
    const char* needs = o.streams_given    ? "--streams"
                        : o.chunk_given    ? "--chunk-cols"
                        : o.limit_given    ? "--device-memory-limit"
                        : o.transfer_given ? "--transfer"
                        : o.compare        ? "--compare"
                        : o.pinned_host    ? "--pinned-host"
                                           : nullptr;
    if (needs != nullptr) throw Error(fmt::format("{} only applies with --host-resident", needs));
  }
  if (o.host_resident && o.kernel == "cusparse")
    throw Error("--kernel cusparse runs device-resident only (drop --host-resident)");
  if (o.kernel == "set-spmvs" && o.layout != "col")
    throw Error("--kernel set-spmvs multiplies column by column: it needs --layout col");
  if (!o.csr_configs.empty()) {
    if (o.host_resident)
      throw Error("--csr-config times device-resident products only (drop --host-resident)");
    if (o.kernel != "auto" && o.kernel != "csr")
      throw Error(fmt::format("--csr-config configures the CSR kernel: it needs --kernel auto or csr, not {}",
                              o.kernel));
  }
  if (o.streams < 1 || o.streams > 16) throw Error(fmt::format("--streams {}: must be 1..16", o.streams));
  if (o.compare && o.streams < 2) throw Error("--compare runs --streams 1 against --streams N: give N >= 2");
  if (o.limit_given && parse_count(o.device_memory_limit, "--device-memory-limit") == 0)
    throw Error("--device-memory-limit 0: give the bytes the product may use (e.g. 2e9)");
}

#ifdef SPX_HAVE_CUDA

cuda::SpmmCsrConfig apply(const CsrConfigOverride& o, cuda::SpmmCsrConfig c) {
  for (const auto& [field, v] : o.fields) c.*field = v;
  try {
    cuda::check_spmm_csr_config(c);
  } catch (const Error& e) {
    throw Error(fmt::format("--csr-config '{}' gives {}: {}", o.text, cuda::to_string(c), e.what()));
  }
  return c;
}

// Deterministic values in [-1, 1), never zero, from the element's index (splitmix64), so B is the
// same on every run and can be filled by all threads at once.
template <class T>
T input_value(uint64_t index) {
  uint64_t z = index + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const double u = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
  const double v = 2.0 * u - 1.0;
  return static_cast<T>(v == 0.0 ? 0.5 : v);
}

template <class T>
Dense<T> random_dense(int64_t rows, int64_t cols, Layout layout) {
  Dense<T> D(rows, cols, layout);
  const int64_t n = static_cast<int64_t>(D.data.size());
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    D.data[static_cast<std::size_t>(i)] = input_value<T>(static_cast<uint64_t>(i));
  return D;
}

template <class T>
void poison(Dense<T>& D) {
  std::fill(D.data.begin(), D.data.end(), std::numeric_limits<T>::quiet_NaN());
}

struct Check {
  bool passed = true;
  double worst_ratio = 0;  // max |C - ref| / bound
  double max_error = 0;    // max |C - ref|
  int64_t bad_row = -1, bad_col = -1;
};

// spx::ref::spmm's arithmetic (products and sums in double, in row order, one rounding to T) and
// the benchmark's per-element bound (bench/check.hpp: (gamma_k + 2u) |A||B| + (k+1) * smallest
// normal), fused and parallel over rows, so a product of gigabytes is checked without storing a
// reference of the same size. NaN fails.
template <class T>
Check check_against_reference(const Csr<T, int32_t>& A, const Dense<T>& B, const Dense<T>& C) {
  const int64_t L = B.cols;
  const double u = std::numeric_limits<T>::epsilon() / 2, tiny = std::numeric_limits<T>::min();
  Check total;
#pragma omp parallel
  {
    Check mine;
    std::vector<double> acc(static_cast<std::size_t>(L)), mag(static_cast<std::size_t>(L));
#pragma omp for schedule(dynamic, 256)
    for (int32_t i = 0; i < A.rows; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(mag.begin(), mag.end(), 0.0);
      for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
        const double a = static_cast<double>(A.values[k]);
        for (int64_t j = 0; j < L; ++j) {
          const double p = a * static_cast<double>(B(A.col_idx[k], j));
          acc[static_cast<std::size_t>(j)] += p;
          mag[static_cast<std::size_t>(j)] += std::abs(p);
        }
      }
      const int64_t len = A.row_ptr[i + 1] - A.row_ptr[i];
      const double factor = bench::accumulation_error_factor(len, u);
      for (int64_t j = 0; j < L; ++j) {
        const double want = static_cast<double>(static_cast<T>(acc[static_cast<std::size_t>(j)]));
        const double err = std::abs(static_cast<double>(C(i, j)) - want);
        const double bound = factor * mag[static_cast<std::size_t>(j)] + static_cast<double>(len + 1) * tiny;
        const double ratio = std::isnan(err) ? std::numeric_limits<double>::infinity() : err / bound;
        if (!(err <= bound) && mine.passed) {
          mine.passed = false;
          mine.bad_row = i;
          mine.bad_col = j;
        }
        mine.worst_ratio = std::max(mine.worst_ratio, ratio);
        if (!std::isnan(err)) mine.max_error = std::max(mine.max_error, err);
      }
    }
#pragma omp critical
    {
      if (!mine.passed && total.passed) {
        total.passed = false;
        total.bad_row = mine.bad_row;
        total.bad_col = mine.bad_col;
      }
      total.worst_ratio = std::max(total.worst_ratio, mine.worst_ratio);
      total.max_error = std::max(total.max_error, mine.max_error);
    }
  }
  return total;
}

json check_json(const Check& c) {
  return json{{"checked", c.passed}, {"check_ratio", c.worst_ratio}, {"max_error", c.max_error}};
}

std::string check_text(const Check& c) {
  if (c.passed)
    return fmt::format(
        "ok, matches spx::ref (worst error {:.2g} of the rounding-error bound, max |error| {:.2g})",
        c.worst_ratio, c.max_error);
  return fmt::format("FAILED against spx::ref: C({}, {}) off by more than the bound (worst {:.3g} times it)",
                     c.bad_row, c.bad_col, c.worst_ratio);
}

Layout parse_layout(const std::string& s) { return s == "col" ? Layout::ColMajor : Layout::RowMajor; }

// The device matrix in the format the kernel needs (EllR for ELLR-T and SetSpMVs, CSR otherwise).
template <class T>
struct DeviceA {
  std::string kernel;  // resolved: ellr, csr, set-spmvs, cusparse
  cuda::DeviceEllR<T, int32_t> ellr;
  cuda::DeviceCsr<T, int32_t> csr;
  std::size_t bytes() const { return ellr.bytes() + csr.bytes(); }
};

template <class T>
DeviceA<T> upload_for(cuda::Context& ctx, const Csr<T, int32_t>& A, const MatrixStats& stats,
                      const std::string& kernel, int64_t dense_cols) {
  DeviceA<T> d;
  d.kernel = kernel;
  if (kernel == "auto")
    d.kernel =
        cuda::spmm_format_rule(stats, dense_cols, ctx.props()) == cuda::SpmmFormat::EllR ? "ellr" : "csr";
  if (d.kernel == "ellr" || d.kernel == "set-spmvs")
    d.ellr = cuda::upload(ctx, to_ellr(A));
  else
    d.csr = cuda::upload(ctx, A);
  return d;
}

// The chunk product of the host-resident path for the resolved kernel.
template <class T>
cuda::ChunkProduct<T> chunk_product(cuda::Context& ctx, const DeviceA<T>& dA, const MatrixStats& stats,
                                    int64_t chunk_cols, std::string& params) {
  const int64_t width = std::max<int64_t>(chunk_cols, 1);
  if (dA.kernel == "ellr") {
    const cuda::SpmmEllrConfig config = cuda::spmm_ellr_rule(stats, width, ctx.props());
    params = cuda::to_string(config);
    return [&ctx, &dA, config](cuda::DenseView<const T> B, cuda::DenseView<T> C) {
      cuda::spmm_ellr_t(ctx, dA.ellr, B, C, config);
    };
  }
  if (dA.kernel == "set-spmvs") {
    params = "one ELLR-T SpMV per column";
    return [&ctx, &dA](cuda::DenseView<const T> B, cuda::DenseView<T> C) {
      cuda::spmm_set_spmvs(ctx, dA.ellr, B, C);
    };
  }
  const cuda::SpmmCsrConfig config =
      cuda::spmm_csr_rule(stats, width, ctx.props(), static_cast<int>(sizeof(T)));
  params = cuda::to_string(config);
  return [&ctx, &dA, config](cuda::DenseView<const T> B, cuda::DenseView<T> C) {
    cuda::spmm_csr(ctx, dA.csr, B, C, config);
  };
}

json device_json(const cuda::Context& ctx) {
  return json{{"name", ctx.props().name},
              {"sm_count", ctx.props().sm_count},
              {"l2_bytes", ctx.props().l2_bytes},
              {"kind", "cuda"}};
}

struct Common {
  std::string name;
  MatrixStats stats;
  int64_t L = 0;
  std::string precision, layout;
};

json header_json(const cuda::Context& ctx, const Common& c) {
  return json{{"device", device_json(ctx)},
              {"commit", bench::source_commit()},
              {"date", bench::utc_now_iso8601()},
              {"matrix", c.name},
              {"rows", c.stats.rows},
              {"cols", c.stats.cols},
              {"nnz", c.stats.nnz},
              {"avg_row", c.stats.avg_row},
              {"max_row", c.stats.max_row},
              {"cols_dense", c.L},
              {"precision", c.precision},
              {"layout", c.layout}};
}

// --- device-resident -----------------------------------------------------------------------------

template <class T>
void run_device(const SpmmOptions& o, const std::vector<CsrConfigOverride>& overrides, cuda::Context& ctx,
                const Csr<T, int32_t>& A, const Common& c) {
  std::ostream& out = human_output(o.json_path);
  // --csr-config: the rule's configuration with the fields asked for replaced, all checked before
  // anything runs.
  const cuda::SpmmCsrConfig rule =
      cuda::spmm_csr_rule(c.stats, c.L, ctx.props(), static_cast<int>(sizeof(T)));
  std::vector<cuda::SpmmCsrConfig> configs;
  for (const CsrConfigOverride& wanted : overrides) configs.push_back(apply(wanted, rule));

  const Layout layout = parse_layout(o.layout);
  const Dense<T> B = random_dense<T>(A.cols, c.L, layout);
  Dense<T> C(A.rows, c.L, layout);
  const bench::Traffic traffic =
      bench::spmm_traffic(A.rows, A.cols, A.nnz(), c.L, sizeof(T), sizeof(int32_t));
  const cuda::CopyBandwidth copy = cuda::measure_copy_bandwidth(ctx);
  cuda::DeviceDense<T> dB = cuda::upload(ctx, B);
  cuda::DeviceDense<T> dC = cuda::make_device_dense<T>(A.rows, c.L, layout);
  cuda::TimingOptions timing;
  if (o.repeat > 0) {
    timing.min_runs = timing.max_runs = o.repeat;
    timing.min_seconds = 0;
  }
  json results = json::array();
  bool all_passed = true;
  double baseline_ms = 0;

  // One kernel: poison C, run once, check, then time.
  const auto measure = [&](const std::string& name, const std::string& params,
                           const std::function<void()>& launch) {
    poison(C);
    cuda::copy_to_device_sync(ctx, dC.data.data(), C.data.data(), C.data.size() * sizeof(T));
    launch();
    ctx.synchronize();
    C = cuda::download(ctx, dC);
    const Check check = check_against_reference(A, B, C);
    const cuda::Timing t = cuda::time_kernel(ctx, launch, timing);
    all_passed = all_passed && check.passed;
    const double gflops = traffic.flops / (t.median_ms * 1e6),
                 gbs = traffic.effective_bytes / (t.median_ms * 1e6),
                 gbs_min = traffic.minimum_bytes / (t.median_ms * 1e6);
    fmt::print(out,
               "{:<26}{:9.4f} ms median ({:.4f}..{:.4f}, {} runs)  {:8.1f} GFLOP/s  {:7.1f} GB/s eff.  "
               "{:5.1f}% of copy bw (min traffic)  [{}]\n",
               name, t.median_ms, t.min_ms, t.max_ms, t.runs, gflops, gbs, 100 * gbs_min / copy.gbs, params);
    fmt::print(out, "{:<26}{}\n", "", check_text(check));
    json r = {{"mode", "device"},
              {"kernel", name},
              {"params", params},
              {"ms_median", t.median_ms},
              {"ms_min", t.min_ms},
              {"ms_max", t.max_ms},
              {"runs", t.runs},
              {"gflops", gflops},
              {"gbs", gbs},
              {"gbs_min", gbs_min},
              {"pct_copy", 100 * gbs_min / copy.gbs}};
    r.update(check_json(check));
    results.push_back(r);
    return t.median_ms;
  };

  fmt::print(out, "device-resident C = A*B, L = {}, {}, {}-major; copy bandwidth {:.0f} GB/s\n", c.L,
             c.precision, o.layout, copy.gbs);
  const cuda::DenseView<const T> vB = cuda::view(static_cast<const cuda::DeviceDense<T>&>(dB));
  const cuda::DenseView<T> vC = cuda::view(dC);
  if (o.kernel != "cusparse") {
    const DeviceA<T> dA = upload_for(ctx, A, c.stats, o.kernel, c.L);
    std::string params;
    const cuda::ChunkProduct<T> product = chunk_product(ctx, dA, c.stats, c.L, params);
    measure(dA.kernel == "ellr"  ? "spx_spmm_ellr_t"
            : dA.kernel == "csr" ? "spx_spmm_csr"
                                 : "spx_spmm_set_spmvs",
            params, [&] { product(vB, vC); });
  }
  const cuda::DeviceCsr<T, int32_t> dcsr = cuda::upload(ctx, A);
  // --csr-config: the CSR kernel with the rule's configuration changed as asked, in the same run.
  for (std::size_t i = 0; i < configs.size(); ++i)
    measure(fmt::format("spx_spmm_csr#{}", i + 1), cuda::to_string(configs[i]),
            [&] { cuda::spmm_csr(ctx, dcsr, vB, vC, configs[i]); });
  // cuSPARSE's best CSR algorithm for this layout, the vendor baseline measured in the same run.
  for (cuda::CusparseSpmmAlg alg :
       {cuda::CusparseSpmmAlg::CsrAlg1, cuda::CusparseSpmmAlg::CsrAlg2, cuda::CusparseSpmmAlg::CsrAlg3}) {
    if (!cuda::cusparse_spmm_supports(alg, layout)) continue;
    // CSR ALG3 with a row-major ld that is not a multiple of 16 bytes faults (docs/cuda-runtime.md).
    if (alg == cuda::CusparseSpmmAlg::CsrAlg3 && layout == Layout::RowMajor && (c.L * sizeof(T)) % 16 != 0)
      continue;
    cuda::CusparseSpmm<T, int32_t> vendor(ctx, dcsr, alg, dB, dC);
    const double ms = measure(cuda::kernel_name(alg), "vendor", [&] { vendor.run(); });
    baseline_ms = baseline_ms == 0 ? ms : std::min(baseline_ms, ms);
  }
  if (o.kernel != "cusparse" && baseline_ms > 0) {
    const double ours = results.front()["ms_median"].get<double>();
    fmt::print(out, "speedup over cuSPARSE's best: {:.2f}x\n", baseline_ms / ours);
  }
  if (!o.json_path.empty()) {
    json doc = header_json(ctx, c);
    doc["device"]["copy_gbs"] = copy.gbs;
    doc["results"] = results;
    bench::write_json(o.json_path, doc);
  }
  if (!all_passed) throw Error("the result does not match spx::ref (see the check lines above)");
}

// --- host-resident -------------------------------------------------------------------------------

template <class T>
void run_host(const SpmmOptions& o, cuda::Context& ctx, const Csr<T, int32_t>& A, const Common& c) {
  std::ostream& out = human_output(o.json_path);
  const Layout layout = parse_layout(o.layout);
  const Dense<T> B = random_dense<T>(A.cols, c.L, layout);
  Dense<T> C(A.rows, c.L, layout);
  // The format for the chunk width the product will run at (the auto L_GPU of a streamed run is about
  // L / 16, at least 8 columns; resolve_chunk_cols needs A's size, so this is its estimate).
  const int64_t width_guess =
      o.chunk_cols > 0
          ? std::min(o.chunk_cols, c.L)
          : (o.streams >= 2 ? std::min(c.L, std::max<int64_t>(8, ((c.L + 15) / 16 + 7) / 8 * 8)) : c.L);
  const DeviceA<T> dA = upload_for(ctx, A, c.stats, o.kernel, width_guess);
  // --pinned-host: the caller's B and C are page-locked before the runs (untimed, as memory from
  // cudaHostAlloc would be), so the chunks are copied straight from them.
  std::unique_ptr<cuda::PinnedRegion> pin_b, pin_c;
  if (o.pinned_host) {
    pin_b = std::make_unique<cuda::PinnedRegion>(B.data.data(), B.data.size() * sizeof(T));
    pin_c = std::make_unique<cuda::PinnedRegion>(C.data.data(), C.data.size() * sizeof(T));
  }
  const cuda::PcieBandwidth pcie = cuda::measure_pcie_bandwidth(ctx);

  cuda::SpmmHostOptions streamed;
  streamed.streams = o.streams;
  streamed.chunk_cols = o.chunk_cols;
  streamed.transfer = cuda::parse_host_transfer(o.transfer);
  if (o.limit_given)
    streamed.device_memory_limit =
        static_cast<std::size_t>(parse_count(o.device_memory_limit, "--device-memory-limit"));
  // Both runs of --compare use the streamed run's L_GPU, as the paper compares them.
  streamed.chunk_cols = cuda::resolve_chunk_cols(ctx, A.rows, A.cols, dA.bytes(), sizeof(T), c.L, streamed);
  std::vector<cuda::SpmmHostOptions> runs;
  if (o.compare) {
    cuda::SpmmHostOptions serial = streamed;
    serial.streams = 1;
    runs.push_back(serial);
  }
  runs.push_back(streamed);

  std::string params;
  const cuda::ChunkProduct<T> product = chunk_product(ctx, dA, c.stats, streamed.chunk_cols, params);
  const bench::Traffic traffic =
      bench::spmm_traffic(A.rows, A.cols, A.nnz(), c.L, sizeof(T), sizeof(int32_t));
  const int repeat = o.repeat > 0 ? o.repeat : 3;

  fmt::print(out, "host-resident C = A*B, L = {}, {}, {}-major, {} host memory, kernel {} [{}]\n", c.L,
             c.precision, o.layout, o.pinned_host ? "pinned" : "pageable", dA.kernel, params);
  fmt::print(out,
             "pinned PCIe bandwidth: H2D {:.1f} GB/s, D2H {:.1f} GB/s alone; {:.1f} / {:.1f} GB/s at once\n",
             pcie.h2d_gbs, pcie.d2h_gbs, pcie.h2d_concurrent_gbs, pcie.d2h_concurrent_gbs);
  fmt::print(out, "{:<11}{:>7}{:>7}{:>8}{:>11}{:>10}{:>10}{:>10}{:>8}{:>10}{:>10}{:>8}{:>10}\n", "mode",
             "chunks", "L_GPU", "streams", "transfer", "PT ms", "CT ms", "stage ms", "% Com", "Runt ms",
             "PCIe ms", "% PCIe", "GFLOP/s");
  json results = json::array();
  bool all_passed = true;
  std::vector<double> runtimes;
  for (const cuda::SpmmHostOptions& run : runs) {
    // Warm-up (module load, first touch of the staging buffers), checked; then `repeat` timed runs.
    poison(C);
    cuda::spmm_host<T>(ctx, A.rows, A.cols, dA.bytes(), product, false, B, C, run);
    const Check check = check_against_reference(A, B, C);
    all_passed = all_passed && check.passed;
    std::vector<cuda::SpmmHostReport> reports;
    for (int r = 0; r < repeat; ++r)
      reports.push_back(cuda::spmm_host<T>(ctx, A.rows, A.cols, dA.bytes(), product, false, B, C, run));
    std::sort(reports.begin(), reports.end(),
              [](const auto& a, const auto& b) { return a.runtime_ms < b.runtime_ms; });
    const cuda::SpmmHostReport& r = reports[reports.size() / 2];  // the median run
    const double bound = cuda::pcie_bound_ms(r, pcie);
    const double gflops = traffic.flops / (r.runtime_ms * 1e6);
    const std::string mode = r.streams == 1 ? "FastSpMM*" : "FastSpMM";
    fmt::print(
        out,
        "{:<11}{:>7}{:>7}{:>8}{:>11}{:>10.3f}{:>10.3f}{:>10.3f}{:>8.1f}{:>10.3f}{:>10.3f}{:>8.1f}{:>10.1f}\n",
        mode, r.chunks, r.chunk_cols, r.streams, cuda::to_string(r.transfer), r.processing_ms,
        r.communication_ms, r.staging_ms, r.percent_communication, r.runtime_ms, bound,
        100 * bound / r.runtime_ms, gflops);
    runtimes.push_back(r.runtime_ms);
    json j = {{"mode", r.streams == 1 ? "fastspmm_star" : "fastspmm"},
              {"host_memory", o.pinned_host ? "pinned" : "pageable"},
              {"kernel", dA.kernel},
              {"params", params},
              {"streams", r.streams},
              {"chunk_cols", r.chunk_cols},
              {"chunks", r.chunks},
              {"transfer", cuda::to_string(r.transfer)},
              {"processing_ms", r.processing_ms},
              {"communication_ms", r.communication_ms},
              {"h2d_ms", r.h2d_ms},
              {"d2h_ms", r.d2h_ms},
              {"staging_ms", r.staging_ms},
              {"setup_ms", r.setup_ms},
              {"runtime_ms", r.runtime_ms},
              {"runtime_ms_min", reports.front().runtime_ms},
              {"runtime_ms_max", reports.back().runtime_ms},
              {"runs", repeat},
              {"percent_communication", r.percent_communication},
              {"exposed_ms", r.exposed_ms},
              {"h2d_bytes", r.h2d_bytes},
              {"d2h_bytes", r.d2h_bytes},
              {"device_bytes", r.device_bytes},
              {"pinned_bytes", r.pinned_bytes},
              {"pcie_bound_ms", bound},
              {"pcie_fraction", bound / r.runtime_ms},
              {"gflops", gflops}};
    j.update(check_json(check));
    results.push_back(j);
    if (!check.passed) fmt::print(out, "{:<11}{}\n", mode, check_text(check));
  }
  if (all_passed)
    fmt::print(out, "check      ok, every run matches spx::ref within the rounding-error bound\n");
  double af = 0;
  if (o.compare) {
    af = runtimes[0] / runtimes[1];
    fmt::print(out,
               "acceleration factor FastSpMM / FastSpMM*: {:.2f}x (FastSpMM* communication {:.1f}% of its "
               "runtime)\n",
               af, results[0]["percent_communication"].get<double>());
  }
  if (!o.json_path.empty()) {
    json doc = header_json(ctx, c);
    doc["pcie"] = {{"bytes", pcie.bytes},
                   {"h2d_gbs", pcie.h2d_gbs},
                   {"d2h_gbs", pcie.d2h_gbs},
                   {"h2d_concurrent_gbs", pcie.h2d_concurrent_gbs},
                   {"d2h_concurrent_gbs", pcie.d2h_concurrent_gbs}};
    doc["results"] = results;
    if (o.compare) doc["acceleration_factor"] = af;
    bench::write_json(o.json_path, doc);
  }
  if (!all_passed) throw Error("the result does not match spx::ref (see the check lines above)");
}

template <class T>
void run_typed(const SpmmOptions& o, const std::vector<CsrConfigOverride>& overrides) {
  const bench::MatrixSource source = bench::resolve_matrix(o.input);
  const Csr<T, int32_t> A = bench::load_matrix<T, int32_t>(source);
  Common c{source.name, spx::stats(A), o.cols, o.precision, o.layout};
  cuda::Context ctx(0);
  fmt::print(human_output(o.json_path),
             "{:<11}{}  {} x {}, {} nonzeros (row length {}/{:.1f}/{} min/avg/max) on {}\n", "matrix", c.name,
             A.rows, A.cols, A.nnz(), c.stats.min_row, c.stats.avg_row, c.stats.max_row,
             ctx.props().summary());
  if (o.host_resident)
    run_host<T>(o, ctx, A, c);
  else
    run_device<T>(o, overrides, ctx, A, c);
}

#endif  // SPX_HAVE_CUDA

void run_spmm(const SpmmOptions& o) {
  check_options(o);
  [[maybe_unused]] const std::vector<CsrConfigOverride> overrides = parse_csr_configs(o.csr_configs);
#ifdef SPX_HAVE_CUDA
  if (cuda::device_count() == 0)
    throw Error("spx spmm runs on a GPU: " + cuda::gpu_unavailable_reason() +
                " (the CPU kernels: spx bench --backend cpu --ops spmm:L)");
  if (o.precision == "f32")
    run_typed<float>(o, overrides);
  else
    run_typed<double>(o, overrides);
#else
  throw Error(
      "spx spmm runs on a GPU, and this spx was built without CUDA (the CPU kernels: spx bench --backend cpu "
      "--ops spmm:L)");
#endif
}

}  // namespace

void add_spmm_command(CLI::App& app) {
  auto o = std::make_shared<SpmmOptions>();
  CLI::App* cmd =
      app.add_subcommand("spmm", "Time one SpMM (C = A*B, B with --cols columns) on the GPU and check it");
  cmd->add_option("matrix", o->input, "Matrix Market file or generator spec")
      ->required()
      ->type_name("FILE|SPEC");
  cmd->add_option("--cols", o->cols, "L: columns of B and C")->required();
  cmd->add_option("--precision", o->precision, "Value precision: f32 or f64")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  cmd->add_option("--layout", o->layout, "Layout of B and C: row (row-major) or col")
      ->check(CLI::IsMember({"row", "col"}))
      ->capture_default_str();
  cmd->add_option(
         "--kernel", o->kernel,
         "auto (spmm_format_rule), ellr (ELLR-T), csr, set-spmvs (one SpMV per column; --layout col), "
         "cusparse (device-resident only)")
      ->check(CLI::IsMember({"auto", "ellr", "csr", "set-spmvs", "cusparse"}))
      ->capture_default_str();
  cmd->add_flag("--host-resident", o->host_resident,
                "Keep B and C in host memory and stream column chunks through the GPU (FastSpMM)");
  cmd->add_option("--streams", o->streams,
                  "Host-resident: 1 = FastSpMM* (serial chunks), >= 2 = FastSpMM (overlapped)")
      ->capture_default_str()
      ->each([o](const std::string&) { o->streams_given = true; });
  cmd->add_option("--chunk-cols", o->chunk_cols,
                  "Host-resident: L_GPU, columns per chunk (default: from free memory)")
      ->each([o](const std::string&) { o->chunk_given = true; });
  cmd->add_option(
         "--device-memory-limit", o->device_memory_limit,
         "Host-resident: device memory the product may use, A included (e.g. 2e9), to emulate a small card")
      ->type_name("BYTES")
      ->each([o](const std::string&) { o->limit_given = true; });
  cmd->add_option(
         "--transfer", o->transfer,
         "Host-resident: auto, staged (pinned staging), registered (cudaHostRegister B and C), direct")
      ->check(CLI::IsMember({"auto", "staged", "registered", "direct"}))
      ->capture_default_str()
      ->each([o](const std::string&) { o->transfer_given = true; });
  cmd->add_flag("--compare", o->compare,
                "Host-resident: run --streams 1 and --streams N with the same L_GPU (the paper's Table 4)");
  cmd->add_flag(
      "--pinned-host", o->pinned_host,
      "Host-resident: page-lock B and C before the runs (untimed), as a caller using cudaHostAlloc would");
  cmd->add_option(
         "--repeat", o->repeat,
         "Timed runs (device-resident default: adaptive, >= 10 runs; host-resident default 3, median)")
      ->check(at_least(1, "runs", "leave it out for the default"));
  cmd->add_option("--csr-config", o->csr_configs,
                  "Device-resident: also time the CSR kernel with these fields of the rule's configuration "
                  "replaced, e.g. G=16,V=2,BS=128 (keys G, V, BS, Lc, tile, long); repeatable")
      ->type_name("KEY=N,...")
      ->allow_extra_args(false);
  cmd->add_option("--json", o->json_path, "Also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE|-");
  cmd->footer(R"(B is deterministic random in [-1, 1); alpha = 1, beta = 0; C is poisoned with NaN before each
checked run. Device-resident runs also time cuSPARSE's CSR algorithms on the same data. Needs a GPU:
without one (or in a CPU-only build) it stops with one error line.

Examples:
  spx spmm cage11.mtx.gz --cols 32
  spx spmm stencil27:n=64 --cols 8 --precision f32 --kernel ellr
  spx spmm fem:rows=1000000,len=80 --cols 32 --csr-config V=4,G=8 --csr-config BS=256
  spx spmm fem:rows=1000000,len=100 --cols 256 --host-resident --streams 3 --compare
  spx spmm stencil27:n=96 --cols 64 --host-resident --device-memory-limit 2e9 --streams 1)");
  cmd->callback([o] { run_spmm(*o); });
}

}  // namespace spx::cli
