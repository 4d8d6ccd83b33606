// Timing: the harness's contract (runs, order of statistics, cold flushes), the copy-bandwidth
// measurement, and a report of warm/cold SpMV times that docs/cuda-runtime.md quotes.
#include "spx/cuda/timing.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cuda/common/check.hpp"
#include "gpu_test_support.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmv.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/generate.hpp"

namespace spx::test {
namespace {

TEST(GpuTiming, TimeKernelHonoursItsOptions) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  cuda::DeviceBuffer<std::byte> buf(std::size_t{64} << 20, "timing test buffer");
  const auto launch = [&] { SPX_CUDA_CHECK(cudaMemsetAsync(buf.data(), 1, buf.bytes(), ctx.stream())); };

  cuda::TimingOptions o;
  o.warmup = 2;
  o.min_runs = 7;
  o.min_seconds = 0;
  auto t = cuda::time_kernel(ctx, launch, o);
  EXPECT_EQ(t.runs, 7);
  EXPECT_GT(t.min_ms, 0);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);

  o.min_seconds = 0.05;
  t = cuda::time_kernel(ctx, launch, o);
  EXPECT_GE(t.runs * t.median_ms, 0.5 * 50.0) << "min_seconds not honoured: " << t.runs << " runs";

  o.min_runs = 3;
  o.max_runs = 5;
  o.min_seconds = 100;
  EXPECT_EQ(cuda::time_kernel(ctx, launch, o).runs, 5);

  o.max_runs = 10;
  o.min_runs = 10;
  o.min_seconds = 0;
  o.flush_l2 = true;
  const auto cold = cuda::time_kernel(ctx, launch, o);
  EXPECT_EQ(cold.runs, 10);
  EXPECT_GT(cold.median_ms, 0);

  cuda::EventTimer timer(ctx);
  timer.start();
  launch();
  timer.stop();
  EXPECT_GT(timer.elapsed_ms(), 0);
}

TEST(GpuTiming, CopyBandwidthIsPlausible) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto bw = cuda::measure_copy_bandwidth(ctx);
  const double datasheet = ctx.props().theoretical_bandwidth_gbs();
  std::printf(
      "copy bandwidth (%zu MiB buffers, read + write): cudaMemcpyAsync %.0f GB/s, copy kernel %.0f GB/s; "
      "datasheet %.0f GB/s\n",
      bw.bytes >> 20, bw.memcpy_gbs, bw.kernel_gbs, datasheet);
  EXPECT_GT(bw.gbs, 100.0);
  EXPECT_LT(bw.gbs, 1.1 * datasheet) << "faster than the memory can go: the timing is wrong";
}

// Effective bytes of a CSR SpMV (Reguly & Giles, eq. 2: every nonzero reads its value, its column
// index and x[col]; every row reads its row pointer and writes y).
template <class T, class I>
double effective_bytes(const Csr<T, I>& A) {
  return static_cast<double>(A.nnz()) * (2 * sizeof(T) + sizeof(I)) +
         static_cast<double>(A.rows) * (sizeof(T) + sizeof(I));
}

template <class T>
void report_matrix(const std::string& name, const Csr<T, int32_t>& A, double copy_gbs) {
  auto& ctx = gpu();
  const auto dA = cuda::upload(ctx, A);
  const auto dCoo = cuda::upload(ctx, to_coo(A));
  const auto dSell = cuda::upload_sell(ctx, A);
  auto dx = cuda::to_device(ctx, random_vector<T>(static_cast<std::size_t>(A.cols), 1));
  cuda::DeviceBuffer<T> dy(static_cast<std::size_t>(A.rows));
  std::span<const T> x = dx.span();
  std::span<T> y = dy.span();
  using Alg = cuda::CusparseSpmvAlg;
  std::vector<std::pair<std::string, std::function<void()>>> kernels;
  kernels.emplace_back("csr_scalar", [&] { cuda::spmv_csr_scalar(ctx, dA, x, y); });
  std::vector<std::unique_ptr<cuda::CusparseSpmv<T, int32_t>>> ops;
  ops.push_back(std::make_unique<cuda::CusparseSpmv<T, int32_t>>(ctx, dA, Alg::CsrAlg1, x, y));
  ops.push_back(std::make_unique<cuda::CusparseSpmv<T, int32_t>>(ctx, dA, Alg::CsrAlg2, x, y));
  ops.push_back(std::make_unique<cuda::CusparseSpmv<T, int32_t>>(ctx, dCoo, Alg::CooAlg1, x, y));
  ops.push_back(std::make_unique<cuda::CusparseSpmv<T, int32_t>>(ctx, dSell, Alg::SellAlg1, x, y));
  for (auto& op : ops) kernels.emplace_back(cuda::kernel_name(op->alg()), [&op] { op->run(); });

  const double bytes = effective_bytes(A);
  for (const auto& [kernel, launch] : kernels) {
    cuda::TimingOptions warm;
    warm.min_seconds = 0.05;
    cuda::TimingOptions cold = warm;
    cold.flush_l2 = true;
    const auto w = cuda::time_kernel(ctx, launch, warm);
    const auto c = cuda::time_kernel(ctx, launch, cold);
    const double gbs = bytes / (w.median_ms * 1e-3) / 1e9;
    std::printf("| %-22s | %s | %9lld | %-20s | %8.4f | %8.4f | %7.0f | %5.1f%% |\n", name.c_str(),
                sizeof(T) == 8 ? "f64" : "f32", static_cast<long long>(A.nnz()), kernel.c_str(), w.median_ms,
                c.median_ms, gbs, 100.0 * gbs / copy_gbs);
  }
}

