// CSR with 64-bit row offsets (WideDeviceCsr) below the front door: the uploads and the row-block
// assembly against the host matrix, csr_param (its long-row path included), the CSR SpMM, the ELL
// and ELLPACK-R slabs converted on the device and cuSPARSE's 64-bit CSR against spx::ref on the
// random shapes, and offsets past 2^31 simulated without 2^31 nonzeros.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuda/spmv/csr_param_launch.hpp"
#include "gpu_test_support.hpp"
#include "spx/convert.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/cuda/spmv_formats.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/plan/rules.hpp"
#include "spx/stats.hpp"

namespace spx::test {
namespace {

template <class T>
class WideCsr : public ::testing::Test {};
TYPED_TEST_SUITE(WideCsr, Precisions);

template <class T>
std::vector<int64_t> offsets64(const Csr<T, int32_t>& A) {
  return {A.row_ptr.begin(), A.row_ptr.end()};
}

// The shared random shapes (odd sizes, empty rows, a row past the long-row threshold, a dense row,
// no nonzeros) and a 27-point stencil of odd side (a streaming-bound matrix with regular rows).
template <class T>
std::vector<NamedMatrix<T, int32_t>> wide_test_matrices(uint64_t seed) {
  auto out = random_matrices<T, int32_t>(seed);
  out.push_back({"stencil27 13x11x9", gen::stencil_3d_27pt<T, int32_t>(13, 11, 9)});
  return out;
}

// y = alpha A x + beta y for every spmv_cases case, with `run` launching the product on dx, dy.
template <class T, class Run>
void check_spmv_cases(const Csr<T, int32_t>& A, uint64_t seed, const std::string& what, Run&& run) {
  auto& ctx = gpu();
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  cuda::DeviceBuffer<T> dx(x.size(), "x"), dy(static_cast<std::size_t>(A.rows), "y");
  if (!x.empty()) cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
  for (const SpmvCase<T>& c : spmv_cases(A, x, seed)) {
    if (!c.y0.empty()) cuda::copy_to_device_sync(ctx, dy.data(), c.y0.data(), dy.bytes());
    run(std::span<const T>(dx.span()), dy.span(), c.alpha, c.beta);
    std::vector<T> got(c.y0.size());
    if (!got.empty()) cuda::copy_to_host_sync(ctx, got.data(), dy.data(), dy.bytes());
    c.expect_close(got, what + c.label());
  }
}

TYPED_TEST(WideCsr, UploadsRoundTripFromEitherIndexType) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : wide_test_matrices<T>(seed)) {
    const auto want = cast<T, int64_t>(m.A);
    const auto from32 = cuda::upload_wide(ctx, m.A);
    const auto from64 = cuda::upload_wide(ctx, want);
    EXPECT_EQ(from32.nnz, int64_t{m.A.nnz()}) << m.name;
    EXPECT_EQ(from32.bytes(), (static_cast<std::size_t>(m.A.rows) + 1) * 8 + m.A.nnz() * (4 + sizeof(T)));
    for (const auto* d : {&from32, &from64}) {
      const auto got = cuda::download(ctx, *d);
      EXPECT_EQ(got.row_ptr, want.row_ptr) << m.name;
      EXPECT_EQ(got.col_idx, want.col_idx) << m.name;
      EXPECT_EQ(got.values, want.values) << m.name;
    }
    const auto cols64 = cuda::widen_columns(ctx, from32);
    std::vector<int64_t> got(cols64.size());
    if (!got.empty()) cuda::copy_to_host_sync(ctx, got.data(), cols64.data(), cols64.bytes());
    EXPECT_EQ(got, want.col_idx) << m.name;
  }
  // An invalid host matrix never reaches the device.
  Csr<T, int64_t> bad(2, 2);
  bad.row_ptr = {0, 1, 2};
  bad.col_idx = {0, 5};
  bad.values = {T{1}, T{1}};
  EXPECT_THROW((void)cuda::upload_wide(ctx, bad), Error);
}

