// The CUDA GEMM entries: cuBLAS SGEMM and DGEMM (64-bit API, column-major, default math mode:
// SGEMM stays true fp32, no TF32), one entry per precision, named as cuBLAS names the routine.
#include <memory>
#include <span>
#include <vector>

#include "bench/cuda_support.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::bench {
namespace {

template <class T>
std::unique_ptr<Instance> cublas_gemm(const Problem& p) {
  cuda::Context& ctx = bench_context();
  const TypedInput<T>& in = p.input<T>();
  auto A = std::make_shared<const cuda::DeviceDense<T>>(cuda::upload(ctx, *in.A_dense));
  auto B = std::make_shared<const cuda::DeviceDense<T>>(cuda::upload(ctx, *in.B));
  auto C = std::make_shared<cuda::DeviceDense<T>>(
      cuda::make_device_dense<T>(in.A_dense->rows, in.B->cols, Layout::ColMajor));
  auto op = std::make_shared<cuda::CublasGemm<T>>(ctx, *A, *B, *C);
  CudaInstanceParts parts;
  parts.launch = [op, A, B, C] { op->run(); };
  parts.view = [C] { return staged_view(*C); };
  parts.output = C->data.data();
  parts.output_bytes = C->bytes();
  parts.working_set = A->bytes() + B->bytes() + C->bytes();
  parts.params = {{"routine", sizeof(T) == 4 ? "cublasSgemm_64" : "cublasDgemm_64"},
                  {"op_a", "N"},
                  {"op_b", "N"},
                  {"math_mode", "CUBLAS_DEFAULT_MATH"}};
  return std::make_unique<CudaInstance>(std::move(parts));
}

template <class T>
void add_cublas_gemm(Registry& registry) {
  auto e = cuda_entry(
      cuda::CublasGemm<T>::kernel_name(), OpKind::Gemm, Format::Dense, true,
      sizeof(T) == 4 ? "cuBLAS SGEMM (true fp32, no TF32), column-major" : "cuBLAS DGEMM, column-major");
  e.f32 = sizeof(T) == 4;
  e.f64 = sizeof(T) == 8;
  e.prepare = [](const Problem& p) -> std::unique_ptr<Instance> { return cublas_gemm<T>(p); };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_gemm(Registry& registry) {
  add_cublas_gemm<float>(registry);
  add_cublas_gemm<double>(registry);
}

}  // namespace spx::bench
