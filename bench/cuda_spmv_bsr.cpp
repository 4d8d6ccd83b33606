// The BSR SpMV entries: spx's kernel (`bsr`) and cuSPARSE's (`cusparse_bsr`), both on the BSR the
// planner would build: the block size that moves the fewest bytes (plan::best_bsr_block on the
// exact block counts), converted on the host. A matrix where no block size saves
// PlannerRuleTable::bsr_min_saving of CSR's bytes is refused (an error naming the fill), as the
// planner refuses it: such a BSR stores mostly zeros. Params: block, blocks, values per nonzero.
#include <fmt/format.h>

#include <memory>
#include <span>
#include <string>
#include <utility>

#include "bench/cuda_support.hpp"
#include "bench/registry.hpp"
#include "plan/format_bsr.hpp"
#include "spx/bsr.hpp"
#include "spx/cuda/spmv_bsr.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"

namespace spx::bench {
namespace {

// The host CSR as BSR at the planner's block size, on the device; refused below the saving.
template <class T>
std::shared_ptr<const cuda::DeviceBsr<T, int32_t>> device_bsr(const Problem& p, Params& params) {
  const Csr<T, int32_t>& host = *p.input<T>().A;
  const auto best = plan::best_bsr_block(bsr_block_counts(host, 0), static_cast<int>(sizeof(T)));
  const double min_saving = plan::default_rule_tables().planner.bsr_min_saving;
  if (!best || best->saving() < min_saving)
    throw Error(fmt::format(
        "BSR's best blocks ({}x{}) save {:.0f}% of CSR's bytes < {:.0f}%: no block structure",
        best ? best->block : 0, best ? best->block : 0, best ? 100 * best->saving() : 0.0, 100 * min_saving));
  auto A = std::make_shared<const cuda::DeviceBsr<T, int32_t>>(
      cuda::upload(bench_context(), to_bsr(host, best->block)));
  params.push_back({"block", int64_t{A->block}});
  params.push_back({"blocks", int64_t{A->blocks}});
  params.push_back({"values_per_nnz", static_cast<double>(A->values.size()) /
                                          static_cast<double>(std::max<int64_t>(1, host.nnz()))});
  return A;
}

template <class T>
std::unique_ptr<Instance> bsr_instance(const Problem& p, bool vendor) {
  Params params;
  auto A = device_bsr<T>(p, params);
  auto x = device_x<T>(p);
  auto y = std::make_shared<cuda::DeviceBuffer<T>>(static_cast<std::size_t>(p.rows), "y");
  CudaInstanceParts parts;
  if (vendor) {
    auto op = std::make_shared<cuda::CusparseBsrSpmv<T>>(bench_context(), *A, std::span<const T>(x->span()),
                                                         y->span());
    params.push_back({"workspace_bytes", static_cast<int64_t>(op->workspace_bytes())});
    parts.launch = [op, A, x, y] { op->run(); };
  } else {
    const cuda::BsrSpmvParams config = plan::bsr_spmv_rule(A->block, A->blocks, A->block_rows);
    params.push_back({"lanes_per_row", int64_t{config.lanes_per_row}});
    params.push_back({"block_size", int64_t{config.block_size}});
    parts.launch = [A, x, y, config] {
      cuda::spmv_bsr(bench_context(), *A, std::span<const T>(x->span()), y->span(), config);
    };
  }
  parts.view = [y] { return staged_view(*y); };
  parts.output = y->data();
  parts.output_bytes = y->bytes();
  parts.working_set = A->bytes() + x->bytes() + y->bytes();
  parts.params = std::move(params);
  return std::make_unique<CudaInstance>(std::move(parts));
}

void add_bsr(Registry& registry, bool vendor) {
  auto e = cuda_entry(vendor ? "cusparse_bsr" : "bsr", OpKind::Spmv, Format::Bsr, vendor,
                      vendor ? "cuSPARSE SpMV on BSR (CUSPARSE_SPMV_BSR_ALG1), block size of fewest bytes, "
                               "host-converted; padded x/y copies when rows or cols overhang a block"
                             : "spx BSR SpMV, b x Q lanes per block row (spx::cuda::spmv_bsr), block size of "
                               "fewest bytes, host-converted");
  e.prepare = [vendor](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      return bsr_instance<T>(p, vendor);
    });
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_spmv_bsr(Registry& registry) {
  add_bsr(registry, false);
  add_bsr(registry, true);
}

}  // namespace spx::bench