TYPED_TEST(WideCsr, RowBlocksAssembleTheWholeMatrix) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const int64_t n = 13, rows = n * n * n;
  const auto whole = gen::stencil_rows<T>(27, n, n, n, 0, rows);
  for (int64_t per_block : {int64_t{1}, int64_t{100}, int64_t{997}, rows}) {
    const auto d = cuda::upload_row_blocks<T>(
        ctx, rows, rows, whole.nnz(), per_block,
        [&](int64_t b, int64_t e) { return gen::stencil_rows<T>(27, n, n, n, b, e); });
    const auto got = cuda::download(ctx, d);
    EXPECT_EQ(got.row_ptr, whole.row_ptr) << per_block;
    EXPECT_EQ(got.col_idx, whole.col_idx) << per_block;
    EXPECT_EQ(got.values, whole.values) << per_block;
  }
  const auto blocks = [&](int64_t b, int64_t e) { return gen::stencil_rows<T>(27, n, n, n, b, e); };
  const auto expect_error = [](const std::string& needle, const auto& f) {
    try {
      f();
      ADD_FAILURE() << "no error; expected one naming '" << needle << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("past the",
               [&] { (void)cuda::upload_row_blocks<T>(ctx, rows, rows, whole.nnz() - 1, 100, blocks); });
  expect_error("were announced",
               [&] { (void)cuda::upload_row_blocks<T>(ctx, rows, rows, whole.nnz() + 1, 100, blocks); });
  expect_error("is 99 x", [&] {
    (void)cuda::upload_row_blocks<T>(ctx, rows, rows, whole.nnz(), 100, [&](int64_t b, int64_t e) {
      return gen::stencil_rows<T>(27, n, n, n, b, e - 1);
    });
  });
  expect_error("rows per block",
               [&] { (void)cuda::upload_row_blocks<T>(ctx, rows, rows, whole.nnz(), 0, blocks); });
  // Refused before any allocation: more device memory than exists, columns past 32 bits.
  expect_error("MiB free",
               [&] { (void)cuda::upload_row_blocks<T>(ctx, 1000, 1000, int64_t{1} << 45, 100, blocks); });
  expect_error("2^31 - 1",
               [&] { (void)cuda::upload_row_blocks<T>(ctx, 10, int64_t{1} << 32, 10, 100, blocks); });
}

// csr_param on 64-bit offsets: its fixed rule, and every row forced through the long-row path.
TYPED_TEST(WideCsr, CsrParamEqualsRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : wide_test_matrices<T>(seed)) {
    const auto dA = cuda::upload_wide(ctx, m.A);
    const auto rp = offsets64(m.A);
    const MatrixStats s = stats(m.A);
    for (int64_t threshold : {int64_t{-1}, int64_t{0}}) {
      auto plan = threshold < 0 ? cuda::plan_csr_spmv(ctx, dA, std::span<const int64_t>(rp), s)
                                : cuda::plan_csr_spmv(ctx, dA, std::span<const int64_t>(rp), s, std::nullopt,
                                                      threshold);
      check_spmv_cases<T>(
          m.A, seed, m.name + (threshold == 0 ? " all rows long" : " rule"),
          [&](std::span<const T> x, std::span<T> y, T a, T b) { cuda::spmv_csr(ctx, plan, dA, x, y, a, b); });
    }
    // Another matrix's plan is refused.
    const auto other = cuda::upload_wide(ctx, m.A);
    auto plan = cuda::plan_csr_spmv(ctx, dA, std::span<const int64_t>(rp), s);
    cuda::DeviceBuffer<T> x(static_cast<std::size_t>(m.A.cols), "x"),
        y(static_cast<std::size_t>(m.A.rows), "y");
    EXPECT_THROW(cuda::spmv_csr(ctx, plan, other, std::span<const T>(x.span()), y.span()), Error) << m.name;
    if (::testing::Test::HasFailure()) return;
  }
}

