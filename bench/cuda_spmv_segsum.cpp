// The speculative segmented-sum SpMV (Liu & Vinter; spx::cuda::spmv_segsum) as the `spmv_segsum`
// entry of `spx bench`, on the same cached device copies of A and x as the other CUDA SpMV
// entries. The plan (tile boundaries, dirty tiles) is made in prepare(), untimed, as a solver
// would make it once per matrix. `spmv_segsum` runs the default params (the plan chooses T, S and
// row completion); the study entries (`spx bench --studies`) fix one of those choices — the tile
// shapes and the synchronizer against row completion of docs/spmv-segsum.md — so one
// `spx bench --studies --kernels 'spmv_segsum*'` run measures them side by side.
#include <memory>
#include <span>
#include <vector>

#include "bench/cuda_support.hpp"
#include "spx/cuda/spmv_segsum.hpp"

namespace spx::bench {
namespace {

template <class T>
std::unique_ptr<Instance> segsum_instance(const Problem& p, const cuda::SegsumSpmvParams& params) {
  cuda::Context& ctx = bench_context();
  auto A = device_csr<T>(p);
  auto plan = std::make_shared<cuda::SegsumSpmvPlan>(cuda::plan_segsum_spmv(ctx, *A, params));
  auto x = device_x<T>(p);
  auto y = std::make_shared<cuda::DeviceBuffer<T>>(static_cast<std::size_t>(p.rows), "y");
  CudaInstanceParts parts;
  parts.launch = [A, plan, x, y] {
    cuda::spmv_segsum(bench_context(), *plan, *A, std::span<const T>(x->span()), y->span());
  };
  parts.download = [&ctx, y] {
    const std::vector<T> h = cuda::to_host(ctx, *y);
    return std::vector<double>(h.begin(), h.end());
  };
  parts.output = y->data();
  parts.output_bytes = y->bytes();
  parts.working_set = A->bytes() + x->bytes() + y->bytes();
  parts.params = {{"nnz_per_lane", int64_t{plan->params.nnz_per_lane}},
                  {"tiles_per_warp", int64_t{plan->params.tiles_per_warp}},
                  {"block_size", int64_t{plan->params.block_size}},
                  {"wide_tiles", plan->wide_tiles},
                  {"tiles", plan->tiles},
                  {"dirty_tiles", plan->dirty_tiles},
                  {"complete_rows_up_to", int64_t{plan->params.complete_rows_up_to}},
                  {"max_open_tail", plan->max_open_tail},
                  {"completes_rows", int64_t{plan->completes_rows ? 1 : 0}},
                  {"clean_kernel", int64_t{plan->clean_kernel ? 1 : 0}},
                  {"vector_loads", int64_t{plan->vector_loads ? 1 : 0}}};
  return std::make_unique<CudaInstance>(std::move(parts));
}

void add_segsum(Registry& registry, const char* name, cuda::SegsumSpmvParams params, bool study) {
  auto e = cuda_entry(name, OpKind::Spmv, Format::Csr, false,
                      "spx speculative segmented-sum CSR SpMV (Liu & Vinter; spx::cuda::spmv_segsum), " +
                          cuda::to_string(params));
  e.study = study;
  e.prepare = [params](const Problem& p) {
    return with_precision(p, [&](auto tag) { return segsum_instance<decltype(tag)>(p, params); });
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_spmv_segsum(Registry& registry) {
  add_segsum(registry, "spmv_segsum", cuda::SegsumSpmvParams{}, false);
  // The study's points (docs/spmv-segsum.md): fixed tile sizes at one tile per warp (T = 8 wins
  // on dirty-heavy matrices, 32 on f32 power-law); and the synchronizer (two launches) against row
  // completion (one) whatever the grid size: never completing, tails of up to 512 nonzeros by their
  // owner warp and longer ones by arrival, and only the 32-nonzero look-ahead by the owner.
  add_segsum(registry, "spmv_segsum_t8s1", {.nnz_per_lane = 8, .tiles_per_warp = 1}, true);
  add_segsum(registry, "spmv_segsum_t16s1", {.nnz_per_lane = 16, .tiles_per_warp = 1}, true);
  add_segsum(registry, "spmv_segsum_t32s1", {.nnz_per_lane = 32, .tiles_per_warp = 1}, true);
  add_segsum(registry, "spmv_segsum_sync", {.complete_rows_up_to = 0}, true);
  add_segsum(registry, "spmv_segsum_complete", {.complete_rows_up_to = 512}, true);
  add_segsum(registry, "spmv_segsum_complete32", {.complete_rows_up_to = 32}, true);
}

}  // namespace spx::bench
