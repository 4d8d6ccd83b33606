// The CPU entries of the kernel registry: spx::omp (all threads) and the spx::ref oracle kernels
// on every format. Format conversions happen in prepare(), untimed, as for device uploads.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "bench/host_device.hpp"
#include "bench/registry.hpp"
#include "spx/convert.hpp"
#include "spx/cpu.hpp"

namespace spx::bench {
namespace {

// The reference GEMM is a plain triple loop on one thread: N = 1024 already takes seconds per
// call, and larger N would stall a CPU benchmark for minutes.
constexpr int64_t kMaxReferenceGemmN = 1024;

// ELL pads every row to the longest: past this many slots per nonzero the CPU reference run is
// dominated by multiplying padding (rmat_16 in the small suite pads 500x: seconds per call).
// Such matrices are what HYB is for; the skip note says so.
constexpr double kMaxEllPaddingRatio = 20;

std::string ell_padding_skip(const Problem& p) {
  if (p.stats == nullptr || p.stats->ell_padding_ratio <= kMaxEllPaddingRatio) return {};
  return fmt::format(
      "ELL padding {:.0f} slots per nonzero > {:.0f} (longest row {}): use HYB for such matrices",
      p.stats->ell_padding_ratio, kMaxEllPaddingRatio, p.stats->max_row);
}

template <class T>
void fill_nan(std::span<T> v) {
  std::fill(v.begin(), v.end(), std::numeric_limits<T>::quiet_NaN());
}

// y = A·x on the host with a matrix already in the kernel's format (owned, or a pointer to the
// Problem's Csr when no conversion is needed).
template <class T, class Matrix, class Kernel>
class HostSpmv final : public Instance {
 public:
  HostSpmv(Matrix matrix, std::span<const T> x, int64_t rows, Kernel kernel, Params params)
      : matrix_(std::move(matrix)),
        x_(x),
        y_(static_cast<std::size_t>(rows)),
        kernel_(kernel),
        params_(std::move(params)) {}

  void run() override { kernel_(matrix_, x_, std::span<T>(y_)); }
  void poison_output() override { fill_nan(std::span<T>(y_)); }
  OutputView output() override { return OutputView(std::span<const T>(y_)); }
  Params params() const override { return params_; }

 private:
  Matrix matrix_;
  std::span<const T> x_;
  std::vector<T> y_;
  Kernel kernel_;
  Params params_;
};

// C = A·B with B and C column-major dense.
template <class T, class Matrix, class Kernel>
class HostSpmm final : public Instance {
 public:
  HostSpmm(Matrix matrix, const Dense<T>& B, int64_t rows, Kernel kernel, Params params)
      : matrix_(std::move(matrix)),
        B_(B),
        C_(rows, B.cols, Layout::ColMajor),
        kernel_(kernel),
        params_(std::move(params)) {}

  void run() override { kernel_(matrix_, B_, C_); }
  void poison_output() override { fill_nan(std::span<T>(C_.data)); }
  OutputView output() override { return OutputView(C_); }
  Params params() const override { return params_; }

 private:
  Matrix matrix_;
  const Dense<T>& B_;
  Dense<T> C_;
  Kernel kernel_;
  Params params_;
};

template <class T>
class HostGemm final : public Instance {
 public:
  HostGemm(const Dense<T>& A, const Dense<T>& B) : A_(A), B_(B), C_(A.rows, B.cols, Layout::ColMajor) {}

  void run() override {
    ref::gemm(Op::N, Op::N, C_.rows, C_.cols, A_.cols, T{1}, A_.data.data(), A_.ld, B_.data.data(), B_.ld,
              T{0}, C_.data.data(), C_.ld);
  }
  void poison_output() override { fill_nan(std::span<T>(C_.data)); }
  OutputView output() override { return OutputView(C_); }
  Params params() const override { return {{"threads", int64_t{1}}, {"op_a", "N"}, {"op_b", "N"}}; }

