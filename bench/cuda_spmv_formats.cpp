// The CUDA SpMV entries on the non-CSR formats (spx/cuda/spmv_formats.hpp): ELL, ELLR-T under its
// configuration rule, COO (deterministic and fast) and HYB. ELL, ELLR and HYB are built from the
// cached DeviceCsr by the GPU conversions (spx/cuda/convert.hpp), timed in prepare(): params
// `conversion_ms` (best of 3, synchronisations included: the cost a caller pays), the best CSR
// kernel's time on the same matrix (`csr_best_ms`, `csr_best`: the fixed-rule csr_param and
// cuSPARSE CSR ALG1/ALG2, each timed briefly here) and `break_even_spmvs` = conversion_ms /
// (csr_best_ms - spmv_ms) when the format is faster, else "never" — the count of products after
// which converting pays off (Reguly & Giles §7). COO, CSR-C16 and SELL-C16 come from host
// conversions (no GPU one).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bench/cuda_support.hpp"
#include "cuda/spmv/csr_param_launch.hpp"
#include "plan/catalogue.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/reorder.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/cuda/spmv_csr_c16.hpp"
#include "spx/cuda/spmv_formats.hpp"
#include "spx/cuda/spmv_sell_c16.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/mixed_precision.hpp"
#include "spx/plan/rules.hpp"
#include "spx/reorder.hpp"
#include "spx/sell_c16_dict.hpp"
#include "spx/stats.hpp"