// Not a correctness test: prints the table of warm (median) and cold (L2 flushed) SpMV times that
// docs/cuda-runtime.md quotes. Skip it with --gtest_filter=-GpuReport.* when only checking.
TEST(GpuReport, SpmvTimesWarmAndCold) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const double copy_gbs = cuda::measure_copy_bandwidth(ctx).gbs;
  std::printf("%s; copy bandwidth %.0f GB/s\n", ctx.props().summary().c_str(), copy_gbs);
  std::printf(
      "| matrix                 | T   |       nnz | kernel               | warm ms  | cold ms  | GB/s eq2 | "
      "%% copy |\n");
  std::vector<std::pair<std::string, Csr<double, int32_t>>> matrices;
  for (const char* name : {"cage11.mtx.gz", "Maragal_6.mtx.gz", "G3_circuit.mtx.gz"}) {
    const auto& shared = shared_matrices();
    if (auto it = shared.find(name); it != shared.end()) matrices.emplace_back(name, it->second);
  }
  matrices.emplace_back("stencil27 128^3", gen::stencil_3d_27pt<double, int32_t>(128, 128, 128));
  for (const auto& [name, A] : matrices) {
    report_matrix<double>(name, A, copy_gbs);
    report_matrix<float>(name, shared_as<float>(A), copy_gbs);
  }
}

// Not a correctness test: warm medians of the cuBLAS GEMM and cuSPARSE SpMM baselines.
TEST(GpuReport, GemmAndSpmmTimes) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const int64_t n = 4096;
  for (bool f64 : {true, false}) {
    const auto run = [&](auto zero) {
      using T = decltype(zero);
      Dense<T> A(n, n), B(n, n);
      A.data = random_vector<T>(A.data.size(), 1);
      B.data = random_vector<T>(B.data.size(), 2);
      auto dA = cuda::upload(ctx, A), dB = cuda::upload(ctx, B);
      auto dC = cuda::make_device_dense<T>(n, n, Layout::ColMajor);
      cuda::CublasGemm<T> gemm(ctx, dA, dB, dC);
      const auto t = cuda::time_kernel(ctx, [&] { gemm.run(); });
      std::printf("| %s N=%lld | %8.3f ms | %6.1f TFLOP/s |\n", cuda::CublasGemm<T>::kernel_name(),
                  static_cast<long long>(n), t.median_ms, 2.0 * n * n * n / (t.median_ms * 1e-3) / 1e12);
    };
    if (f64)
      run(0.0);
    else
      run(0.0f);
  }
  const auto& shared = shared_matrices();
  const auto it = shared.find("G3_circuit.mtx.gz");
  if (it == shared.end()) return;
  const auto& A = it->second;
  const int64_t L = 8;
  const auto dA = cuda::upload(ctx, A);
  const auto dCoo = cuda::upload(ctx, to_coo(A));
  using Alg = cuda::CusparseSpmmAlg;
  for (Layout layout : {Layout::ColMajor, Layout::RowMajor}) {
    Dense<double> B(A.cols, L, layout);
    B.data = random_vector<double>(B.data.size(), 3);
    const auto dB = cuda::upload(ctx, B);
    auto dC = cuda::make_device_dense<double>(A.rows, L, layout);
    for (auto alg :
         {Alg::CsrAlg1, Alg::CsrAlg2, Alg::CsrAlg3, Alg::CooAlg1, Alg::CooAlg2, Alg::CooAlg3, Alg::CooAlg4}) {
      if (!cuda::cusparse_spmm_supports(alg, layout)) continue;
      const bool csr = alg == Alg::CsrAlg1 || alg == Alg::CsrAlg2 || alg == Alg::CsrAlg3;
      auto op = csr ? cuda::CusparseSpmm<double, int32_t>(ctx, dA, alg, dB, dC)
                    : cuda::CusparseSpmm<double, int32_t>(ctx, dCoo, alg, dB, dC);
      const auto t = cuda::time_kernel(ctx, [&] { op.run(); });
      std::printf("| G3_circuit f64 L=8 %s | %-24s | %8.4f ms | %6.1f GFLOP/s |\n",
                  layout == Layout::ColMajor ? "col-major" : "row-major", cuda::kernel_name(alg), t.median_ms,
                  2.0 * static_cast<double>(A.nnz()) * L / (t.median_ms * 1e-3) / 1e9);
    }
  }
}

}  // namespace
}  // namespace spx::test
