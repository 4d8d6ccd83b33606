// Host-resident SpMM (FastSpMM*, FastSpMM: spmm_host.hpp) against spx::ref::spmm: the device-resident,
// chunked (streams = 1) and streamed (streams = 2, 3) paths must give the same results for every L,
// chunk width (1, 7 and auto; L not a multiple of the chunk), host layout (B and C row- or column-
// major, padded leading dimensions whose NaN padding must stay untouched), transfer mode (pinned
// staging, cudaHostRegister, direct) and beta != 0 (C chunks copied in as well as out).
//
// Tolerance: gpu_test_support.hpp's device bound, 2 (n + 3) u_T m per element, m = |alpha| sum |a b|
// + |beta c_old|: the chunk kernels accumulate each element in T in some order (Higham §3.1), and
// chunking changes which kernel pass computes an element, never how many products it sums.
#include "spx/cuda/spmm_host.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/stats.hpp"

namespace spx::test {
namespace {

using cuda::HostTransfer;
using cuda::SpmmHostOptions;

// rows x cols with random logical entries and NaN in `extra_ld` padding elements per row/column.
template <class T>
Dense<T> random_host_dense(int64_t rows, int64_t cols, Layout layout, uint64_t seed, int64_t extra_ld) {
  Dense<T> D = poisoned_dense<T>(rows, cols, layout, extra_ld);
  const auto v = random_vector<T>(static_cast<std::size_t>(rows * cols), seed);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) D(i, j) = v[static_cast<std::size_t>(i * cols + j)];
  return D;
}

const char* name(Layout l) { return l == Layout::RowMajor ? "row" : "col"; }

// One way of running the product: device-resident (one call on whole device matrices) or host-resident.
struct Mode {
  std::string label;
  bool device_resident = false;
  SpmmHostOptions options;
};

std::vector<Mode> modes() {
  std::vector<Mode> m;
  m.push_back({"device-resident", true, {}});
  auto host = [&](const char* label, int streams, int64_t chunk, HostTransfer t) {
    SpmmHostOptions o;
    o.streams = streams;
    o.chunk_cols = chunk;
    o.transfer = t;
    m.push_back({label, false, o});
  };
  host("FastSpMM* auto chunk, staged", 1, 0, HostTransfer::Staged);
  host("FastSpMM* chunk 7, registered", 1, 7, HostTransfer::Registered);
  host("FastSpMM 2 streams chunk 1, staged", 2, 1, HostTransfer::Staged);
  host("FastSpMM 2 streams chunk 7, direct", 2, 7, HostTransfer::Direct);
  host("FastSpMM 3 streams chunk 7, staged", 3, 7, HostTransfer::Staged);
  host("FastSpMM 3 streams auto chunk, registered", 3, 0, HostTransfer::Registered);
  return m;
}

// The product on the device: ELLR-T with the rule's configuration, through the generic engine (so
// the chunk views are what the kernels see) or on whole device matrices.
template <class T>
void run_mode(const Mode& mode, const cuda::DeviceEllR<T, int32_t>& dA, const MatrixStats& stats,
              const Dense<T>& B, Dense<T>& C, T alpha, T beta, cuda::SpmmHostReport* report) {
  auto& ctx = gpu();
  if (mode.device_resident) {
    const auto dB = cuda::upload(ctx, B);
    auto dC = cuda::upload(ctx, C);
    const auto config = plan::spmm_ellr_rule(stats, B.cols, ctx.props());
    cuda::spmm_ellr_t(ctx, dA, cuda::view(dB), cuda::view(dC), config, alpha, beta);
    C = cuda::download(ctx, dC);
    return;
  }
  *report = cuda::spmm_host(ctx, dA, stats, B, C, mode.options, alpha, beta);
}

template <class T>
void check_all_modes(const std::string& what, const Csr<T, int32_t>& A, const std::vector<int64_t>& Ls,
                     uint64_t seed) {
  auto& ctx = gpu();
  const auto dA = cuda::upload(ctx, to_ellr(A));
  const MatrixStats stats = spx::stats(A);
  for (int64_t L : Ls) {
    for (Layout lb : {Layout::RowMajor, Layout::ColMajor}) {
      // C in the other layout every second time: B and C need not share one.
      for (Layout lc : {lb, lb == Layout::RowMajor ? Layout::ColMajor : Layout::RowMajor}) {
        const Dense<T> B = random_host_dense<T>(A.cols, L, lb, seed + static_cast<uint64_t>(L), 3);
        for (auto [alpha, beta] : {std::pair<T, T>{T{1}, T{0}}, std::pair<T, T>{T(-1.5), T(0.5)}}) {
          const Dense<T> C0 = beta == T{0} ? poisoned_dense<T>(A.rows, L, lc, 2)
                                           : random_host_dense<T>(A.rows, L, lc, seed + 99, 2);
          Dense<T> want = C0;
          ref::spmm(A, B, want, alpha, beta);
          std::vector<double> magnitude;
          std::vector<int64_t> terms;
          spmm_bounds(A, B, C0, alpha, beta, magnitude, terms);
          for (const Mode& mode : modes()) {
            const std::string label = what + " L=" + std::to_string(L) + " B " + name(lb) + " C " + name(lc) +
                                      " beta=" + std::to_string(beta) + " / " + mode.label;
            SCOPED_TRACE(label);
            Dense<T> C = C0;
            cuda::SpmmHostReport report;
            ASSERT_NO_THROW(run_mode(mode, dA, stats, B, C, alpha, beta, &report));
            const auto got = logical_entries(C), expected = logical_entries(want);
            expect_device_close<T>(got, expected, magnitude, terms, label);
            EXPECT_TRUE(padding_untouched(C)) << label << ": wrote into C's leading-dimension padding";
            if (!mode.device_resident) {
              const int64_t width = report.chunk_cols;
              ASSERT_GT(width, 0);
              EXPECT_EQ(report.chunks, (L + width - 1) / width);
              if (mode.options.chunk_cols > 0) {
                EXPECT_EQ(width, std::min(mode.options.chunk_cols, L));
              }
              const uint64_t b_bytes = static_cast<uint64_t>(A.cols * L) * sizeof(T),
                             c_bytes = static_cast<uint64_t>(A.rows * L) * sizeof(T);
              EXPECT_EQ(report.h2d_bytes, b_bytes + (beta == T{0} ? 0 : c_bytes));
              EXPECT_EQ(report.d2h_bytes, c_bytes);
              EXPECT_GE(report.runtime_ms, 0.0);
            }
          }
        }
      }
    }
  }
}

template <class T>
class GpuSpmmHost : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuSpmmHost, Types);