namespace spx::bench {
namespace {

// Past these many slots per nonzero (rows × longest row / nnz) the padded formats measure their
// padding and their slab alone takes gigabytes (Maragal_6: 235, vsp_model1…: 4200); HYB is the
// format for such matrices. ELLR reads no padding, so it tolerates more than ELL.
constexpr double kMaxEllPaddingRatio = 20;
constexpr double kMaxEllrPaddingRatio = 32;

std::string padding_skip(const Problem& p, double limit) {
  if (p.stats == nullptr || p.stats->ell_padding_ratio <= limit) return {};
  return fmt::format("padding {:.0f} slots per nonzero > {:.0f} (longest row {}): use HYB for such matrices",
                     p.stats->ell_padding_ratio, limit, p.stats->max_row);
}

// A short warm median of one enqueued product: enough to rank kernels for the break-even count
// (the headline time of every kernel is the engine's own measurement).
double quick_ms(const std::function<void()>& launch) {
  cuda::TimingOptions o;
  o.warmup = 2;
  o.min_runs = 10;
  o.min_seconds = 0.01;
  o.max_runs = 1000;
  return cuda::time_kernel(bench_context(), launch, o).median_ms;
}

// Best of three conversions, wall clock around the call (it synchronises before returning).
template <class Convert>
double conversion_ms(Convert&& convert) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    convert();
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

struct BestCsr {
  std::string name;
  double ms = 0;
};

// The fastest CSR kernel on this matrix and precision, timed once and remembered.
template <class T>
BestCsr best_csr(const Problem& p) {
  static std::map<std::string, BestCsr> known;
  const std::string key = fmt::format("{}/{}", p.matrix, to_string(p.precision));
  if (auto it = known.find(key); it != known.end()) return it->second;
  cuda::Context& ctx = bench_context();
  auto A = device_csr<T>(p);
  auto x = device_x<T>(p);
  cuda::DeviceBuffer<T> y(static_cast<std::size_t>(p.rows), "y");
  const std::span<const T> xs(x->span());
  const std::span<T> ys = y.span();
  BestCsr best{"none", std::numeric_limits<double>::infinity()};
  const auto consider = [&](const std::string& name, const std::function<void()>& launch) {
    const double ms = quick_ms(launch);
    if (ms < best.ms) best = {name, ms};
  };
  const std::string csr_param_name = plan::executor_row(plan::SpxExecutor::CsrParam).name;
  cuda::CsrSpmvPlan plan = cuda::plan_csr_spmv(ctx, *A, *p.input<T>().A);
  consider(csr_param_name, [&] { cuda::spmv_csr(ctx, plan, *A, xs, ys); });
  for (auto alg : {cuda::CusparseSpmvAlg::CsrAlg1, cuda::CusparseSpmvAlg::CsrAlg2}) {
    cuda::CusparseSpmv<T, int32_t> op(ctx, *A, alg, xs, ys);
    consider(cuda::kernel_name(alg), [&] { op.run(); });
  }
  ctx.synchronize();
  return known[key] = best;
}

// Adds conversion_ms, csr_best_ms, csr_best, spmv_ms and break_even_spmvs to params.
template <class T>
void add_break_even(const Problem& p, double convert_ms, const std::function<void()>& launch,
                    Params& params) {
  const BestCsr csr = best_csr<T>(p);
  const double ms = quick_ms(launch);
  params.push_back({"conversion_ms", convert_ms});
  params.push_back({"csr_best", csr.name});
  params.push_back({"csr_best_ms", csr.ms});
  params.push_back({"spmv_ms", ms});
  if (ms < csr.ms)
    params.push_back({"break_even_spmvs", convert_ms / (csr.ms - ms)});
  else
    params.push_back({"break_even_spmvs", std::string("never")});
}

// y = A·x with the format's device matrix `A` (kept alive by the launch), cached x and a fresh y.
template <class T, class Matrix, class Launch>
std::unique_ptr<Instance> format_instance(const Problem& p, std::shared_ptr<const Matrix> A, Params params,
                                          Launch launch) {
  auto x = device_x<T>(p);
  auto y = std::make_shared<cuda::DeviceBuffer<T>>(static_cast<std::size_t>(p.rows), "y");
  CudaInstanceParts parts;
  parts.launch = [A, x, y, launch] { launch(*A, std::span<const T>(x->span()), y->span()); };
  parts.view = [y] { return staged_view(*y); };
  parts.output = y->data();
  parts.output_bytes = y->bytes();
  parts.working_set = A->bytes() + x->bytes() + y->bytes();
  parts.params = std::move(params);
  return std::make_unique<CudaInstance>(std::move(parts));
}

// The instance's launch as a plain callable for the break-even timing.
template <class T, class Matrix, class Launch>
std::function<void()> bound_launch(const Problem& p, std::shared_ptr<const Matrix> A, Launch launch) {
  auto x = device_x<T>(p);
  auto y = std::make_shared<cuda::DeviceBuffer<T>>(static_cast<std::size_t>(p.rows), "y");
  return [A, x, y, launch] { launch(*A, std::span<const T>(x->span()), y->span()); };
}

void add_ell(Registry& registry) {
  auto e =
      cuda_entry("ell", OpKind::Spmv, Format::Ell, false,
                 fmt::format("spx ELL SpMV, one thread per row, GPU-converted (spx::cuda::spmv_ell); skipped "
                             "past {} slots per nonzero",
                             kMaxEllPaddingRatio));
  e.skip_reason = [](const Problem& p) { return padding_skip(p, kMaxEllPaddingRatio); };
  e.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      cuda::Context& ctx = bench_context();
      auto csr = device_csr<T>(p);
      auto A = std::make_shared<const cuda::DeviceEll<T, int32_t>>(cuda::to_ell(ctx, *csr));
      const double convert = conversion_ms([&] { (void)cuda::to_ell(ctx, *csr); });
      const auto launch = [](const cuda::DeviceEll<T, int32_t>& M, std::span<const T> x, std::span<T> y) {
        cuda::spmv_ell(bench_context(), M, x, y);
      };
      Params params = {{"width", int64_t{A->width}},
                       {"ld", int64_t{A->ld}},
                       {"block_size", int64_t{plan::spread_block_size(A->rows, ctx.props())}}};
      add_break_even<T>(p, convert, bound_launch<T>(p, A, launch), params);
      return format_instance<T>(p, A, std::move(params), launch);
    });
  };
  registry.add(std::move(e));
}

