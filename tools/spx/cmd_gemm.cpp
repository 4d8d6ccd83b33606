// spx gemm M [N [K]] : C = alpha*op(A)*op(B) + beta*C on the GPU with spx's kernels and cuBLAS side
// by side, each checked against a double-precision projection of the product and timed with CUDA
// events (the same method as spx bench). Unlike `spx bench --ops gemm:…`, it takes transposes,
// alpha, beta and padded leading dimensions: the whole BLAS contract of spx::cuda::gemm.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench/check.hpp"
#include "bench/footprint.hpp"
#include "bench/provenance.hpp"
#include "bench/report.hpp"
#include "cli_common.hpp"
#include "gemm_explain.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/gemm.hpp"
#include "spx/cuda/gemm_emulation.hpp"
#include "spx/error.hpp"
#include "spx/matrix.hpp"
#include "spx/plan/rules.hpp"
#ifdef SPX_HAVE_CUDA
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/cuda/vendor.hpp"
#endif

namespace spx::cli {

namespace {

using json = nlohmann::ordered_json;

struct GemmOptions {
  std::vector<int64_t> dims;  // M [N [K]]
  std::string op_a = "N", op_b = "N";
  double alpha = 1, beta = 0;
  std::string precision = "f64";
  std::string kernels = "all";
  std::string tile = "auto";       // version 3's knobs (f64): GemmParams::tile and split_k
  std::string emulation = "auto";  // GemmParams::emulation of spx_gemm (Auto): auto, never, always
  int split_k = 0;
  int64_t ld_pad = 0;
  int repeat = 0;
  double min_time = 0.2;
  uint64_t seed = 42;
  std::string json_path;
  bool explain = false;  // the plan only: nothing runs, no GPU needed
};

// M [N [K]] with N = M and K = N when omitted; beta != 0 reads C.
GemmShape shape_of(const GemmOptions& o) {
  const int64_t m = o.dims.at(0);
  const int64_t n = o.dims.size() > 1 ? o.dims[1] : m;
  const int64_t k = o.dims.size() > 2 ? o.dims[2] : n;
  // The leading dimensions this command gives the operands: stored rows + --ld-pad.
  const int64_t lda = (o.op_a == "T" ? k : m) + o.ld_pad, ldb = (o.op_b == "T" ? n : k) + o.ld_pad;
  const int64_t ldc = m + o.ld_pad;
  return GemmShape{m, n, k, o.beta != 0, lda % 2 == 0 && ldb % 2 == 0 && ldc % 2 == 0};
}

// --tile and --split-k as version 3's knobs (Auto, 0: the rule's).
cuda::GemmParams knobs_of(const GemmOptions& o) {
  cuda::GemmParams p{cuda::GemmVersion::Auto, cuda::gemm_tile_from_name(o.tile), o.split_k};
  p.emulation = o.emulation == "always"  ? cuda::GemmEmulation::Always
                : o.emulation == "never" ? cuda::GemmEmulation::Never
                                         : cuda::GemmEmulation::Auto;
  return p;
}

// --explain: version 3's plan for the shape on this GPU's figures, or the H100 SXM's without one.
void explain_gemm(const GemmOptions& o) {
  if (o.precision != "f64") throw Error("--explain shows version 3's plan (FP64 tensor cores): f64 only");
  cuda::DeviceProps props;
  std::string label = "the H100 SXM's figures (no GPU here)";
#ifdef SPX_HAVE_CUDA
  if (cuda::device_count() > 0) {
    cuda::Context ctx;
    props = ctx.props();
    label = props.name;
  }
#endif
  std::ostream& out = human_output(o.json_path);
  const json j = explain_gemm_plan(shape_of(o), props, label, knobs_of(o), out);
  out.flush();
  if (!o.json_path.empty()) bench::write_json(o.json_path, j);
}

#ifdef SPX_HAVE_CUDA

// The kernels this command can run: spx's versions and the vendor baseline.
struct GemmKernel {
  std::string name;     // "spx_gemm_v1", …, "cublas_dgemm"
  bool cublas = false;  // else spx::cuda::gemm with `version`
  cuda::GemmVersion version = cuda::GemmVersion::Auto;
  bool double_only = false;
  bool emulated = false;  // spx_gemm_emulated: Auto with GemmEmulation::Always
};

template <class T>
std::vector<GemmKernel> known_kernels() {
  // spx_gemm (Auto: v3 or cuBLAS for double, cuBLAS for float) is what a user of spx::cuda::gemm gets
  // by default.
  return {{cuda::kernel_name(cuda::GemmVersion::Auto), false, cuda::GemmVersion::Auto, false},
          {cuda::kernel_name(cuda::GemmVersion::CudaCoreV1), false, cuda::GemmVersion::CudaCoreV1, false},
          {cuda::kernel_name(cuda::GemmVersion::TensorCoreV2), false, cuda::GemmVersion::TensorCoreV2, true},
          {cuda::kernel_name(cuda::GemmVersion::TensorCoreV3), false, cuda::GemmVersion::TensorCoreV3, true},
          {"spx_gemm_emulated", false, cuda::GemmVersion::Auto, true, true},
          {cuda::CublasGemm<T>::kernel_name(), true, cuda::GemmVersion::CudaCoreV1, false}};
}

// "all", or a comma list of v1, v2, cublas or full kernel names.
template <class T>
std::vector<GemmKernel> select_kernels(const std::string& list) {
  const std::vector<GemmKernel> known = known_kernels<T>();
  std::vector<GemmKernel> out;
  auto add = [&](const GemmKernel& k) {
    if (std::none_of(out.begin(), out.end(), [&](const GemmKernel& o) { return o.name == k.name; }))
      out.push_back(k);
  };
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    bool found = false;
    for (const GemmKernel& k : known) {
      const bool all = item == "all";
      const bool match =
          all || item == k.name || (item == "cublas" && k.cublas) ||
          (item == "auto" && k.version == cuda::GemmVersion::Auto && !k.cublas && !k.emulated) ||
          (!k.cublas && (k.name == "spx_gemm_" + item));
      if (!match) continue;
      found = true;
      if (k.double_only && sizeof(T) == 4) {
        if (!all) throw Error(fmt::format("--kernel {}: {} runs in f64 only", item, k.name));
        continue;
      }
      add(k);
    }
    if (!found) {
      std::string names;
      for (const GemmKernel& k : known) names += (names.empty() ? "" : ", ") + k.name;
      throw Error(
          fmt::format("--kernel: unknown kernel '{}' (all, auto, v1, v2, v3, emulated, cublas or one of: {})",
                      item, names));
    }
  }
  if (out.empty()) throw Error("--kernel: empty kernel list");
  return out;
}

// A rows × cols column-major matrix with leading dimension rows + pad and values in [-1, 1].
template <class T>
Dense<T> random_matrix(int64_t rows, int64_t cols, int64_t pad, std::mt19937_64& rng) {
  Dense<T> d;
  d.rows = rows;
  d.cols = cols;
  d.ld = std::max<int64_t>(1, rows + pad);
  d.layout = Layout::ColMajor;
  d.data.resize(static_cast<std::size_t>(d.ld * std::max<int64_t>(cols, 1)));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (auto& v : d.data) v = static_cast<T>(uniform(rng));
  return d;
}

// M^T as a tight column-major matrix: op(M) for the reference when op = T.
template <class T>
Dense<T> transpose_of(const Dense<T>& M) {
  Dense<T> t(M.cols, M.rows, Layout::ColMajor);
  for (int64_t j = 0; j < M.cols; ++j)
    for (int64_t i = 0; i < M.rows; ++i) t(j, i) = M(i, j);
  return t;
}

// The projected reference of alpha*op(A)*op(B) + beta*C0: the product's projection from
// spx::bench::gemm_projection (a random vector v, A(Bv) in double with its rounding bound), then
// alpha and beta*C0*v added with their own rounding terms.
template <class T>
bench::Projection gemm_check_reference(const Dense<T>& opA, const Dense<T>& opB, const Dense<T>& C0,
                                       double alpha, double beta, uint64_t seed) {
  bench::Projection r = bench::gemm_projection<T>(opA, opB, seed);
  const int64_t m = opA.rows, n = opB.cols;
  const double u = std::numeric_limits<T>::epsilon() / 2;
  std::vector<double> cv(static_cast<std::size_t>(m), 0.0), cv_abs(static_cast<std::size_t>(m), 0.0);
  if (beta != 0) {
    for (int64_t j = 0; j < n; ++j) {
      const double v = r.vector[static_cast<std::size_t>(j)];
      for (int64_t i = 0; i < m; ++i) {
        const double c = static_cast<double>(C0(i, j));
        cv[static_cast<std::size_t>(i)] += c * v;
        cv_abs[static_cast<std::size_t>(i)] += std::abs(c * v);
      }
    }
  }
  for (std::size_t i = 0; i < r.expected.size(); ++i) {
    const double product_bound = r.tolerance[i];
    r.expected[i] = alpha * r.expected[i] + beta * cv[i];
    // alpha*acc and beta*c each round once in T, and so does their sum.
    r.tolerance[i] = std::abs(alpha) * product_bound * (1 + 2 * u) + 3 * u * std::abs(beta) * cv_abs[i] +
                     static_cast<double>(n) * static_cast<double>(std::numeric_limits<T>::min());
  }
  return r;
}

struct KernelResult {
  std::string name;
  bool emulation_considered = false;  // f64 Auto kernels: what the emulation did, from the checked run
  cuda::GemmEmulationReport emulation;
  Timing timing;
  double tflops = 0;
  bench::CheckResult check;
};

template <class T>
void run_gemm_command(const GemmOptions& o) {
  if (cuda::device_count() == 0) throw Error("spx gemm needs a GPU: " + cuda::gpu_unavailable_reason());
  const auto [m, n, k, reads_c, aligned] = shape_of(o);
  const Op op_a = o.op_a == "T" ? Op::T : Op::N, op_b = o.op_b == "T" ? Op::T : Op::N;
  const std::vector<GemmKernel> kernels = select_kernels<T>(o.kernels);
  // Refused before anything is allocated when A, B, C and their copies cannot fit (spx gemm 60000
  // in f64 needs 86 GB on the device): one line with the numbers instead of the OOM killer.
  const bench::Footprint need =
      bench::gemm_command_footprint(m, n, k, o.ld_pad, sizeof(T), op_a == Op::T, op_b == Op::T);
  if (const std::string why =
          bench::memory_refusal(need, bench::memory_available(bench::default_registry(), "cuda"));
      !why.empty())
    throw Error(fmt::format("gemm {} x {} x {} ({}): {}", m, n, k, o.precision, why));

  // Stored shapes: op(A) is m × k, so A is m × k (N) or k × m (T); likewise B.
  std::mt19937_64 rng(o.seed);
  const Dense<T> A =
      op_a == Op::N ? random_matrix<T>(m, k, o.ld_pad, rng) : random_matrix<T>(k, m, o.ld_pad, rng);
  const Dense<T> B =
      op_b == Op::N ? random_matrix<T>(k, n, o.ld_pad, rng) : random_matrix<T>(n, k, o.ld_pad, rng);
  const Dense<T> C0 = random_matrix<T>(m, n, o.ld_pad, rng);
  const bench::Projection reference = [&] {
    // op(A) and op(B) as the projection reads them: copies only where transposed, freed after.
    Dense<T> a_t, b_t;
    if (op_a == Op::T) a_t = transpose_of(A);
    if (op_b == Op::T) b_t = transpose_of(B);
    return gemm_check_reference(op_a == Op::T ? a_t : A, op_b == Op::T ? b_t : B, C0, o.alpha, o.beta,
                                o.seed + 1);
  }();

  cuda::Context ctx;
  cuda::DeviceBuffer<T> dA = cuda::to_device(ctx, A.data, "A");
  cuda::DeviceBuffer<T> dB = cuda::to_device(ctx, B.data, "B");
  cuda::DeviceBuffer<T> dC(C0.data.size(), "C");
  const T alpha = static_cast<T>(o.alpha), beta = static_cast<T>(o.beta);

  std::ostream& out = human_output(o.json_path);
  fmt::print(
      out,
      "gemm       C ({} x {}) = {} * op(A) op(B) + {} * C, op(A) = {}, op(B) = {}, inner dimension {}, {}\n",
      m, n, o.alpha, o.beta, o.op_a, o.op_b, k, o.precision);
  fmt::print(out, "device     {}, leading dimensions padded by {}\n", ctx.props().name, o.ld_pad);
  // Version 3's tile and split for this shape (f64): what spx_gemm_v3 runs, and spx_gemm unless
  // the plan hands the product to cuBLAS; and why.
  const cuda::GemmParams knobs = knobs_of(o);
  std::optional<plan::GemmChoice> plan;
  if constexpr (sizeof(T) == sizeof(double)) {
    plan = plan::gemm_plan(m, n, k, reads_c, ctx.props(), knobs, plan::default_rule_tables(),
                           plan::gemm_operands_aligned(dA.data(), A.ld, dB.data(), B.ld, dC.data(), C0.ld));
    fmt::print(out, "plan       v3: tile {}, {} split{} ({}; the model predicts {:.1f} us)\n",
               cuda::gemm_tile_name(plan->tile), plan->split_k, plan->split_k == 1 ? "" : "s",
               knobs.tile == cuda::GemmTile::Auto && knobs.split_k == 0 ? "the plan rule's choice"
               : knobs.tile != cuda::GemmTile::Auto && knobs.split_k != 0
                   ? "--tile and --split-k"
                   : (knobs.tile != cuda::GemmTile::Auto ? "--tile, the rule's split for it"
                                                         : "--split-k, the rule's tile"),
               plan->spx_predicted_us);
    if (plan->cublas_predicted_us > 0)
      fmt::print(out, "auto       spx_gemm runs {} (cuBLAS's model {:.1f} us against v3's {:.1f} us)\n",
                 plan->cublas ? "cuBLAS DGEMM" : "v3", plan->cublas_predicted_us, plan->spx_predicted_us);
  }
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);