TYPED_TEST(GpuSpmmHost, ChunkedAndStreamedAreEquivalentToRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  // Odd sizes with 10% empty rows, and one 3000-long row among short ones.
  check_all_modes<T>("odd 1001x997", random_csr<T, int32_t>(1001, 997, 0, 20, seed, 0.1), {1, 3, 8, 33, 100},
                     seed);
  check_all_modes<T>(
      "long row", with_long_row(random_csr<T, int32_t>(2001, 4000, 0, 8, seed + 1, 0.2), 777, 3000, seed + 2),
      {3, 33}, seed);
}

// The CSR overload and SetSpMVs through the generic engine, streamed, against spx::ref.
TYPED_TEST(GpuSpmmHost, CsrAndSetSpmvsChunkProducts) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto A = random_csr<T, int32_t>(1503, 811, 0, 30, seed, 0.15);
  const MatrixStats stats = spx::stats(A);
  const auto dcsr = cuda::upload(ctx, A);
  const auto dellr = cuda::upload(ctx, to_ellr(A));
  const int64_t L = 19;
  const Dense<T> B = random_host_dense<T>(A.cols, L, Layout::ColMajor, seed + 5, 0);
  Dense<T> want(A.rows, L, Layout::ColMajor);
  ref::spmm(A, B, want);
  std::vector<double> magnitude;
  std::vector<int64_t> terms;
  spmm_bounds(A, B, want, 1.0, 0.0, magnitude, terms);
  SpmmHostOptions o;
  o.streams = 2;
  o.chunk_cols = 4;

  Dense<T> C = poisoned_dense<T>(A.rows, L, Layout::ColMajor, 0);
  cuda::spmm_host(ctx, dcsr, stats, B, C, o);
  expect_device_close<T>(logical_entries(C), logical_entries(want), magnitude, terms, "csr, 2 streams");

  C = poisoned_dense<T>(A.rows, L, Layout::ColMajor, 0);
  const cuda::ChunkProduct<T> set_spmvs = [&](cuda::DenseView<const T> Bc, cuda::DenseView<T> Cc) {
    cuda::spmm_set_spmvs(ctx, dellr, Bc, Cc);
  };
  o.streams = 3;
  cuda::spmm_host<T>(ctx, A.rows, A.cols, dellr.bytes(), set_spmvs, false, B, C, o);
  expect_device_close<T>(logical_entries(C), logical_entries(want), magnitude, terms, "set-spmvs, 3 streams");
}