void add_ellr_t(Registry& registry) {
  auto e = cuda_entry("ellr_t", OpKind::Spmv, Format::EllR, false,
                      fmt::format("spx ELLR-T SpMV, T threads per row and block size from ellr_t_rule, "
                                  "GPU-converted (spx::cuda::spmv_ellr_t); skipped past {} slots per nonzero",
                                  kMaxEllrPaddingRatio));
  e.skip_reason = [](const Problem& p) { return padding_skip(p, kMaxEllrPaddingRatio); };
  e.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      cuda::Context& ctx = bench_context();
      auto csr = device_csr<T>(p);
      auto A = std::make_shared<const cuda::DeviceEllR<T, int32_t>>(cuda::to_ellr(ctx, *csr));
      const double convert = conversion_ms([&] { (void)cuda::to_ellr(ctx, *csr); });
      const cuda::EllrTParams config = plan::ellr_t_rule(*p.stats, ctx.props());
      const auto launch = [config](const cuda::DeviceEllR<T, int32_t>& M, std::span<const T> x,
                                   std::span<T> y) { cuda::spmv_ellr_t(bench_context(), M, x, y, config); };
      Params params = {{"threads_per_row", int64_t{config.threads_per_row}},
                       {"block_size", int64_t{config.block_size}},
                       {"width", int64_t{A->width}}};
      add_break_even<T>(p, convert, bound_launch<T>(p, A, launch), params);
      return format_instance<T>(p, A, std::move(params), launch);
    });
  };
  registry.add(std::move(e));
}

void add_coo(Registry& registry, bool deterministic) {
  auto e = cuda_entry(deterministic ? "coo" : "coo_fast", OpKind::Spmv, Format::Coo, false,
                      deterministic ? "spx COO SpMV, segmented warp scan, boundary rows combined in a fixed "
                                      "order (deterministic; spx::cuda::spmv_coo)"
                                    : "spx COO SpMV, segmented warp scan, boundary rows by atomicAdd after "
                                      "scaling y (spx::cuda::spmv_coo, fast mode)");
  e.prepare = [deterministic](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      cuda::CooParams config;
      config.deterministic = deterministic;
      Params params = {{"nnz_per_warp", int64_t{config.nnz_per_warp}},
                       {"block_size", int64_t{config.block_size}},
                       {"deterministic", deterministic}};
      return format_instance<T>(
          p, device_coo<T>(p), std::move(params),
          [config](const cuda::DeviceCoo<T, int32_t>& M, std::span<const T> x, std::span<T> y) {
            cuda::spmv_coo(bench_context(), M, x, y, T{1}, T{0}, config);
          });
    });
  };
  registry.add(std::move(e));
}

void add_hyb(Registry& registry) {
  auto e = cuda_entry("hyb", OpKind::Spmv, Format::Hyb, false,
                      "spx HYB SpMV: ELL part (Bell-Garland width) then the deterministic COO tail, "
                      "GPU-converted (spx::cuda::spmv_hyb)");
  e.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      cuda::Context& ctx = bench_context();
      auto csr = device_csr<T>(p);
      auto A = std::make_shared<const cuda::DeviceHyb<T, int32_t>>(cuda::to_hyb(ctx, *csr));
      const double convert = conversion_ms([&] { (void)cuda::to_hyb(ctx, *csr); });
      const auto launch = [](const cuda::DeviceHyb<T, int32_t>& M, std::span<const T> x, std::span<T> y) {
        cuda::spmv_hyb(bench_context(), M, x, y);
      };
      Params params = {{"ell_width", int64_t{A->ell.width}}, {"coo_nnz", int64_t{A->coo.nnz}}};
      add_break_even<T>(p, convert, bound_launch<T>(p, A, launch), params);
      return format_instance<T>(p, A, std::move(params), launch);
    });
  };
  registry.add(std::move(e));
}

