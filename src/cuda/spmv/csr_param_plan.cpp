// Plans and entry points of the parametrised CSR SpMV: the plan is made once per matrix (fixed
// rule, long-row split, its device copy and scratch); a product is host checks plus one launch.
#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/common/scale.hpp"
#include "cuda/spmv/csr_long_rows.hpp"
#include "cuda/spmv/csr_param_launch.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

namespace {

template <class T, class O>
CsrSpmvPlan make_plan(Context& ctx, const DeviceCsr<T, int32_t, O>& dA, std::span<const O> row_ptr,
                      std::optional<CsrSpmvParams> params, std::optional<int64_t> long_row_threshold,
                      const MatrixStats* known_stats = nullptr) {
  CsrSpmvPlan plan;
  plan.rows = dA.rows;
  plan.cols = dA.cols;
  plan.nnz = dA.nnz;
  plan.row_ptr = dA.row_ptr.data();
  plan.stats = known_stats != nullptr ? *known_stats : csr_row_length_stats(dA.rows, dA.cols, row_ptr);
  if (params) {
    validate(*params, "plan_csr_spmv");
    plan.params = *params;
  } else {
    plan.params = plan::csr_fixed_rule(plan.stats, ctx.props());
  }
  if (long_row_threshold && *long_row_threshold < 0)
    throw Error(fmt::format("plan_csr_spmv: long-row threshold {} is negative", *long_row_threshold));
  plan.long_row_threshold = long_row_threshold
                                ? *long_row_threshold
                                : plan::csr_long_row_threshold(plan.stats.nnz, plan.params, ctx.props());

  // No row past the threshold (the statistics' longest row says so): no pass for the split. Else
  // the device makes it (csr_long_rows.hpp: a host walk of millions of rows cost milliseconds).
  if (plan.stats.max_row <= plan.long_row_threshold || dA.rows == 0) return plan;
  detail::DeviceLongRowSplit split =
      detail::split_long_rows_on_device(ctx, dA.row_ptr.data(), dA.rows, plan.long_row_threshold);
  plan.long_row_nnz = split.nnz;
  plan.long_row_chunks = split.chunks;
  if (!split.rows.empty()) {
    plan.d_long_rows = std::move(split.d_rows);
    plan.d_chunk_begin = std::move(split.d_chunk_begin);
    plan.d_chunk_owner = std::move(split.d_chunk_owner);
    plan.d_partials =
        DeviceBuffer<double>(static_cast<std::size_t>(split.chunks), "long-row partial sums of a CSR plan");
    // Zero once here; the last chunk of each row resets its counter at the end of every call.
    plan.d_arrivals = DeviceBuffer<uint32_t>(split.rows.size(), "long-row counters");
    SPX_CUDA_CHECK(cudaMemsetAsync(plan.d_arrivals.data(), 0, plan.d_arrivals.bytes(), ctx.stream()));
  }
  plan.long_rows = std::move(split.rows);
  return plan;
}

template <class T, class V = T, class O = int32_t>
CsrParamArgs<T, V, O> main_args(const DeviceCsr<T, int32_t, O>& dA, std::span<const T> x, std::span<T> y,
                                T alpha, T beta, const CsrSpmvParams& params, const V* values) {
  CsrParamArgs<T, V, O> a;
  a.rows = dA.rows;
  a.row_ptr = dA.row_ptr.data();
  a.col_idx = dA.col_idx.data();
  a.values = values;
  a.x = x.data();
  a.y = y.data();
  a.alpha = alpha;
  a.beta = beta;
  a.repeat = params.repeat;
  a.long_row_threshold = std::numeric_limits<int64_t>::max();
  return a;
}

}  // namespace

template <class T>
CsrSpmvPlan plan_csr_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA, std::optional<CsrSpmvParams> params,
                          std::optional<int64_t> long_row_threshold) {
  std::vector<int32_t> row_ptr(static_cast<std::size_t>(dA.rows) + 1, 0);
  if (dA.rows > 0)
    copy_to_host_sync(ctx, row_ptr.data(), dA.row_ptr.data(), row_ptr.size() * sizeof(int32_t));
  return make_plan(ctx, dA, std::span<const int32_t>(row_ptr), params, long_row_threshold);
}

