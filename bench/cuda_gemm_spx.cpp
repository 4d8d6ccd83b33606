// spx's own GEMM kernels as `spx bench` entries (gemm:N, f32 and f64), timed next to cuBLAS's
// cublas_sgemm/cublas_dgemm (cuda_gemm.cpp) on the same column-major operands: one entry per
// GemmVersion (v2 and v3, the FP64 tensor-core ones, in f64 only), named by cuda::kernel_name(version),
// plus "spx_gemm" for GemmVersion::Auto, the default (v3 in f64, v1 in f32), and "spx_gemm_emulated"
// (f64: GemmEmulation::Always, the Ozaki-II emulation on INT8 tensor cores wherever the inputs allow).
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench/cuda_support.hpp"
#include "spx/cuda/gemm.hpp"

namespace spx::bench {
namespace {

// A Dense as gemm's (op, ld) pair: a row-major X is X^T in column-major terms with the same ld.
template <class T>
Op op_of(const cuda::DeviceDense<T>& X) {
  return X.layout == Layout::ColMajor ? Op::N : Op::T;
}

const char* tile_of(cuda::GemmVersion version) {
  switch (version) {
    case cuda::GemmVersion::Auto:
      return "f64: v3, cuBLAS or the INT8 emulation by the plan; f32: cuBLAS";
    case cuda::GemmVersion::CudaCoreV1:
      return "128x128x8, 8x8 per thread";
    case cuda::GemmVersion::TensorCoreV2:
      return "128x128x8, 64x32 per warp, m8n8k4";
    case cuda::GemmVersion::TensorCoreV3:
      return "128x128x16, 4 cp.async stages, 64x32 per warp, m16n8k4, grouped raster, split-k below a wave";
  }
  return "";
}

template <class T>
std::unique_ptr<Instance> spx_gemm(const Problem& p, cuda::GemmVersion version,
                                   cuda::GemmEmulation emulation = cuda::GemmEmulation::Auto) {
  cuda::Context& ctx = bench_context();
  const TypedInput<T>& in = p.input<T>();
  auto A = std::make_shared<const cuda::DeviceDense<T>>(cuda::upload(ctx, *in.A_dense));
  auto B = std::make_shared<const cuda::DeviceDense<T>>(cuda::upload(ctx, *in.B));
  auto C = std::make_shared<cuda::DeviceDense<T>>(
      cuda::make_device_dense<T>(in.A_dense->rows, in.B->cols, Layout::ColMajor));
  CudaInstanceParts parts;
  cuda::GemmParams params{version};
  params.emulation = emulation;
  parts.launch = [ctx = &ctx, A, B, C, params] {
    cuda::gemm<T>(*ctx, op_of(*A), op_of(*B), C->rows, C->cols, A->cols, T{1}, A->data.data(), A->ld,
                  B->data.data(), B->ld, T{0}, C->data.data(), C->ld, params);
  };
  parts.view = [C] { return staged_view(*C); };
  parts.output = C->data.data();
  parts.output_bytes = C->bytes();
  parts.working_set = A->bytes() + B->bytes() + C->bytes();
  parts.params = {
      {"version", cuda::kernel_name(version)},
      {"op_a", op_of(*A) == Op::N ? "N" : "T"},
      {"op_b", op_of(*B) == Op::N ? "N" : "T"},
      {"tile", emulation == cuda::GemmEmulation::Always ? "Ozaki II: residues on INT8 tensor cores (cuBLASLt)"
                                                        : tile_of(version)}};
  return std::make_unique<CudaInstance>(std::move(parts));
}

const char* description_of(cuda::GemmVersion version) {
  switch (version) {
    case cuda::GemmVersion::Auto:
      return "spx GEMM default (GemmVersion::Auto): f64 v3, cuBLAS DGEMM or the INT8 emulation by the plan's "
             "model, f32 cuBLAS "
             "SGEMM, column-major";
    case cuda::GemmVersion::CudaCoreV1:
      return "spx GEMM v1: Tan et al. blocking on the CUDA cores, column-major";
    case cuda::GemmVersion::TensorCoreV2:
      return "spx GEMM v2: the v1 slabs on FP64 tensor cores (mma m8n8k4), column-major";
    case cuda::GemmVersion::TensorCoreV3:
      return "spx GEMM v3: FP64 tensor cores (mma m16n8k4) behind a 4-stage cp.async pipeline, column-major";
  }
  return "";
}

// One entry per version; v1 and Auto run in both precisions, v2 and v3 (FP64 tensor cores) in f64 only.
void add_spx_gemm(Registry& registry, cuda::GemmVersion version) {
  const bool v1 = version == cuda::GemmVersion::CudaCoreV1 || version == cuda::GemmVersion::Auto;
  auto e =
      cuda_entry(cuda::kernel_name(version), OpKind::Gemm, Format::Dense, false, description_of(version));
  e.f32 = v1;
  e.f64 = true;
  e.prepare = [version](const Problem& p) {
    return with_precision(p, [&](auto tag) { return spx_gemm<decltype(tag)>(p, version); });
  };
  registry.add(std::move(e));
}

// The emulated DGEMM (f64 only): Auto with GemmEmulation::Always, so `spx bench --ops gemm:N` times it
// beside cublas_dgemm and spx_gemm in the same run. Each call reads the inputs' statistics back to
// the host once (part of its time).
void add_emulated_gemm(Registry& registry) {
  auto e = cuda_entry(
      "spx_gemm_emulated", OpKind::Gemm, Format::Dense, false,
      "spx DGEMM emulated on INT8 tensor cores (Ozaki scheme II, GemmEmulation::Always; native where "
      "the inputs need it), column-major");
  e.f32 = false;
  e.f64 = true;
  e.prepare = [](const Problem& p) {
    return spx_gemm<double>(p, cuda::GemmVersion::Auto, cuda::GemmEmulation::Always);
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_gemm_spx(Registry& registry) {
  add_spx_gemm(registry, cuda::GemmVersion::CudaCoreV1);
  add_spx_gemm(registry, cuda::GemmVersion::TensorCoreV2);
  add_spx_gemm(registry, cuda::GemmVersion::TensorCoreV3);
  add_spx_gemm(registry, cuda::GemmVersion::Auto);  // "spx_gemm": what users get by default
  add_emulated_gemm(registry);                      // "spx_gemm_emulated"
}

}  // namespace spx::bench