// CSR-C16: host-converted (to_csr_c16 with the escape threshold of the fixed rule) and uploaded,
// both timed as its conversion; csr_param's fixed rule for the launch.
void add_csr_c16(Registry& registry) {
  auto e = cuda_entry("csr_c16", OpKind::Spmv, Format::Csr, false,
                      "spx CSR-C16 SpMV: csr_param's kernel over 16-bit column offsets, rows spanning more "
                      "than 65535 columns in a 32-bit escape part (spx::cuda::spmv_csr_c16)");
  e.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      cuda::Context& ctx = bench_context();
      const Csr<T, int32_t>& host = *p.input<T>().A;
      const int64_t threshold = plan::csr_c16_escape_threshold(*p.stats, ctx.props());
      auto A = std::make_shared<const cuda::DeviceCsrC16<T>>(
          cuda::upload_csr_c16(ctx, to_csr_c16(host, threshold)));
      const double convert =
          conversion_ms([&] { (void)cuda::upload_csr_c16(ctx, to_csr_c16(host, threshold)); });
      const cuda::CsrSpmvParams params = plan::csr_fixed_rule(*p.stats, ctx.props());
      const auto launch = [params](const cuda::DeviceCsrC16<T>& M, std::span<const T> x, std::span<T> y) {
        cuda::spmv_csr_c16(bench_context(), M, x, y, params);
      };
      Params out = {{"coop", int64_t{params.coop}},
                    {"block_size", int64_t{params.block_size}},
                    {"escape_rows", int64_t{A->escape_count}},
                    {"escape_nnz", static_cast<int64_t>(A->escape_col_idx.size())},
                    {"matrix_bytes", static_cast<int64_t>(A->bytes())}};
      add_break_even<T>(p, convert, bound_launch<T>(p, A, launch), out);
      return format_instance<T>(p, A, std::move(out), launch);
    });
  };
  registry.add(std::move(e));
}

// SELL-C16: host-converted (to_sell_c16) and uploaded, both timed as its conversion; skipped where a
// row spans more than 65535 columns (the conversion's error) or SELL-32 would store more slots per
// nonzero than the planner admits (sell_max_slots_per_nnz, cuSPARSE SELL's limit too).
void add_sell_c16(Registry& registry) {
  const double max_slots = plan::default_rule_tables().planner.sell_max_slots_per_nnz;
  auto e =
      cuda_entry("sell_c16", OpKind::Spmv, Format::Sell, false,
                 fmt::format("spx SELL-C16 SpMV: SELL-32, one thread per row, 16-bit column offsets from a "
                             "per-row base (spx::cuda::spmv_sell_c16); skipped where a row spans more than "
                             "65535 columns or past {} slots per nonzero",
                             max_slots));
  e.prepare = [max_slots](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      cuda::Context& ctx = bench_context();
      const Csr<T, int32_t>& host = *p.input<T>().A;
      const int64_t slots = sell_c16_slots(host);
      const double ratio = static_cast<double>(slots) / static_cast<double>(std::max<int64_t>(1, host.nnz()));
      if (ratio > max_slots)
        throw Error(
            fmt::format("SELL-C16 would store {:.1f} slots per nonzero (> {}): rows of very different "
                        "lengths share slices",
                        ratio, max_slots));
      auto A = std::make_shared<const cuda::DeviceSellC16<T>>(cuda::upload_sell_c16(ctx, to_sell_c16(host)));
      const double convert = conversion_ms([&] { (void)cuda::upload_sell_c16(ctx, to_sell_c16(host)); });
      const auto launch = [](const cuda::DeviceSellC16<T>& M, std::span<const T> x, std::span<T> y) {
        cuda::spmv_sell_c16(bench_context(), M, x, y);
      };
      Params out = {{"stored_slots", slots},
                    {"block_size", int64_t{plan::spread_block_size(A->rows, ctx.props())}},
                    {"matrix_bytes", static_cast<int64_t>(A->bytes())}};
      add_break_even<T>(p, convert, bound_launch<T>(p, A, launch), out);
      return format_instance<T>(p, A, std::move(out), launch);
    });
  };
  registry.add(std::move(e));
}