 private:
  const Dense<T>& A_;
  const Dense<T>& B_;
  Dense<T> C_;
};

template <class T, class Matrix, class Kernel>
std::unique_ptr<Instance> host_spmv(Matrix matrix, const Problem& p, Kernel kernel, Params params) {
  return std::make_unique<HostSpmv<T, Matrix, Kernel>>(std::move(matrix), p.input<T>().x, p.rows, kernel,
                                                       std::move(params));
}

template <class T, class Matrix, class Kernel>
std::unique_ptr<Instance> host_spmm(Matrix matrix, const Problem& p, Kernel kernel, Params params) {
  return std::make_unique<HostSpmm<T, Matrix, Kernel>>(std::move(matrix), *p.input<T>().B, p.rows, kernel,
                                                       std::move(params));
}

// Calls make(T{}) with T = float or double as the Problem asks.
template <class Make>
std::unique_ptr<Instance> with_precision(const Problem& p, Make&& make) {
  if (p.precision == Precision::F32) return make(float{});
  return make(double{});
}

// A CSR kernel on the Problem's matrix as held: 32- or 64-bit indices (Problem::offset_bits).
// `kernel` is generic in the matrix pointer's type; `make` is host_spmv<T> or host_spmm<T>.
template <class T, class Kernel, class Make>
std::unique_ptr<Instance> on_csr(const Problem& p, Kernel kernel, Params params, Make make) {
  if (p.offset_bits == 64) return make(p.input<T>().A_wide, p, kernel, std::move(params));
  return make(p.input<T>().A, p, kernel, std::move(params));
}

Params single_thread() { return {{"threads", int64_t{1}}}; }
Params all_threads() { return {{"threads", int64_t{host_threads()}}}; }

KernelEntry cpu_entry(std::string name, OpKind op, Format format, bool reference, std::string summary) {
  KernelEntry e;
  e.name = std::move(name);
  e.backend = "cpu";
  e.op = op;
  e.format = format;
  e.reference = reference;
  e.summary = std::move(summary);
  if (op == OpKind::Spmm) e.layout = Layout::ColMajor;  // the Problem's B, and C as HostSpmm makes it
  return e;
}

void register_spmv(Registry& registry) {
  auto omp_csr = cpu_entry("omp_csr", OpKind::Spmv, Format::Csr, false, "OpenMP CSR SpMV (spx::omp::spmv)");
  omp_csr.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto kernel = [](const auto* A, std::span<const T> x, std::span<T> y) { omp::spmv(*A, x, y); };
      return on_csr<T>(p, kernel, all_threads(),
                       [](auto A, const Problem& q, auto k, Params ps) { return host_spmv<T>(A, q, k, ps); });
    });
  };
  omp_csr.offsets64 = true;
  registry.add(std::move(omp_csr));

  auto ref_csr =
      cpu_entry("ref_csr", OpKind::Spmv, Format::Csr, true, "reference CSR SpMV (spx::ref), 1 thread");
  ref_csr.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto kernel = [](const auto* A, std::span<const T> x, std::span<T> y) { ref::spmv(*A, x, y); };
      return on_csr<T>(p, kernel, single_thread(),
                       [](auto A, const Problem& q, auto k, Params ps) { return host_spmv<T>(A, q, k, ps); });
    });
  };
  ref_csr.offsets64 = true;
  registry.add(std::move(ref_csr));

  auto ref_coo =
      cpu_entry("ref_coo", OpKind::Spmv, Format::Coo, true, "reference COO SpMV (spx::ref), 1 thread");
  ref_coo.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto kernel = [](const Coo<T, int32_t>& A, std::span<const T> x, std::span<T> y) {
        ref::spmv(A, x, y);
      };
      return host_spmv<T>(to_coo(*p.input<T>().A), p, kernel, single_thread());
    });
  };
  registry.add(std::move(ref_coo));

  auto ref_ell =
      cpu_entry("ref_ell", OpKind::Spmv, Format::Ell, true, "reference ELL SpMV (spx::ref), 1 thread");
  ref_ell.skip_reason = ell_padding_skip;
  ref_ell.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto kernel = [](const Ell<T, int32_t>& A, std::span<const T> x, std::span<T> y) {
        ref::spmv(A, x, y);
      };
      Ell<T, int32_t> ell = to_ell(*p.input<T>().A);
      Params params = single_thread();
      params.push_back({"width", int64_t{ell.width}});
      return host_spmv<T>(std::move(ell), p, kernel, std::move(params));
    });
  };
  registry.add(std::move(ref_ell));

  auto ref_ellr = cpu_entry("ref_ellr", OpKind::Spmv, Format::EllR, true,
                            "reference ELLPACK-R SpMV (spx::ref), 1 thread");
  ref_ellr.skip_reason = ell_padding_skip;
  ref_ellr.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto kernel = [](const EllR<T, int32_t>& A, std::span<const T> x, std::span<T> y) {
        ref::spmv(A, x, y);
      };
      EllR<T, int32_t> ellr = to_ellr(*p.input<T>().A);
      Params params = single_thread();
      params.push_back({"width", int64_t{ellr.width}});
      return host_spmv<T>(std::move(ellr), p, kernel, std::move(params));
    });
  };
  registry.add(std::move(ref_ellr));

  auto ref_hyb = cpu_entry("ref_hyb", OpKind::Spmv, Format::Hyb, true,
                           "reference HYB SpMV (spx::ref; Bell-Garland ELL width), 1 thread");
  ref_hyb.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto kernel = [](const Hyb<T, int32_t>& A, std::span<const T> x, std::span<T> y) {
        ref::spmv(A, x, y);
      };
      Hyb<T, int32_t> hyb = to_hyb(*p.input<T>().A);
      Params params = single_thread();
      params.push_back({"ell_width", int64_t{hyb.ell.width}});
      params.push_back({"coo_nnz", int64_t{hyb.coo.nnz()}});
      return host_spmv<T>(std::move(hyb), p, kernel, std::move(params));
    });
  };
  registry.add(std::move(ref_hyb));
}