  std::vector<KernelResult> results;
  std::vector<T> host_c(C0.data.size());
  for (const GemmKernel& kernel : kernels) {
    std::unique_ptr<cuda::CublasGemm<T>> cublas;
    if (kernel.cublas) {
      cublas = std::make_unique<cuda::CublasGemm<T>>(ctx, op_a, op_b, m, n, k, alpha, dA.data(), A.ld,
                                                     dB.data(), B.ld, beta, dC.data(), C0.ld);
    }
    cuda::GemmParams params;
    params.version = kernel.version;
    // The knobs reach the kernels that run version 3 (f64: spx_gemm and spx_gemm_v3).
    if (plan && !kernel.cublas && !kernel.emulated &&
        (kernel.version == cuda::GemmVersion::Auto || kernel.version == cuda::GemmVersion::TensorCoreV3)) {
      params.tile = knobs.tile;
      params.split_k = knobs.split_k;
    }
    // --emulation reaches spx_gemm (Auto, f64); spx_gemm_emulated always emulates where it can.
    if (kernel.emulated) params.emulation = cuda::GemmEmulation::Always;
    if (plan && !kernel.cublas && kernel.version == cuda::GemmVersion::Auto && !kernel.emulated)
      params.emulation = knobs.emulation;
    auto launch = [&] {
      if (cublas) {
        cublas->run();
      } else {
        cuda::gemm<T>(ctx, op_a, op_b, m, n, k, alpha, dA.data(), A.ld, dB.data(), B.ld, beta, dC.data(),
                      C0.ld, params);
      }
    };
    // The checked run starts from C0 (beta reads it); C's padding rows hold C0's values too, so
    // a kernel writing outside m × n shows up below.
    cuda::copy_to_device_sync(ctx, dC.data(), C0.data.data(), C0.data.size() * sizeof(T));
    launch();
    ctx.synchronize();
    KernelResult r;
    if constexpr (sizeof(T) == sizeof(double)) {
      if (!kernel.cublas && kernel.version == cuda::GemmVersion::Auto)
        r.emulation = cuda::gemm_emulation_last();
    }
    cuda::copy_to_host_sync(ctx, host_c.data(), dC.data(), host_c.size() * sizeof(T));
    bool padding_intact = true;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = m; i < C0.ld; ++i) {
        const std::size_t at = static_cast<std::size_t>(i + j * C0.ld);
        if (!(host_c[at] == C0.data[at])) padding_intact = false;
      }
    }
    r.name = kernel.name;
    r.emulation_considered =
        sizeof(T) == sizeof(double) && !kernel.cublas && kernel.version == cuda::GemmVersion::Auto;
    r.check =
        bench::check_projection(bench::OutputView(host_c.data(), m, n, C0.ld, Layout::ColMajor), reference);
    if (!padding_intact) r.check.passed = false;
    cuda::TimingOptions timing;
    timing.warmup = 2;
    timing.min_runs = o.repeat > 0 ? o.repeat : 5;
    timing.max_runs = o.repeat > 0 ? o.repeat : 10000;
    timing.min_seconds = o.repeat > 0 ? 0.0 : o.min_time;
    r.timing = cuda::time_kernel(ctx, launch, timing);
    r.tflops = flops / (r.timing.median_ms * 1e-3) / 1e12;
    results.push_back(r);
  }

  double cublas_ms = 0;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (kernels[i].cublas) cublas_ms = results[i].timing.median_ms;
  fmt::print(out, "\n{:<16}{:>12}{:>12}{:>10}{:>10}  {}\n", "kernel", "ms median", "TFLOP/s", "vs cuBLAS",
             "runs", "check (worst error / bound)");
  for (const KernelResult& r : results) {
    fmt::print(out, "{:<16}{:>12.4f}{:>12.2f}{:>10}{:>10}  {} ({:.2g})\n", r.name, r.timing.median_ms,
               r.tflops, cublas_ms > 0 ? fmt::format("{:.2f}x", cublas_ms / r.timing.median_ms) : "-",
               r.timing.runs, r.check.passed ? "ok" : "FAILED", r.check.worst_ratio);
  }

  for (const KernelResult& r : results) {
    if (!r.emulation_considered) continue;
    if (r.emulation.emulated)
      fmt::print(out, "emulation  {}: emulated with {} moduli + 1 bound product, {}-bit integers\n", r.name,
                 r.emulation.moduli, r.emulation.bits);
    else
      fmt::print(out, "emulation  {}: native ({})\n", r.name, r.emulation.reason);
  }

  if (!o.json_path.empty()) {
    json j;
    j["schema"] = "spx-gemm-1";
    j["commit"] = bench::source_commit();
    j["date"] = bench::utc_now_iso8601();
    j["device"] = ctx.props().name;
    j["m"] = m;
    j["n"] = n;
    j["k"] = k;
    j["op_a"] = o.op_a;
    j["op_b"] = o.op_b;
    j["alpha"] = o.alpha;
    j["beta"] = o.beta;
    j["ld_pad"] = o.ld_pad;
    j["precision"] = o.precision;
    if (plan)
      j["v3_plan"] = {{"tile", cuda::gemm_tile_name(plan->tile)},
                      {"split_k", plan->split_k},
                      {"predicted_us", plan->spx_predicted_us},
                      {"tile_option", o.tile},
                      {"split_k_option", o.split_k},
                      {"auto_runs", plan->cublas ? "cublas" : "spx_v3"},
                      {"cublas_predicted_us", plan->cublas_predicted_us}};
    j["results"] = json::array();
    for (const KernelResult& r : results) {
      j["results"].push_back(
          {{"kernel", r.name},
           {"ms_median", r.timing.median_ms},
           {"ms_min", r.timing.min_ms},
           {"ms_max", r.timing.max_ms},
           {"runs", r.timing.runs},
           {"tflops", r.tflops},
           {"vs_cublas", cublas_ms > 0 ? json(cublas_ms / r.timing.median_ms) : json(nullptr)},
           {"checked", r.check.passed},
           {"check_ratio", std::isfinite(r.check.worst_ratio) ? json(r.check.worst_ratio) : json(nullptr)},
           {"rel_error", r.check.relative_error},
           {"emulation", r.emulation_considered ? json{{"emulated", r.emulation.emulated},
                                                       {"moduli", r.emulation.moduli},
                                                       {"bits", r.emulation.bits},
                                                       {"reason", r.emulation.reason}}
                                                : json(nullptr)}});
    }
    bench::write_json(o.json_path, j);
  }
  for (const KernelResult& r : results) {
    if (!r.check.passed) {
      throw Error(
          fmt::format("{}: the result does not match the reference (worst error {:.3g} times the bound)",
                      r.name, r.check.worst_ratio));
    }
  }
}