// SELL-C16 with a value dictionary: host-converted (to_sell_c16_dict) and uploaded, both timed as
// its conversion; skipped where SELL-C16 is, and past 256 distinct values.
void add_sell_c16_dict(Registry& registry) {
  const double max_slots = plan::default_rule_tables().planner.sell_max_slots_per_nnz;
  auto e =
      cuda_entry("sell_c16_dict", OpKind::Spmv, Format::Sell, false,
                 "spx SELL-C16 SpMV with a value dictionary: 16-bit column offsets and a uint8 code into a "
                 "table of <= 256 values a slot (none for a single value) (spx::cuda::spmv_sell_c16_dict)");
  e.prepare = [max_slots](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      cuda::Context& ctx = bench_context();
      const Csr<T, int32_t>& host = *p.input<T>().A;
      const int64_t slots = sell_c16_slots(host);
      const double ratio = static_cast<double>(slots) / static_cast<double>(std::max<int64_t>(1, host.nnz()));
      if (ratio > max_slots)
        throw Error(fmt::format("SELL-C16 would store {:.1f} slots per nonzero (> {})", ratio, max_slots));
      const int64_t distinct = distinct_values_upto(std::span<const T>(host.values));
      if (distinct > kSellC16DictMaxValues)
        throw Error(fmt::format("more than {} distinct values: no dictionary", kSellC16DictMaxValues));
      auto A = std::make_shared<const cuda::DeviceSellC16Dict<T>>(
          cuda::upload_sell_c16_dict(ctx, to_sell_c16_dict(host)));
      const double convert =
          conversion_ms([&] { (void)cuda::upload_sell_c16_dict(ctx, to_sell_c16_dict(host)); });
      const auto launch = [](const cuda::DeviceSellC16Dict<T>& M, std::span<const T> x, std::span<T> y) {
        cuda::spmv_sell_c16_dict(bench_context(), M, x, y);
      };
      Params out = {{"stored_slots", slots},
                    {"distinct_values", distinct},
                    {"matrix_bytes", static_cast<int64_t>(A->bytes())}};
      add_break_even<T>(p, convert, bound_launch<T>(p, A, launch), out);
      return format_instance<T>(p, A, std::move(out), launch);
    });
  };
  registry.add(std::move(e));
}

// csr_param_mixed: csr_param's plan with the values rounded to float (the host rounding and the
// upload timed as its conversion), x, y and sums in double; f64 only, checked with the values'
// rounding added to the bound (check.hpp).
void add_csr_param_mixed(Registry& registry) {
  auto e = cuda_entry("csr_param_mixed", OpKind::Spmv, Format::Csr, false,
                      "spx csr_param with the values rounded to float, x, y and sums in double (opt-in "
                      "mixed precision, spx/mixed_precision.hpp); f64 only");
  e.f32 = false;  // mixed precision rounds f64 values to f32: nothing to round in an f32 matrix
  e.prepare = [](const Problem& p) -> std::unique_ptr<Instance> {
    cuda::Context& ctx = bench_context();
    const Csr<double, int32_t>& host = *p.input<double>().A;
    auto dA = std::make_shared<cuda::DeviceCsr<double, int32_t>>(cuda::upload(ctx, host));
    std::shared_ptr<cuda::DeviceBuffer<float>> values;
    const double convert = conversion_ms([&] {
      values = std::make_shared<cuda::DeviceBuffer<float>>(
          cuda::to_device(ctx, round_values_to_float(host.values), "float values"));
    });
    auto plan = std::make_shared<cuda::CsrSpmvPlan>(cuda::plan_csr_spmv(ctx, *dA, host, stats(host)));
    auto x = device_x<double>(p);
    auto y = std::make_shared<cuda::DeviceBuffer<double>>(static_cast<std::size_t>(p.rows), "y");
    const auto launch = [dA, values, plan, x, y] {
      cuda::spmv_csr_mixed(bench_context(), *plan, *dA, std::span<const float>(values->span()),
                           std::span<const double>(x->span()), y->span(), 1.0, 0.0);
    };
    Params params = {
        {"coop", int64_t{plan->params.coop}},
        {"block_size", int64_t{plan->params.block_size}},
        {"matrix_bytes", static_cast<int64_t>(values->bytes() + dA->col_idx.bytes() + dA->row_ptr.bytes())}};
    add_break_even<double>(p, convert, launch, params);
    CudaInstanceParts parts;
    parts.launch = launch;
    parts.view = [y] { return staged_view(*y).with_value_rounding(std::ldexp(1.0, -24)); };
    parts.output = y->data();
    parts.output_bytes = y->bytes();
    parts.working_set = values->bytes() + dA->col_idx.bytes() + dA->row_ptr.bytes() + x->bytes() + y->bytes();
    parts.params = std::move(params);
    return std::make_unique<CudaInstance>(std::move(parts));
  };
  registry.add(std::move(e));
}

}  // namespace