void register_spmm(Registry& registry) {
  auto omp_csr = cpu_entry("omp_csr", OpKind::Spmm, Format::Csr, false,
                           "OpenMP CSR SpMM (spx::omp::spmm), column-major B and C");
  omp_csr.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto kernel = [](const auto* A, const Dense<T>& B, Dense<T>& C) { omp::spmm(*A, B, C); };
      Params params = all_threads();
      params.push_back({"layout", "col"});
      return on_csr<T>(p, kernel, std::move(params),
                       [](auto A, const Problem& q, auto k, Params ps) { return host_spmm<T>(A, q, k, ps); });
    });
  };
  omp_csr.offsets64 = true;
  registry.add(std::move(omp_csr));

  auto ref_csr =
      cpu_entry("ref_csr", OpKind::Spmm, Format::Csr, true, "reference CSR SpMM (spx::ref), 1 thread");
  ref_csr.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto kernel = [](const auto* A, const Dense<T>& B, Dense<T>& C) { ref::spmm(*A, B, C); };
      Params params = single_thread();
      params.push_back({"layout", "col"});
      return on_csr<T>(p, kernel, std::move(params),
                       [](auto A, const Problem& q, auto k, Params ps) { return host_spmm<T>(A, q, k, ps); });
    });
  };
  ref_csr.offsets64 = true;
  registry.add(std::move(ref_csr));

  auto ref_ellr = cpu_entry("ref_ellr", OpKind::Spmm, Format::EllR, true,
                            "reference ELLPACK-R SpMM (spx::ref), 1 thread");
  ref_ellr.skip_reason = ell_padding_skip;
  ref_ellr.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto kernel = [](const EllR<T, int32_t>& A, const Dense<T>& B, Dense<T>& C) { ref::spmm(A, B, C); };
      EllR<T, int32_t> ellr = to_ellr(*p.input<T>().A);
      Params params = single_thread();
      params.push_back({"layout", "col"});
      params.push_back({"width", int64_t{ellr.width}});
      return host_spmm<T>(std::move(ellr), p, kernel, std::move(params));
    });
  };
  registry.add(std::move(ref_ellr));
}

void register_gemm(Registry& registry) {
  auto ref =
      cpu_entry("ref_gemm", OpKind::Gemm, Format::Dense, true,
                fmt::format("reference column-major GEMM (spx::ref), 1 thread, N <= {}", kMaxReferenceGemmN));
  ref.skip_reason = [](const Problem& p) -> std::string {
    // m * n * k against N^3 (p.rows = m, p.cols = k, p.cols_dense = n), in double: no overflow.
    const double work =
        static_cast<double>(p.rows) * static_cast<double>(p.cols) * static_cast<double>(p.cols_dense);
    const double limit = static_cast<double>(kMaxReferenceGemmN) * kMaxReferenceGemmN * kMaxReferenceGemmN;
    if (work <= limit) return {};
    return fmt::format("m*n*k = {}x{}x{} > {}^3: the reference GEMM is a single-thread O(mnk) loop", p.rows,
                       p.cols_dense, p.cols, kMaxReferenceGemmN);
  };
  ref.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) -> std::unique_ptr<Instance> {
      using T = decltype(tag);
      return std::make_unique<HostGemm<T>>(*p.input<T>().A_dense, *p.input<T>().B);
    });
  };
  registry.add(std::move(ref));
}

}  // namespace

void register_cpu_kernels(Registry& registry) {
  // No free_memory: the host's memory is checked for every backend (bench/footprint.hpp).
  registry.add_backend({"cpu", [] { return std::string(); }, [] { return describe_host(); }, {}});
  register_spmv(registry);
  register_spmm(registry);
  register_gemm(registry);
}

}  // namespace spx::bench