#endif  // SPX_HAVE_CUDA

void run_gemm(const GemmOptions& o) {
  if (o.dims.empty() || o.dims.size() > 3) throw Error("spx gemm takes M [N [K]]");
  for (int64_t d : o.dims) {
    if (d <= 0) throw Error(fmt::format("spx gemm: dimensions must be positive, got {}", d));
  }
  if (o.ld_pad < 0) throw Error(fmt::format("--ld-pad must be >= 0, got {}", o.ld_pad));
  cuda::gemm_tile_from_name(o.tile);  // an unknown name is an error before anything runs
  if (o.split_k < 0 || o.split_k > cuda::kMaxGemmSplitK)
    throw Error(fmt::format("--split-k {} is outside [0, {}] (0: the rule's choice)", o.split_k,
                            cuda::kMaxGemmSplitK));
  if ((o.tile != "auto" || o.split_k != 0) && o.precision != "f64")
    throw Error("--tile and --split-k are version 3's knobs: f64 only");
  if (o.emulation == "always" && (o.precision != "f64" || o.tile != "auto" || o.split_k != 0))
    throw Error("--emulation always is a choice of Auto in f64 (without --tile or --split-k)");
  if (o.explain) return explain_gemm(o);
#ifdef SPX_HAVE_CUDA
  if (o.precision == "f32") {
    run_gemm_command<float>(o);
  } else {
    run_gemm_command<double>(o);
  }
#else
  throw Error("spx gemm runs on the GPU; this spx was built without CUDA");
#endif
}

}  // namespace

