// The runtime layer itself: device properties, buffers and copies, the workspace, status checks
// and their messages, and the out-of-memory policy.
#include "spx/cuda/context.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "cuda/common/check.hpp"
#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmv.hpp"
#include "spx/cuda/stream.hpp"

namespace spx::test {
namespace {

TEST(GpuContext, DevicePropertiesAreSane) {
  SPX_REQUIRE_GPU();
  const auto& p = gpu().props();
  std::cout << "device: " << p.summary() << ", " << p.max_threads_per_sm << " threads/SM, " << p.regs_per_sm
            << " registers/SM, " << p.shared_mem_per_sm << " B shared/SM, opt-in "
            << p.shared_mem_per_block_optin << " B/block, datasheet " << p.theoretical_bandwidth_gbs()
            << " GB/s\n";
  EXPECT_FALSE(p.name.empty());
  EXPECT_GT(p.sm_count, 0);
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_EQ(p.max_warps_per_sm * p.warp_size, p.max_threads_per_sm);
  EXPECT_GT(p.l2_bytes, 0u);
  EXPECT_GT(p.regs_per_sm, 0);
  EXPECT_GE(p.shared_mem_per_block_optin, p.shared_mem_per_block);
  EXPECT_GE(p.shared_mem_per_sm, p.shared_mem_per_block);
  EXPECT_GT(p.theoretical_bandwidth_gbs(), 100.0);
  EXPECT_GE(p.cc_major, 7);
}

TEST(GpuContext, NonexistentDeviceIsAnError) {
  SPX_REQUIRE_GPU();
  expect_error([] { cuda::Context ctx(1000); }, "CUDA device 1000 does not exist");
}

TEST(GpuContext, HandlesAreCreatedOnceAndBoundToTheStream) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  EXPECT_EQ(ctx.cusparse(), ctx.cusparse());
  EXPECT_EQ(ctx.cublas(), ctx.cublas());
  cudaStream_t s = nullptr;
  ASSERT_EQ(cusparseGetStream(ctx.cusparse(), &s), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(s, ctx.stream());
  ASSERT_EQ(cublasGetStream(ctx.cublas(), &s), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(s, ctx.stream());
}

// A context on a caller's stream runs there, and set_stream() moves it (and its handles) to another
// stream, ordered after the work already on the first one. The streams outlive the context and are
// not destroyed by it (the Python package's CuPy streams).
TEST(GpuContext, ExternalStreamIsUsedAndNotOwned) {
  SPX_REQUIRE_GPU();
  cuda::Stream first;
  cuda::Stream second;
  const auto A = random_csr<double, int32_t>(3001, 2003, 0, 40, 11);
  const auto x = random_vector<double>(2003, 12);
  std::vector<double> want(3001);
  ref::spmv(A, std::span<const double>(x), std::span<double>(want));
  {
    cuda::Context ctx(0, first.get());
    EXPECT_EQ(ctx.stream(), first.get());
    EXPECT_EQ(ctx.cusparse(), ctx.cusparse());
    const auto dA = cuda::upload(ctx, A);
    const auto dx = cuda::to_device(ctx, x);
    cuda::DeviceBuffer<double> dy(3001);
    cuda::spmv_csr_scalar(ctx, dA, dx.span(), dy.span());
    ctx.set_stream(second.get());  // the next product runs after the first without a host wait
    EXPECT_EQ(ctx.stream(), second.get());
    cudaStream_t s = nullptr;
    ASSERT_EQ(cusparseGetStream(ctx.cusparse(), &s), CUSPARSE_STATUS_SUCCESS);
    EXPECT_EQ(s, second.get());
    cuda::spmv_csr_scalar(ctx, dA, dx.span(), dy.span(), 2.0, -1.0);  // y = 2Ax - Ax = Ax
    second.synchronize();
    const auto got = cuda::to_host(ctx, dy);
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-12 * (1 + std::abs(want[i])));
    ctx.set_stream(nullptr);  // the legacy default stream is a valid external stream
    EXPECT_EQ(ctx.stream(), nullptr);
    ctx.synchronize();
  }
  // Both streams are still valid after the context is gone.
  first.synchronize();
  second.synchronize();
}

TEST(GpuContext, WorkspaceGrowsAndNeverShrinks) {
  SPX_REQUIRE_GPU();
  cuda::Context ctx;
  EXPECT_NE(ctx.workspace(1000), nullptr);
  EXPECT_GE(ctx.workspace_bytes(), 1000u);
  ctx.workspace(1 << 20);
  EXPECT_GE(ctx.workspace_bytes(), std::size_t{1} << 20);
  ctx.workspace(10);
  EXPECT_GE(ctx.workspace_bytes(), std::size_t{1} << 20);
  ctx.flush_l2();
  ctx.synchronize();
}

TEST(GpuBuffers, DeviceAndPinnedRoundTrip) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto v = random_vector<double>(12345, 1);
  auto d = cuda::to_device(ctx, v);
  EXPECT_EQ(d.size(), v.size());
  EXPECT_EQ(d.bytes(), v.size() * sizeof(double));
  EXPECT_EQ(cuda::to_host(ctx, d), v);

