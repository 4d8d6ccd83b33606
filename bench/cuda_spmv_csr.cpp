// The CUDA CSR SpMV entries of issue 4's CSR part: CSR-vector (one warp per row) and the
// parametrised Reguly-Giles kernel under the fixed rule with its long-row path (`csr_param`), on
// the same cached device copies of A and x as the other CUDA SpMV entries. The plan (fixed rule,
// long-row split) is made in prepare(), untimed, as a solver would make it once per matrix.
#include <memory>
#include <span>
#include <vector>

#include "bench/cuda_support.hpp"
#include "spx/cuda/spmv_csr.hpp"

namespace spx::bench {
namespace {

// y = A·x with the cached A and x and a fresh y; `launch(A, x, y)` enqueues one product.
template <class T, class Launch>
std::unique_ptr<Instance> csr_instance(const Problem& p, std::shared_ptr<const cuda::DeviceCsr<T, int32_t>> A,
                                       Params params, Launch launch) {
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

Params params_of(const cuda::CsrSpmvParams& p) {
  return {{"block_size", int64_t{p.block_size}},
          {"threads_per_row", int64_t{p.coop}},
          {"repeat", int64_t{p.repeat}}};
}

void add_csr_vector(Registry& registry) {
  auto e = cuda_entry("csr_vector", OpKind::Spmv, Format::Csr, false,
                      "spx CSR-vector SpMV: one warp per row (Bell & Garland; spx::cuda::spmv_csr_vector)");
  e.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      return csr_instance<T>(p, device_csr<T>(p), params_of(cuda::kCsrVectorParams),
                             [](const cuda::DeviceCsr<T, int32_t>& A, std::span<const T> x, std::span<T> y) {
                               cuda::spmv_csr_vector(bench_context(), A, x, y);
                             });
    });
  };
  registry.add(std::move(e));
}

void add_csr_param(Registry& registry) {
  auto e = cuda_entry("csr_param", OpKind::Spmv, Format::Csr, false,
                      "spx parametrised CSR SpMV (Reguly & Giles) under the fixed rule, long rows split off "
                      "(spx::cuda::spmv_csr)");
  e.prepare = [](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      auto A = device_csr<T>(p);
      auto plan =
          std::make_shared<cuda::CsrSpmvPlan>(cuda::plan_csr_spmv(bench_context(), *A, *p.input<T>().A));
      Params params = params_of(plan->params);
      params.push_back({"long_rows", static_cast<int64_t>(plan->long_rows.size())});
      params.push_back({"long_row_threshold", plan->long_row_threshold});
      params.push_back({"long_row_nnz", plan->long_row_nnz});
      return csr_instance<T>(p, std::move(A), std::move(params),
                             [plan](const cuda::DeviceCsr<T, int32_t>& dA, std::span<const T> x,
                                    std::span<T> y) { cuda::spmv_csr(bench_context(), *plan, dA, x, y); });
    });
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_spmv_csr(Registry& registry) {
  add_csr_vector(registry);
  add_csr_param(registry);
}

}  // namespace spx::bench