void add_gemm_command(CLI::App& app) {
  auto options = std::make_shared<GemmOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gemm", "Time and check C = alpha*op(A)*op(B) + beta*C on the GPU: spx's kernels beside cuBLAS");
  cmd->add_option("dims", options->dims,
                  "M [N [K]]: C is M x N, the inner dimension K (N = M, K = N when omitted)")
      ->required()
      ->expected(1, 3)
      ->transform(count_in(1, kMaxIndex, "rows or columns"))
      ->type_name("M [N [K]]");
  cmd->add_option("--op-a", options->op_a, "op(A): N (A is M x K) or T (A is K x M)")
      ->check(CLI::IsMember({"N", "T"}))
      ->capture_default_str();
  cmd->add_option("--op-b", options->op_b, "op(B): N (B is K x N) or T (B is N x K)")
      ->check(CLI::IsMember({"N", "T"}))
      ->capture_default_str();
  cmd->add_option("--alpha", options->alpha, "alpha")
      ->check(real_in(-kMaxReal, kMaxReal, ""))
      ->capture_default_str();
  cmd->add_option("--beta", options->beta, "beta (0: C is never read)")
      ->check(real_in(-kMaxReal, kMaxReal, ""))
      ->capture_default_str();
  cmd->add_option("--precision", options->precision, "f32 or f64")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  cmd->add_option("--kernel", options->kernels,
                  "Comma list: all, auto (the library default), v1 (CUDA cores), v2, v3 (FP64 tensor cores), "
                  "emulated (FP64 on INT8 tensor cores), cublas, or kernel names")
      ->capture_default_str();
  cmd->add_option(
         "--tile", options->tile,
         "Version 3's block tile (f64): auto (the plan rule's), 128x128, 128x64, 64x64, 64x32, 32x64, "
         "32x32")
      ->capture_default_str();
  cmd->add_option("--split-k", options->split_k,
                  "Version 3's k splits (f64): 0 = the plan rule's, 1 = none, up to 4096 (fewer when k has "
                  "fewer slabs)")
      ->transform(count_in(0, kMaxIndex, "splits"))
      ->capture_default_str();
  cmd->add_option(
         "--emulation", options->emulation,
         "spx_gemm's FP64 emulation on INT8 tensor cores (Ozaki scheme II, f64): auto (where the plan "
         "predicts it faster), never, always (wherever the inputs allow)")
      ->check(CLI::IsMember({"auto", "never", "always"}))
      ->capture_default_str();
  cmd->add_option("--ld-pad", options->ld_pad,
                  "Extra rows in every leading dimension (lda = rows + pad, ...)")
      ->transform(count_in(0, kMaxIndex, "rows"))
      ->capture_default_str();
  cmd->add_option("--repeat", options->repeat, "Timed runs (default: at least 5 runs and --min-time seconds)")
      ->transform(count_in(1, kMaxRuns, "runs", "leave it out for adaptive timing"));
  cmd->add_option("--min-time", options->min_time, "Least summed device time of the timed runs, seconds")
      ->check(real_in(0, kMaxGemmSeconds, "seconds"))
      ->capture_default_str();
  cmd->add_option("--seed", options->seed, "Seed of the random A, B and C")
      ->transform(count_in(0, kMaxCount, ""))
      ->capture_default_str();
  cmd->add_option("--json", options->json_path, "Also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE|-");
  cmd->add_flag("--explain", options->explain,
                "Only the plan: every version 3 tile at its best split as the model times it, the waves it "
                "fills and the shape's floor; runs nothing, needs no GPU");
  cmd->footer(R"(Every kernel's first run is checked against a double-precision projection of the product
(C*v for a random v, with a rounding-error bound per row) and against writes into C's padding.

Examples:
  spx gemm 4096                          all kernels, f64, 4096 x 4096 x 4096
  spx gemm 1000 33 4097 --op-a T --beta 1.5 --ld-pad 3
  spx gemm 65536 512 512 --kernel v3,cublas --json tall.json
  spx gemm 1000 128 1000 --kernel auto,cublas --tile 32x32 --split-k 2
  spx gemm 8192 --kernel emulated,cublas   the INT8 emulation against cuBLAS DGEMM
  spx gemm 60000 96 2000 --explain         the plan and why (no GPU needed))");
  cmd->callback([options] { run_gemm(*options); });
}

}  // namespace spx::cli