// Every shared real matrix, streamed with the format spmm_format_rule picks, L = 8, f64.
TEST(GpuSpmmHostShared, EverySharedMatrixStreamed) {
  SPX_REQUIRE_GPU();
  if (shared_matrices().empty()) GTEST_SKIP() << "no shared matrices (SPX_SHARED_MATRICES)";
  auto& ctx = gpu();
  for (const auto& [file, A] : shared_matrices()) {
    SCOPED_TRACE(file);
    const MatrixStats stats = spx::stats(A);
    const int64_t L = 8;
    const Dense<double> B = random_host_dense<double>(A.cols, L, Layout::RowMajor, 17, 0);
    Dense<double> want(A.rows, L, Layout::RowMajor);
    ref::spmm(A, B, want);
    std::vector<double> magnitude;
    std::vector<int64_t> terms;
    spmm_bounds(A, B, want, 1.0, 0.0, magnitude, terms);
    Dense<double> C = poisoned_dense<double>(A.rows, L, Layout::RowMajor, 0);
    SpmmHostOptions o;
    o.streams = 2;
    o.chunk_cols = 3;  // 3 chunks, the last one of 2 columns
    if (plan::spmm_format_rule(stats, o.chunk_cols) == cuda::SpmmFormat::EllR) {
      cuda::spmm_host(ctx, cuda::upload(ctx, to_ellr(A)), stats, B, C, o);
    } else {
      cuda::spmm_host(ctx, cuda::upload(ctx, A), stats, B, C, o);
    }
    expect_device_close<double>(logical_entries(C), logical_entries(want), magnitude, terms, file);
  }
}

// device_memory_limit emulates a small card: it sets L_GPU, and one too small for a single column
// of B and C is a clear error, not a failed allocation.
TEST(GpuSpmmHostMemory, LimitSizesChunksAndRefusesTooLittle) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(5000, 4000, 1, 10, 42);
  const auto dA = cuda::upload(ctx, to_ellr(A));
  const MatrixStats stats = spx::stats(A);
  const int64_t L = 40;
  const Dense<double> B = random_host_dense<double>(A.cols, L, Layout::RowMajor, 3, 0);
  Dense<double> C(A.rows, L, Layout::RowMajor);
  const std::size_t per_column = 2 * (5000 + 4000) * sizeof(double);  // two lanes
  SpmmHostOptions o;
  o.streams = 2;
  o.device_memory_limit = dA.bytes() + 5 * per_column + per_column / 2;  // room for 5 columns per lane
  const auto report = cuda::spmm_host(ctx, dA, stats, B, C, o);
  EXPECT_EQ(report.chunk_cols, 5);
  EXPECT_EQ(report.chunks, 8);
  EXPECT_LE(report.device_bytes, o.device_memory_limit - dA.bytes());

  o.device_memory_limit = dA.bytes() + per_column / 2;
  try {
    cuda::spmm_host(ctx, dA, stats, B, C, o);
    ADD_FAILURE() << "a limit below one column must throw";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("one column of B and C"), std::string::npos) << msg;
    EXPECT_NE(msg.find("device_memory_limit"), std::string::npos) << msg;
  }
  // A limit that does not even hold A.
  o.device_memory_limit = dA.bytes() / 2;
  EXPECT_THROW(cuda::spmm_host(ctx, dA, stats, B, C, o), Error);
  // Bad options and shapes are errors too.
  o = {};
  o.streams = 0;
  EXPECT_THROW(cuda::spmm_host(ctx, dA, stats, B, C, o), Error);
  o = {};
  Dense<double> wrong(A.rows + 1, L, Layout::RowMajor);
  EXPECT_THROW(cuda::spmm_host(ctx, dA, stats, B, wrong, o), Error);
}

}  // namespace
}  // namespace spx::test