// rcm_csr: the matrix renumbered by RCM on the host and uploaded (timed as its conversion), then
// gather x, csr_param on the renumbered matrix, scatter y. Square matrices only.
void add_rcm(Registry& registry) {
  auto e = cuda_entry("rcm_csr", OpKind::Spmv, Format::Csr, false,
                      "spx CSR on the RCM-renumbered matrix: gather x, csr_param, scatter y; RCM and the "
                      "permutation on the host (spx::cuda::RcmCsr)");
  e.skip_reason = [](const Problem& p) -> std::string {
    if (p.stats != nullptr && p.stats->rows != p.stats->cols)
      return fmt::format("reordering needs a square matrix, not {} x {}", p.stats->rows, p.stats->cols);
    return {};
  };
  e.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      cuda::Context& ctx = bench_context();
      const Csr<T, int32_t>& host = *p.input<T>().A;
      std::shared_ptr<cuda::RcmCsr<T>> A;
      const double convert = conversion_ms([&] { A = std::make_shared<cuda::RcmCsr<T>>(ctx, host); });
      const reorder::Locality before = reorder::locality(host), after = reorder::locality(A->host_permuted());
      Params params = {{"host_reorder_ms", A->host_reorder_us() / 1e3},
                       {"bandwidth", reorder::band(A->host_permuted()).bandwidth},
                       {"sectors_per_row", before.sectors_per_row},
                       {"sectors_per_row_after", after.sectors_per_row},
                       {"estimated_after", before.rcm_sectors_per_row},
                       {"coop", int64_t{A->plan().params.coop}}};
      auto x = device_x<T>(p);
      auto y = std::make_shared<cuda::DeviceBuffer<T>>(static_cast<std::size_t>(p.rows), "y");
      const auto launch = [A, x, y] { A->spmv(bench_context(), std::span<const T>(x->span()), y->span()); };
      add_break_even<T>(p, convert, launch, params);
      CudaInstanceParts parts;
      parts.launch = launch;
      parts.view = [y] { return staged_view(*y); };
      parts.output = y->data();
      parts.output_bytes = y->bytes();
      parts.working_set = A->bytes() + x->bytes() + y->bytes();
      parts.params = std::move(params);
      return std::unique_ptr<Instance>(std::make_unique<CudaInstance>(std::move(parts)));
    });
  };
  registry.add(std::move(e));
}

void register_cuda_spmv_formats(Registry& registry) {
  add_ell(registry);
  add_ellr_t(registry);
  add_coo(registry, true);
  add_coo(registry, false);
  add_hyb(registry);
  add_csr_c16(registry);
  add_rcm(registry);
  add_sell_c16(registry);
  add_csr_param_mixed(registry);
  add_sell_c16_dict(registry);
}

}  // namespace spx::bench