// The CSR SpMM on 64-bit offsets, both layouts, in its row-split mode and its balanced (tiled) mode
// (tiles of 64 and 1024 items: a huge row then spans many tiles, whose partial sums meet).
TYPED_TEST(WideCsr, SpmmCsrEqualsRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : wide_test_matrices<T>(seed)) {
    if (m.A.rows > 20000) continue;  // host reference time, not coverage
    const auto dA = cuda::upload_wide(ctx, m.A);
    for (int64_t L : {1, 8, 33}) {
      for (Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
        cuda::SpmmCsrParams config =
            plan::spmm_csr_rule(stats(m.A), L, ctx.props(), static_cast<int>(sizeof(T)));
        const auto B = random_dense<T>(m.A.cols, L, layout, seed + L, 1);
        const auto dB = cuda::upload(ctx, B);
        for (int64_t tile_items : {0, 64, 1024}) {
          config.tile_items = tile_items;
          // beta = 0 over a NaN-poisoned C (never read), and alpha, beta both nonzero.
          for (T beta : {T{0}, T(-2)}) {
            const SpmmCase<T> c = spmm_case(m.A, B, layout, T(0.75), beta, seed, 2);
            auto dC = cuda::upload(ctx, c.C0);
            cuda::spmm_csr(ctx, dA, cuda::view(dB), cuda::view(dC), config, T(0.75), beta);
            c.expect_close(cuda::download(ctx, dC), m.name + " L=" + std::to_string(L) +
                                                        " tile_items=" + std::to_string(tile_items) +
                                                        " beta=" + std::to_string(beta));
          }
        }
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// cuSPARSE's 64-bit CSR (offsets and values shared, columns widened): SpMV CSR ALG1/ALG2, and SpMM
// CSR ALG1/2/3 in the layouts spx offers them, L = 1, 8, 33.
TYPED_TEST(WideCsr, CusparseOn64BitIndicesEqualsRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const auto& m : wide_test_matrices<T>(seed)) {
    const auto dA = cuda::upload_wide(ctx, m.A);
    const auto cols64 = cuda::widen_columns(ctx, dA);
    for (auto alg : {cuda::CusparseSpmvAlg::CsrAlg1, cuda::CusparseSpmvAlg::CsrAlg2}) {
      cuda::DeviceBuffer<T> sx(static_cast<std::size_t>(m.A.cols), "x"),
          sy(static_cast<std::size_t>(m.A.rows), "y");
      cuda::CusparseSpmv<T, int64_t> op(ctx, dA, cols64, alg, std::span<const T>(sx.span()), sy.span());
      check_spmv_cases<T>(m.A, seed, m.name + " " + cuda::kernel_name(alg),
                          [&](std::span<const T> x, std::span<T> y, T a, T b) {
                            op.set_vectors(x, y);
                            op.set_scalars(a, b);
                            op.run();
                          });
    }
    if (m.A.rows > 20000) continue;  // host reference time, not coverage
    for (int64_t L : {1, 8, 33}) {
      for (Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
        // Leading dimensions padded to a 16-byte multiple (at least one element): what CSR ALG3
        // needs on row-major operands, and padding the product must leave NaN.
        const auto extra = [](int64_t tight) {
          const int64_t per16 = 16 / static_cast<int64_t>(sizeof(T));
          return (tight + 1 + per16 - 1) / per16 * per16 - tight;
        };
        const bool row_major = layout == Layout::RowMajor;
        const auto B = random_dense<T>(m.A.cols, L, layout, seed + L, extra(row_major ? L : m.A.cols));
        const auto dB = cuda::upload(ctx, B);
        for (T beta : {T{0}, T(-2)}) {
          const SpmmCase<T> c =
              spmm_case(m.A, B, layout, T(0.75), beta, seed, extra(row_major ? L : m.A.rows));
          for (auto alg : {cuda::CusparseSpmmAlg::CsrAlg1, cuda::CusparseSpmmAlg::CsrAlg2,
                           cuda::CusparseSpmmAlg::CsrAlg3}) {
            if (!cuda::cusparse_spmm_supports(alg, layout)) continue;
            auto dC = cuda::upload(ctx, c.C0);
            cuda::CusparseSpmm<T, int64_t> op(ctx, dA, cols64, alg, cuda::view(dB), cuda::view(dC), T(0.75),
                                              beta);
            op.run();
            c.expect_close(cuda::download(ctx, dC),
                           m.name + " cusparse 64-bit " + cuda::kernel_name(alg) + " L=" + std::to_string(L) +
                               (row_major ? " row-major" : " col-major") + " beta=" + std::to_string(beta));
          }
        }
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// The padded slabs converted on the device from 64-bit offsets equal the host conversions array for
// array (the 32-bit path's contract, tests/gpu/convert_gpu_test.cpp), and the ELL and ELLPACK-R
// kernels on them equal spx::ref; a slot bound is still honoured.
TYPED_TEST(WideCsr, EllSlabsFromWideOffsetsEqualHostAndRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  constexpr int64_t kMaxTestSlots = int64_t{1} << 25;
  for (const auto& m : wide_test_matrices<T>(seed)) {
    SCOPED_TRACE(m.name);
    int64_t longest = 0;
    for (int32_t r = 0; r < m.A.rows; ++r) longest = std::max<int64_t>(longest, m.A.row_length(r));
    if ((int64_t{m.A.rows} + 31) / 32 * 32 * longest > kMaxTestSlots) continue;
    const auto dA = cuda::upload_wide(ctx, m.A);
    const auto ell = cuda::to_ell(ctx, dA, int32_t{-1}, std::numeric_limits<std::size_t>::max());
    const auto got = cuda::download(ctx, ell);
    const auto want = to_ell(m.A);
    EXPECT_EQ(got.width, want.width);
    EXPECT_EQ(got.ld, want.ld);
    EXPECT_TRUE(got.col_idx == want.col_idx) << "ELL column indices differ";
    EXPECT_TRUE(got.values == want.values) << "ELL values differ";
    const auto ellr = cuda::to_ellr(ctx, dA, std::numeric_limits<std::size_t>::max());
    const auto got_r = cuda::download(ctx, ellr);
    const auto want_r = to_ellr(m.A);
    EXPECT_EQ(got_r.width, want_r.width);
    EXPECT_TRUE(got_r.col_idx == want_r.col_idx) << "ELL-R column indices differ";
    EXPECT_TRUE(got_r.values == want_r.values) << "ELL-R values differ";
    EXPECT_TRUE(got_r.row_len == want_r.row_len) << "ELL-R row lengths differ";
    check_spmv_cases<T>(m.A, seed, m.name + " ell ", [&](std::span<const T> x, std::span<T> y, T a, T b) {
      cuda::spmv_ell(ctx, ell, x, y, a, b);
    });
    const auto config = plan::ellr_t_rule(stats(m.A), ctx.props());
    check_spmv_cases<T>(m.A, seed, m.name + " ellr_t ", [&](std::span<const T> x, std::span<T> y, T a, T b) {
      cuda::spmv_ellr_t(ctx, ellr, x, y, config, a, b);
    });
    if (m.A.nnz() > 0)
      expect_error([&] { (void)cuda::to_ell(ctx, dA, int32_t{-1}, 1); }, "more than max_slots = 1");
  }
}

// Offsets past 2^31 without 2^31 nonzeros: the kernel's arguments point its column and value arrays
// 2^31 + 5 entries before the real ones, and its row offsets start there, so every load it makes is
// in bounds while every offset it computes is past 32 bits (an int32 truncation would read far out of
// the arrays, which memcheck catches, or give wrong sums). Main rows and the long-row path both.
TYPED_TEST(WideCsr, OffsetsPast2To31AreAddressedExactly) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::generate<T, int32_t>("longrows:rows=3000,cols=8000,long=2,len=5000,empty=0.2");
  constexpr int64_t kBase = (int64_t{1} << 31) + 5;
  std::vector<int64_t> shifted(A.row_ptr.begin(), A.row_ptr.end());
  for (int64_t& o : shifted) o += kBase;
  const auto dA = cuda::upload_wide(ctx, A);
  cuda::DeviceBuffer<int64_t> row_ptr(shifted.size(), "shifted offsets");
  cuda::copy_to_device_sync(ctx, row_ptr.data(), shifted.data(), row_ptr.bytes());
  const MatrixStats s = stats(A);
  for (int64_t threshold : {int64_t{std::numeric_limits<int64_t>::max()}, int64_t{100}}) {
    // The plan's long-row split only needs row lengths; its offsets are then read from the device.
    auto plan =
        cuda::plan_csr_spmv(ctx, dA, std::span<const int64_t>(offsets64(A)), s, std::nullopt, threshold);
    check_spmv_cases<T>(A, 3, threshold > 100 ? "shifted, main rows" : "shifted, long rows",
                        [&](std::span<const T> x, std::span<T> y, T alpha, T beta) {
                          cuda::CsrParamArgs<T, T, int64_t> a;
                          a.rows = A.rows;
                          a.row_ptr = row_ptr.data();
                          a.col_idx = dA.col_idx.data() - kBase;
                          a.values = dA.values.data() - kBase;
                          a.x = x.data();
                          a.y = y.data();
                          a.alpha = alpha;
                          a.beta = beta;
                          a.repeat = plan.params.repeat;
                          a.long_row_threshold = plan.long_row_threshold;
                          if (plan.has_long_rows()) {
                            const int64_t warps = plan.params.block_size / 32;
                            a.long_chunks = static_cast<int32_t>(plan.long_row_chunks);
                            a.long_blocks = static_cast<int32_t>((plan.long_row_chunks + warps - 1) / warps);
                            a.long_rows = plan.d_long_rows.data();
                            a.chunk_begin = plan.d_chunk_begin.data();
                            a.chunk_owner = plan.d_chunk_owner.data();
                            a.partials = reinterpret_cast<T*>(plan.d_partials.data());
                            a.arrivals = plan.d_arrivals.data();
                          }
                          cuda::launch_csr_param(ctx, plan.params, a);
                        });
    EXPECT_EQ(plan.has_long_rows(), threshold == 100);
  }
}

}  // namespace
}  // namespace spx::test