template <class T>
CsrSpmvPlan plan_csr_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA, const Csr<T, int32_t>& A,
                          std::optional<CsrSpmvParams> params, std::optional<int64_t> long_row_threshold) {
  if (A.rows != dA.rows || A.cols != dA.cols || A.nnz() != dA.nnz ||
      A.row_ptr.size() != static_cast<std::size_t>(dA.rows) + 1) {
    throw Error(
        fmt::format("plan_csr_spmv: the host matrix ({} x {}, {} nonzeros) is not the device one "
                    "({} x {}, {} nonzeros)",
                    A.rows, A.cols, A.nnz(), dA.rows, dA.cols, dA.nnz));
  }
  return make_plan(ctx, dA, std::span<const int32_t>(A.row_ptr), params, long_row_threshold);
}

template <class T>
CsrSpmvPlan plan_csr_spmv(Context& ctx, const DeviceCsr<T, int32_t>& dA, const Csr<T, int32_t>& A,
                          const MatrixStats& row_stats, std::optional<CsrSpmvParams> params,
                          std::optional<int64_t> long_row_threshold) {
  if (row_stats.rows != A.rows || row_stats.cols != A.cols || row_stats.nnz != A.nnz())
    throw Error(
        fmt::format("plan_csr_spmv: the statistics ({} x {}, {} nonzeros) are not the matrix's "
                    "({} x {}, {} nonzeros)",
                    row_stats.rows, row_stats.cols, row_stats.nnz, A.rows, A.cols, A.nnz()));
  if (A.rows != dA.rows || A.cols != dA.cols || A.nnz() != dA.nnz)
    return plan_csr_spmv(ctx, dA, A, params, long_row_threshold);  // throws, naming both shapes
  return make_plan(ctx, dA, std::span<const int32_t>(A.row_ptr), params, long_row_threshold, &row_stats);
}

template <class T>
CsrSpmvPlan plan_csr_spmv(Context& ctx, const WideDeviceCsr<T>& dA, std::span<const int64_t> host_row_ptr,
                          const MatrixStats& row_stats, std::optional<CsrSpmvParams> params,
                          std::optional<int64_t> long_row_threshold) {
  if (host_row_ptr.size() != static_cast<std::size_t>(dA.rows) + 1 || row_stats.rows != dA.rows ||
      row_stats.cols != dA.cols || row_stats.nnz != dA.nnz || host_row_ptr.back() != dA.nnz)
    throw Error(fmt::format(
        "plan_csr_spmv: the host row pointer ({} entries, ending at {}) and statistics ({} x {}, {} "
        "nonzeros) are not the device matrix's ({} x {}, {} nonzeros)",
        host_row_ptr.size(), host_row_ptr.empty() ? 0 : host_row_ptr.back(), row_stats.rows, row_stats.cols,
        row_stats.nnz, dA.rows, dA.cols, dA.nnz));
  return make_plan(ctx, dA, host_row_ptr, params, long_row_threshold, &row_stats);
}

namespace {

// The planned launch with the matrix's values at `values` (dA's own, or csr_param_mixed's float copy).
template <class T, class V, class O>
void run_plan(Context& ctx, CsrSpmvPlan& plan, const DeviceCsr<T, int32_t, O>& dA, const V* values,
              std::span<const T> x, std::span<T> y, T alpha, T beta, const char* what) {
  check_spmv_operands(what, dA.rows, dA.cols, x, y);
  if (plan.rows != dA.rows || plan.cols != dA.cols || plan.nnz != dA.nnz ||
      plan.row_ptr != dA.row_ptr.data()) {
    throw Error(
        fmt::format("{}: the plan was made for another matrix ({} x {}, {} nonzeros); "
                    "plan this one with plan_csr_spmv",
                    what, plan.rows, plan.cols, plan.nnz));
  }
  validate(plan.params, what);
  if (dA.rows == 0) return;
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), static_cast<std::size_t>(dA.rows), beta);
  CsrParamArgs<T, V, O> a = main_args<T, V, O>(dA, x, y, alpha, beta, plan.params, values);
  a.long_row_threshold = plan.long_row_threshold;
  if (plan.has_long_rows()) {
    const int64_t warps_per_block = plan.params.block_size / 32;
    a.long_chunks = static_cast<int32_t>(plan.long_row_chunks);
    a.long_blocks = static_cast<int32_t>((plan.long_row_chunks + warps_per_block - 1) / warps_per_block);
    a.long_rows = plan.d_long_rows.data();
    a.chunk_begin = plan.d_chunk_begin.data();
    a.chunk_owner = plan.d_chunk_owner.data();
    a.partials = reinterpret_cast<T*>(plan.d_partials.data());
    a.arrivals = plan.d_arrivals.data();
  }
  launch_csr_param(ctx, plan.params, a);
}

}  // namespace

