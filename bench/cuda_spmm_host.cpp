// Host-resident SpMM (FastSpMM*, FastSpMM: spx::cuda::spmm_host, docs/spmm-streaming.md) as the
// entries spmm_host_row and spmm_host_col: A on the device, B and C in host memory (row- or
// column-major), streamed through the GPU in column chunks. `spx spmm --host-resident` runs them.
//
// Study entries: the streaming path is for products whose B and C do not fit on the device; on the
// suites' sizes it measures PCIe rather than spx's kernels, and its options (streams, chunk width,
// transfer mode, pinned host memory) are what one studies. `spx bench --studies` runs them with the
// defaults (2 streams, L_GPU from free memory).
//
// Parameters (KernelEntry::check_params; spx spmm's options): streams (1 = FastSpMM*, 2..16 =
// FastSpMM), chunk_cols (L_GPU, 0 = from free memory), chunk_cols_as_streams (size L_GPU as a run
// with that many streams would: --compare's FastSpMM* run takes FastSpMM's L_GPU), transfer (auto,
// staged, registered, direct), device_memory_limit (bytes, A included), pinned_host (page-lock B and
// C before the runs, untimed) and product (auto, ellr, csr, set-spmvs: the chunk kernel).
//
// Timing is the instance's own: the wall clock of the synchronous call (the report's runtime, the
// paper's Runt: first copy enqueued to the last chunk of C in host memory), median of 3 runs unless
// the policy fixes the count. The median run's report (the paper's Table 4 columns, the PCIe bound)
// goes into params.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bench/cuda_support.hpp"
#include "bench/registry.hpp"
#include "spx/convert.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/cuda/spmm_host.hpp"
#include "spx/error.hpp"

