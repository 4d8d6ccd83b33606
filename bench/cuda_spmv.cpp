// The CUDA SpMV entries: our CSR-scalar and the cuSPARSE baselines (CSR ALG1 and ALG2, COO ALG1,
// SELL ALG1), all on the same device copies of A and x (uploaded once per matrix and precision).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "bench/cuda_support.hpp"
#include "spx/cuda/spmv.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::bench {
namespace {

using cuda::CusparseSpmvAlg;

// SELL-32 pads each slice of 32 rows to its longest row. Past this many stored slots per nonzero
// the host-side build and the padded traffic measure the padding, not cuSPARSE (longrows_10m
// would store 9 slots per nonzero, 3.5 GB in f64); CSR ALG1/ALG2 remain the baselines there.
constexpr double kMaxSellSlotsPerNonzero = 4;
constexpr int32_t kSellSliceSize = 32;

// y = A·x with x from the cache and a fresh y. `make_launch(x, y, params)` returns the callable
// that enqueues one product; it must keep its matrix alive (capture the shared_ptr).
template <class T, class MakeLaunch>
std::unique_ptr<Instance> spmv_instance(const Problem& p, std::size_t matrix_bytes, Params params,
                                        MakeLaunch&& make_launch) {
  auto x = device_x<T>(p);
  auto y = std::make_shared<cuda::DeviceBuffer<T>>(static_cast<std::size_t>(p.rows), "y");
  CudaInstanceParts parts;
  parts.launch = [launch = make_launch(x->span(), y->span(), params), x, y] { launch(); };
  parts.view = [y] { return staged_view(*y); };
  parts.output = y->data();
  parts.output_bytes = y->bytes();
  parts.working_set = matrix_bytes + x->bytes() + y->bytes();
  parts.params = std::move(params);
  return std::make_unique<CudaInstance>(std::move(parts));
}

// A cuSPARSE SpMV on `A` (a shared_ptr to a device matrix), with its algorithm and workspace in
// the params.
template <class T, class Matrix>
std::unique_ptr<Instance> cusparse_spmv(const Problem& p, std::shared_ptr<const Matrix> A,
                                        CusparseSpmvAlg alg, Params params) {
  params.push_back({"algorithm", std::string(cuda::kernel_name(alg))});
  return spmv_instance<T>(
      p, A->bytes(), std::move(params), [A, alg](std::span<const T> x, std::span<T> y, Params& out) {
        auto op = std::make_shared<cuda::CusparseSpmv<T, int32_t>>(bench_context(), *A, alg, x, y);
        out.push_back({"workspace_bytes", static_cast<int64_t>(op->workspace_bytes())});
        return [op, A] { op->run(); };
      });
}

// Slots SELL-C stores for A: each slice of C rows padded to its longest row.
template <class T>
int64_t sell_slots(const Csr<T, int32_t>& A, int64_t slice) {
  int64_t slots = 0;
  for (int64_t first = 0; first < A.rows; first += slice) {
    int64_t width = 0;
    for (int64_t r = first; r < std::min<int64_t>(A.rows, first + slice); ++r)
      width = std::max<int64_t>(width, A.row_length(static_cast<int32_t>(r)));
    slots += width * slice;
  }
  return slots;
}

void add_csr_scalar(Registry& registry) {
  auto e = cuda_entry("csr_scalar", OpKind::Spmv, Format::Csr, false,
                      "spx CSR-scalar SpMV: one thread per row (spx::cuda::spmv_csr_scalar)");
  e.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto A = device_csr<T>(p);
      Params params = {{"threads_per_row", int64_t{1}}, {"block_size", int64_t{256}}};
      return spmv_instance<T>(p, A->bytes(), std::move(params),
                              [A](std::span<const T> x, std::span<T> y, Params&) {
                                return [A, x, y] { cuda::spmv_csr_scalar(bench_context(), *A, x, y); };
                              });
    });
  };
  registry.add(std::move(e));
}

void add_cusparse_csr(Registry& registry, CusparseSpmvAlg alg, const char* what) {
  auto e = cuda_entry(cuda::kernel_name(alg), OpKind::Spmv, Format::Csr, true, what);
  e.prepare = [alg](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      return cusparse_spmv<T>(p, device_csr<T>(p), alg, {});
    });
  };
  registry.add(std::move(e));
}

void add_cusparse_coo(Registry& registry, CusparseSpmvAlg alg, const char* summary) {
  auto e = cuda_entry(cuda::kernel_name(alg), OpKind::Spmv, Format::Coo, true, summary);
  e.prepare = [alg](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      return cusparse_spmv<T>(p, device_coo<T>(p), alg, {});
    });
  };
  registry.add(std::move(e));
}

void add_cusparse_sell(Registry& registry) {
  const CusparseSpmvAlg alg = CusparseSpmvAlg::SellAlg1;
  auto e =
      cuda_entry(cuda::kernel_name(alg), OpKind::Spmv, Format::Sell, true,
                 fmt::format("cuSPARSE SpMV, SELL-{} built on the host, CUSPARSE_SPMV_SELL_ALG1; skipped "
                             "past {} stored slots per nonzero",
                             kSellSliceSize, kMaxSellSlotsPerNonzero));
  e.prepare = [alg](const Problem& p) {
    return with_precision(p, [&](auto tag) -> std::unique_ptr<Instance> {
      using T = decltype(tag);
      const Csr<T, int32_t>& host = *p.input<T>().A;
      const int64_t slots = sell_slots(host, kSellSliceSize);
      const double ratio = static_cast<double>(slots) / static_cast<double>(std::max<int64_t>(1, host.nnz()));
      if (ratio > kMaxSellSlotsPerNonzero) {
        throw Error(
            fmt::format("SELL-{} would store {:.1f} slots per nonzero (> {}): rows of very different "
                        "lengths share slices",
                        kSellSliceSize, ratio, kMaxSellSlotsPerNonzero));
      }
      auto A = std::make_shared<const cuda::DeviceSell<T, int32_t>>(
          cuda::upload_sell(bench_context(), host, kSellSliceSize));
      Params params = {{"slice_size", int64_t{kSellSliceSize}}, {"stored_slots", slots}};
      return cusparse_spmv<T>(p, std::move(A), alg, std::move(params));
    });
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_spmv(Registry& registry) {
  add_csr_scalar(registry);
  add_cusparse_csr(registry, CusparseSpmvAlg::CsrAlg1,
                   "cuSPARSE SpMV, CSR, CUSPARSE_SPMV_CSR_ALG1 (default)");
  add_cusparse_csr(registry, CusparseSpmvAlg::CsrAlg2,
                   "cuSPARSE SpMV, CSR, CUSPARSE_SPMV_CSR_ALG2 (deterministic, for irregular rows)");
  add_cusparse_coo(registry, CusparseSpmvAlg::CooAlg1,
                   "cuSPARSE SpMV, COO (row-sorted), CUSPARSE_SPMV_COO_ALG1");
  add_cusparse_coo(registry, CusparseSpmvAlg::CooAlg2,
                   "cuSPARSE SpMV, COO (row-sorted), CUSPARSE_SPMV_COO_ALG2 (deterministic)");
  add_cusparse_sell(registry);
}

}  // namespace spx::bench