template <class T>
void spmv_csr(Context& ctx, CsrSpmvPlan& plan, const DeviceCsr<T, int32_t>& dA, std::span<const T> x,
              std::span<T> y, T alpha, T beta) {
  run_plan(ctx, plan, dA, dA.values.data(), x, y, alpha, beta, "spmv_csr");
}

template <class T>
void spmv_csr(Context& ctx, CsrSpmvPlan& plan, const WideDeviceCsr<T>& dA, std::span<const T> x,
              std::span<T> y, T alpha, T beta) {
  run_plan(ctx, plan, dA, dA.values.data(), x, y, alpha, beta, "spmv_csr");
}

void spmv_csr_mixed(Context& ctx, CsrSpmvPlan& plan, const DeviceCsr<double, int32_t>& dA,
                    std::span<const float> values, std::span<const double> x, std::span<double> y,
                    double alpha, double beta) {
  if (static_cast<int64_t>(values.size()) != dA.nnz)
    throw Error(
        fmt::format("spmv_csr_mixed: {} float values for a matrix of {} nonzeros", values.size(), dA.nnz));
  run_plan(ctx, plan, dA, values.data(), x, y, alpha, beta, "spmv_csr_mixed");
}

template <class T>
void spmv_csr_params(Context& ctx, const CsrSpmvParams& params, const DeviceCsr<T, int32_t>& dA,
                     std::span<const T> x, std::span<T> y, T alpha, T beta) {
  check_spmv_operands("spmv_csr_params", dA.rows, dA.cols, x, y);
  validate(params, "spmv_csr_params");
  if (dA.rows == 0) return;
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), static_cast<std::size_t>(dA.rows), beta);
  launch_csr_param(ctx, params, main_args(dA, x, y, alpha, beta, params, dA.values.data()));
}

#define SPX_INSTANTIATE_CSR_PARAM(T)                                                                        \
  template CsrSpmvPlan plan_csr_spmv(Context&, const DeviceCsr<T, int32_t>&, std::optional<CsrSpmvParams>,  \
                                     std::optional<int64_t>);                                               \
  template CsrSpmvPlan plan_csr_spmv(Context&, const DeviceCsr<T, int32_t>&, const Csr<T, int32_t>&,        \
                                     std::optional<CsrSpmvParams>, std::optional<int64_t>);                 \
  template CsrSpmvPlan plan_csr_spmv(Context&, const DeviceCsr<T, int32_t>&, const Csr<T, int32_t>&,        \
                                     const MatrixStats&, std::optional<CsrSpmvParams>,                      \
                                     std::optional<int64_t>);                                               \
  template void spmv_csr(Context&, CsrSpmvPlan&, const DeviceCsr<T, int32_t>&, std::span<const T>,          \
                         std::span<T>, T, T);                                                               \
  template void spmv_csr_params(Context&, const CsrSpmvParams&, const DeviceCsr<T, int32_t>&,               \
                                std::span<const T>, std::span<T>, T, T);                                    \
  template CsrSpmvPlan plan_csr_spmv(Context&, const WideDeviceCsr<T>&, std::span<const int64_t>,           \
                                     const MatrixStats&, std::optional<CsrSpmvParams>,                      \
                                     std::optional<int64_t>);                                               \
  template void spmv_csr(Context&, CsrSpmvPlan&, const WideDeviceCsr<T>&, std::span<const T>, std::span<T>, \
                         T, T);
SPX_INSTANTIATE_CSR_PARAM(float)
SPX_INSTANTIATE_CSR_PARAM(double)
#undef SPX_INSTANTIATE_CSR_PARAM

}  // namespace spx::cuda