namespace spx::bench {
namespace {

constexpr int kDefaultRuns = 3;  // a run streams all of B and C: seconds for the large products

// The options of one run, from the Problem's parameters (defaults where absent).
struct HostOptions {
  cuda::SpmmHostOptions streaming;
  int size_as_streams = 2;
  bool pinned_host = false;
  std::string product = "auto";
};

const char* const kKeys =
    "streams, chunk_cols, chunk_cols_as_streams, transfer, device_memory_limit, "
    "pinned_host, product";

// Throws spx::Error naming the parameter that is wrong.
HostOptions host_options(const Params& params, Layout layout) {
  HostOptions o;
  auto integer = [&](const Param& p, int64_t least, int64_t most) {
    const int64_t* v = std::get_if<int64_t>(&p.value);
    if (v == nullptr || *v < least || *v > most)
      throw Error(
          fmt::format("{} = {}: must be an integer in {}..{}", p.key, to_string(p.value), least, most));
    return *v;
  };
  bool as_given = false;
  for (const Param& p : params) {
    if (p.key == "streams") {
      o.streaming.streams = static_cast<int>(integer(p, 1, 16));
    } else if (p.key == "chunk_cols") {
      o.streaming.chunk_cols = integer(p, 0, std::numeric_limits<int64_t>::max());
    } else if (p.key == "chunk_cols_as_streams") {
      o.size_as_streams = static_cast<int>(integer(p, 1, 16));
      as_given = true;
    } else if (p.key == "device_memory_limit") {
      o.streaming.device_memory_limit =
          static_cast<std::size_t>(integer(p, 0, std::numeric_limits<int64_t>::max()));
    } else if (p.key == "transfer") {
      o.streaming.transfer = cuda::parse_host_transfer(to_string(p.value));
    } else if (p.key == "pinned_host") {
      const bool* v = std::get_if<bool>(&p.value);
      if (v == nullptr)
        throw Error(fmt::format("pinned_host = {}: must be true or false", to_string(p.value)));
      o.pinned_host = *v;
    } else if (p.key == "product") {
      o.product = to_string(p.value);
      if (o.product != "auto" && o.product != "ellr" && o.product != "csr" && o.product != "set-spmvs")
        throw Error(fmt::format("product = {}: use auto, ellr, csr or set-spmvs", o.product));
    } else {
      throw Error(fmt::format("host-resident SpMM has no parameter '{}' (it takes {})", p.key, kKeys));
    }
  }
  if (!as_given) o.size_as_streams = o.streaming.streams;
  if (o.product == "set-spmvs" && layout != Layout::ColMajor)
    throw Error("product set-spmvs multiplies column by column: it needs column-major B and C");
  return o;
}

// Pinned PCIe bandwidth, measured once per process (the PCIe bound of every run).
const cuda::PcieBandwidth& pcie_bandwidth() {
  static const cuda::PcieBandwidth bw = cuda::measure_pcie_bandwidth(bench_context());
  return bw;
}

template <class T>
class HostResidentSpmm final : public Instance {
 public:
  HostResidentSpmm(const Problem& p, Layout layout) : o_(host_options(p.params, layout)), layout_(layout) {
    cuda::Context& ctx = bench_context();
    const Csr<T, int32_t>& A = *p.input<T>().A;
    const Dense<T>& B = *p.input<T>().B;
    rows_ = A.rows;
    cols_ = A.cols;
    // The Problem's B where it has the layout (spx spmm asks the engine for it), else a copy
    // (untimed, as the caller's own B would be).
    if (B.layout != layout) own_b_ = copy_in_layout(B, layout, layout == Layout::RowMajor ? B.cols : B.rows);
    b_ = B.layout == layout ? &B : &own_b_;
    c_ = Dense<T>(A.rows, B.cols, layout);
    // The format for the chunk width the product will run at: resolve_chunk_cols needs A's device
    // size, so the auto L_GPU of a streamed run is estimated here as it would resolve it (about
    // L / 16, at least 8 columns).
    const int64_t L = B.cols;
    const int64_t width_guess =
        o_.streaming.chunk_cols > 0
            ? std::min(o_.streaming.chunk_cols, L)
            : (o_.size_as_streams >= 2 ? std::min(L, std::max<int64_t>(8, ((L + 15) / 16 + 7) / 8 * 8)) : L);
    product_name_ = o_.product;
    if (product_name_ == "auto")
      product_name_ = plan::spmm_format_rule(*p.stats, width_guess, ctx.props()) == cuda::SpmmFormat::EllR
                          ? "ellr"
                          : "csr";
    // Only the format the chunk kernel needs goes to the device (CSR through the shared cache, ELLR
    // converted on the host and owned here): the rest of device memory is the chunks'.
    if (product_name_ == "csr") {
      csr_ = device_csr<T>(p);
      a_bytes_ = csr_->bytes();
    } else {
      ellr_ = cuda::upload(ctx, to_ellr(A));
      a_bytes_ = ellr_.bytes();
    }
    cuda::SpmmHostOptions sizing = o_.streaming;
    sizing.streams = o_.size_as_streams;
    o_.streaming.chunk_cols = cuda::resolve_chunk_cols(ctx, rows_, cols_, a_bytes_, sizeof(T), L, sizing);
    make_product(*p.stats, o_.streaming.chunk_cols);
    if (o_.pinned_host) {
      pin_b_.emplace(b_->data.data(), b_->data.size() * sizeof(T));
      pin_c_.emplace(c_.data.data(), c_.data.size() * sizeof(T));
    }
    pcie_ = pcie_bandwidth();
  }

  void run() override {
    last_ =
        cuda::spmm_host<T>(bench_context(), rows_, cols_, a_bytes_, product_, false, *b_, c_, o_.streaming);
  }
  double timed_run_ms() override {
    run();
    return last_.runtime_ms;
  }
  bool measure(const TimingPolicy& policy, Timing& out) override {
    const int runs = policy.fixed_runs > 0 ? policy.fixed_runs : kDefaultRuns;
    std::vector<cuda::SpmmHostReport> reports;
    for (int i = 0; i < runs; ++i) {
      run();
      reports.push_back(last_);
    }
    std::sort(reports.begin(), reports.end(),
              [](const auto& a, const auto& b) { return a.runtime_ms < b.runtime_ms; });
    last_ = reports[reports.size() / 2];  // the median run's report goes into params
    std::vector<double> ms;
    for (const auto& r : reports) ms.push_back(r.runtime_ms);
    out = summarize(std::move(ms));
    return true;
  }
  void poison_output() override {
    std::fill(c_.data.begin(), c_.data.end(), std::numeric_limits<T>::quiet_NaN());
  }
  OutputView output() override { return OutputView(c_); }
  Params params() const override {
    const cuda::SpmmHostReport& r = last_;
    const double bound = cuda::pcie_bound_ms(r, pcie_);
    return {{"layout", layout_ == Layout::ColMajor ? "col" : "row"},
            {"mode", r.streams == 1 ? "fastspmm_star" : "fastspmm"},
            {"host_memory", o_.pinned_host ? "pinned" : "pageable"},
            {"product", product_name_},
            {"config", config_},
            {"streams", int64_t{r.streams}},
            {"chunk_cols", r.chunk_cols},
            {"chunks", r.chunks},
            {"transfer", std::string(cuda::to_string(r.transfer))},
            {"device_memory_limit", static_cast<int64_t>(o_.streaming.device_memory_limit)},
            {"processing_ms", r.processing_ms},
            {"communication_ms", r.communication_ms},
            {"h2d_ms", r.h2d_ms},
            {"d2h_ms", r.d2h_ms},
            {"staging_ms", r.staging_ms},
            {"setup_ms", r.setup_ms},
            {"percent_communication", r.percent_communication},
            {"exposed_ms", r.exposed_ms},
            {"h2d_bytes", static_cast<int64_t>(r.h2d_bytes)},
            {"d2h_bytes", static_cast<int64_t>(r.d2h_bytes)},
            {"device_bytes", static_cast<int64_t>(r.device_bytes)},
            {"pinned_bytes", static_cast<int64_t>(r.pinned_bytes)},
            {"pcie_bound_ms", bound},
            {"pcie_fraction", r.runtime_ms > 0 ? bound / r.runtime_ms : 0.0},
            {"pcie_h2d_gbs", pcie_.h2d_gbs},
            {"pcie_d2h_gbs", pcie_.d2h_gbs},
            {"pcie_h2d_concurrent_gbs", pcie_.h2d_concurrent_gbs},
            {"pcie_d2h_concurrent_gbs", pcie_.d2h_concurrent_gbs}};
  }