  cuda::PinnedBuffer<double> pinned(v.size(), "test pinned");
  cuda::copy_to_host_async(ctx, pinned.data(), d.data(), d.bytes());
  ctx.synchronize();
  EXPECT_EQ(std::vector<double>(pinned.data(), pinned.data() + pinned.size()), v);

  cuda::DeviceBuffer<double> moved = std::move(d);
  EXPECT_EQ(d.data(), nullptr);
  EXPECT_EQ(moved.size(), v.size());
  cuda::DeviceBuffer<int> empty(0);
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_TRUE(cuda::to_host(ctx, empty).empty());
}

TEST(GpuBuffers, OutOfMemorySaysWhatWasAskedAndWhatIsFree) {
  SPX_REQUIRE_GPU();
  try {
    cuda::DeviceBuffer<double> absurd(std::size_t{1} << 47, "an absurd test buffer");  // 1 PiB
    FAIL() << "a 1 PiB allocation succeeded";
  } catch (const Error& e) {
    const std::string msg = e.what();
    std::cout << "OOM message: " << msg << "\n";
    EXPECT_NE(msg.find("device out of memory: asked for 1.00 PiB (1125899906842624 bytes)"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("for an absurd test buffer"), std::string::npos) << msg;
    EXPECT_NE(msg.find(" free of "), std::string::npos) << msg;
  }
  // The failure is not sticky: the device still works.
  auto& ctx = gpu();
  const std::vector<float> v = {1, 2, 3};
  EXPECT_EQ(cuda::to_host(ctx, cuda::to_device(ctx, v)), v);
}

TEST(GpuBuffers, SizeOverflowIsAnError) {
  SPX_REQUIRE_GPU();
  expect_error([] { cuda::DeviceBuffer<double> b(std::numeric_limits<std::size_t>::max() / 4, "huge"); },
               "overflow the address space");
}

TEST(GpuChecks, CudaErrorNamesCallFileAndLine) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  try {
    // A null destination is rejected at once (cudaErrorInvalidValue, not sticky).
    SPX_CUDA_CHECK(cudaMemcpyAsync(nullptr, nullptr, 16, cudaMemcpyDeviceToDevice, ctx.stream()));
    FAIL() << "cudaMemcpyAsync to null succeeded";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("cudaMemcpyAsync failed at context_test.cpp:", 0), 0u) << msg;
    EXPECT_NE(msg.find("(cudaErrorInvalidValue)"), std::string::npos) << msg;
  }
  ctx.synchronize();  // and the stream is still usable
}

TEST(GpuChecks, CusparseAndCublasStatusesBecomeErrors) {
  SPX_REQUIRE_GPU();
  try {
    SPX_CUSPARSE_CHECK(cusparseCreateDnVec(nullptr, 10, nullptr, CUDA_R_64F));
    FAIL() << "cusparseCreateDnVec(nullptr) succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cusparseCreateDnVec failed at context_test.cpp:", 0), 0u)
        << e.what();
  }
  try {
    SPX_CUBLAS_CHECK(CUBLAS_STATUS_NOT_SUPPORTED);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUBLAS_STATUS_NOT_SUPPORTED failed at context_test.cpp:"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace spx::test