 private:
  // The chunk product of the resolved kernel, configured for the chunk width.
  void make_product(const MatrixStats& stats, int64_t chunk_cols) {
    cuda::Context& ctx = bench_context();
    const int64_t width = std::max<int64_t>(chunk_cols, 1);
    if (product_name_ == "ellr") {
      const cuda::SpmmEllrParams config = plan::spmm_ellr_rule(stats, width, ctx.props());
      config_ = cuda::to_string(config);
      product_ = [this, config](cuda::DenseView<const T> B, cuda::DenseView<T> C) {
        cuda::spmm_ellr_t(bench_context(), ellr_, B, C, config);
      };
    } else if (product_name_ == "set-spmvs") {
      config_ = "one ELLR-T SpMV per column";
      product_ = [this](cuda::DenseView<const T> B, cuda::DenseView<T> C) {
        cuda::spmm_set_spmvs(bench_context(), ellr_, B, C);
      };
    } else {
      const cuda::SpmmCsrParams config =
          plan::spmm_csr_rule(stats, width, ctx.props(), static_cast<int>(sizeof(T)));
      config_ = cuda::to_string(config);
      product_ = [this, config](cuda::DenseView<const T> B, cuda::DenseView<T> C) {
        cuda::spmm_csr(bench_context(), *csr_, B, C, config);
      };
    }
  }

  HostOptions o_;
  Layout layout_;
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  Dense<T> own_b_;
  const Dense<T>* b_ = nullptr;
  Dense<T> c_;
  std::string product_name_;
  std::string config_;
  std::shared_ptr<const cuda::DeviceCsr<T, int32_t>> csr_;
  cuda::DeviceEllR<T, int32_t> ellr_;
  std::size_t a_bytes_ = 0;
  cuda::ChunkProduct<T> product_;
  std::optional<cuda::PinnedRegion> pin_b_, pin_c_;
  cuda::PcieBandwidth pcie_;
  cuda::SpmmHostReport last_;
};

void add_host(Registry& registry, const char* name, Layout layout, const char* summary) {
  auto e = cuda_entry(name, OpKind::Spmm, Format::Csr, false, summary);
  e.study = true;
  e.layout = layout;
  e.host_resident = true;
  e.check_params = [layout](const Problem&, const Params& params) -> std::string {
    try {
      host_options(params, layout);
      return {};
    } catch (const Error& error) {
      return error.what();
    }
  };
  e.prepare = [layout](const Problem& p) {
    return with_precision(p, [&](auto tag) -> std::unique_ptr<Instance> {
      return std::make_unique<HostResidentSpmm<decltype(tag)>>(p, layout);
    });
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_spmm_host(Registry& registry) {
  add_host(registry, "spmm_host_row", Layout::RowMajor,
           "host-resident SpMM (FastSpMM): B and C row-major in host memory, streamed in column chunks");
  add_host(registry, "spmm_host_col", Layout::ColMajor,
           "host-resident SpMM (FastSpMM): B and C column-major in host memory, streamed in column chunks");
}

}  // namespace spx::bench
