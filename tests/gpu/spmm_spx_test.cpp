// spx's own SpMM kernels (src/cuda/spmm: SSFastSpMM on ELLPACK-R, CSR SpMM, SetSpMVs) against
// spx::ref::spmm: SpmmEllrIsEquivalentToRef, SpmmCsrIsEquivalentToRef, SetSpmvsIsEquivalentToRef.
// Random odd shapes, empty rows, a very long row, all-zero matrices; L over {1, 2, 3, 4, 8, 16, 32,
// 64, 100} in row-major (the fast layout), column-major and mixed layouts at a few L; column slices
// of wider B/C (entries outside the slice untouched); every shared matrix at L = 8 with the kernel
// spmm_format_rule picks. Outputs start NaN-poisoned (beta = 0) and leading-dimension padding must
// stay NaN. Tolerance: device_tolerance (gpu_test_support.hpp), which holds for any summation order
// — the shuffle trees and the long-row kernel's atomics included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/stats.hpp"

namespace spx::test {
namespace {

using cuda::SpmmCsrParams;
using cuda::SpmmEllrParams;

enum class Kernel { Ellr, Csr, SetSpmvs };

const char* name_of(Kernel k) {
  switch (k) {
    case Kernel::Ellr:
      return "spmm_ellr_t";
    case Kernel::Csr:
      return "spmm_csr";
    default:
      return "spmm_set_spmvs";
  }
}
const char* name_of(Layout l) { return l == Layout::RowMajor ? "row" : "col"; }

// Which kernel, and its configuration (the rule's when not given).
struct Spec {
  Kernel kernel = Kernel::Ellr;
  std::optional<SpmmEllrParams> ellr;
  std::optional<SpmmCsrParams> csr;
};

// The device matrix in both formats a Spec may need, converted once per matrix.
template <class T>
struct DeviceA {
  cuda::DeviceCsr<T, int32_t> csr;
  cuda::DeviceEllR<T, int32_t> ellr;
  MatrixStats stats;
};

template <class T>
DeviceA<T> upload_both(const Csr<T, int32_t>& A, bool need_ellr = true) {
  auto& ctx = gpu();
  DeviceA<T> d;
  d.csr = cuda::upload(ctx, A);
  if (need_ellr) d.ellr = cuda::to_ellr(ctx, d.csr);
  d.stats = stats(A);
  return d;
}

template <class T>
void run(const Spec& spec, const DeviceA<T>& A, cuda::DenseView<const T> B, cuda::DenseView<T> C, T alpha,
         T beta) {
  auto& ctx = gpu();
  switch (spec.kernel) {
    case Kernel::Ellr:
      return cuda::spmm_ellr_t(ctx, A.ellr, B, C,
                               spec.ellr.value_or(plan::spmm_ellr_rule(A.stats, B.cols, ctx.props())), alpha,
                               beta);
    case Kernel::Csr:
      return cuda::spmm_csr(
          ctx, A.csr, B, C,
          spec.csr.value_or(plan::spmm_csr_rule(A.stats, B.cols, ctx.props(), static_cast<int>(sizeof(T)))),
          alpha, beta);
    default:
      return cuda::spmm_set_spmvs(ctx, A.ellr, B, C, alpha, beta);
  }
}

// One product on the device against spx::ref::spmm; `extra_ld` pads both leading dimensions.
template <class T>
void check(const std::string& name, const Csr<T, int32_t>& A, const DeviceA<T>& dA, const Spec& spec,
           int64_t L, Layout b_layout, Layout c_layout, T alpha, T beta, uint64_t seed,
           int64_t extra_ld = 3) {
  auto& ctx = gpu();
  const auto B = random_dense<T>(A.cols, L, b_layout, seed, extra_ld);
  const SpmmCase<T> c = spmm_case(A, B, c_layout, alpha, beta, seed, extra_ld);
  const auto dB = cuda::upload(ctx, B);
  auto dC = cuda::upload(ctx, c.C0);
  const std::string config = spec.csr ? " " + cuda::to_string(*spec.csr) : std::string{};
  const std::string what = name + " / " + name_of(spec.kernel) + config + " L=" + std::to_string(L) + " B " +
                           name_of(b_layout) + " C " + name_of(c_layout) + " alpha=" + std::to_string(alpha) +
                           " beta=" + std::to_string(beta);
  try {
    run<T>(spec, dA, cuda::view(dB), cuda::view(dC), alpha, beta);
    ctx.synchronize();
  } catch (const Error& e) {
    FAIL() << what << ": " << e.what();
  }
  c.expect_close(cuda::download(ctx, dC), what);
}

constexpr int64_t kAllL[] = {1, 2, 3, 4, 8, 16, 32, 64, 100};

template <class T>
void check_random(Kernel kernel, uint64_t seed, const std::optional<SpmmCsrParams>& csr = std::nullopt) {
  Spec spec{kernel, std::nullopt, csr};
  for (const auto& m : random_matrices<T, int32_t>(seed)) {
    if (m.A.rows > 20000) continue;  // the large one adds host reference time, not coverage
    const auto dA = upload_both(m.A, kernel != Kernel::Csr);
    if (kernel == Kernel::SetSpmvs) {
      for (int64_t L : {1, 3, 8})
        check<T>(m.name, m.A, dA, spec, L, Layout::ColMajor, Layout::ColMajor, T{1}, T{0}, seed + L);
      check<T>(m.name, m.A, dA, spec, 4, Layout::ColMajor, Layout::ColMajor, T(0.75), T(-2), seed);
      continue;
    }
    for (int64_t L : kAllL)
      check<T>(m.name, m.A, dA, spec, L, Layout::RowMajor, Layout::RowMajor, T{1}, T{0}, seed + L);
    for (int64_t L : {3, 32})
      check<T>(m.name, m.A, dA, spec, L, Layout::RowMajor, Layout::RowMajor, T(0.75), T(-2), seed + L);
    for (int64_t L : {4, 100})
      check<T>(m.name, m.A, dA, spec, L, Layout::ColMajor, Layout::ColMajor, T{1}, T{0}, seed + L);
    check<T>(m.name, m.A, dA, spec, 8, Layout::RowMajor, Layout::ColMajor, T{1}, T(0.5), seed);
    check<T>(m.name, m.A, dA, spec, 16, Layout::ColMajor, Layout::RowMajor, T(-1), T{0}, seed);
    // Tight (ld = cols, so 16-byte rows only by chance) and 16-byte aligned leading dimensions.
    check<T>(m.name, m.A, dA, spec, 8, Layout::RowMajor, Layout::RowMajor, T{1}, T{0}, seed, 0);
    check<T>(m.name, m.A, dA, spec, 32, Layout::RowMajor, Layout::RowMajor, T{1}, T{0}, seed, 4);
    if (::testing::Test::HasFailure()) return;
  }
}

template <class P>
class GpuSpmmSpx : public ::testing::Test {};
TYPED_TEST_SUITE(GpuSpmmSpx, Precisions);

TYPED_TEST(GpuSpmmSpx, SpmmEllrIsEquivalentToRefOnRandomMatrices) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  check_random<TypeParam>(Kernel::Ellr, seed);
}

TYPED_TEST(GpuSpmmSpx, SpmmCsrIsEquivalentToRefOnRandomMatrices) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  check_random<TypeParam>(Kernel::Csr, seed);
  // The long-row kernel: rows over 64 nonzeros (the 5000-long row, the 4099-long 1-row matrix)
  // are spread over the grid.
  SpmmCsrParams config;
  config.threads_per_row = 4;
  config.cols_per_pass = 8;
  config.long_row_nnz = 64;
  check_random<TypeParam>(Kernel::Csr, seed + 100, config);
  // Balanced tiles of 32 items: every row longer than 32 is cut into pieces summed by the last one.
  // Each check reuses the context's arrival counters, so a counter left non-zero by one product
  // would leave rows of the next unwritten (NaN-poisoned C).
  config.tile_items = 32;
  check_random<TypeParam>(Kernel::Csr, seed + 200, config);
  config = SpmmCsrParams{8, 64, 32, 1 << 14, 256};
  check_random<TypeParam>(Kernel::Csr, seed + 300, config);
}

// Balanced tiles where rows are items too: a run of 49,998 empty rows between two long rows, and a
// matrix whose rows are all empty; beta != 0 must scale every empty row of C, beta == 0 zero it.
TYPED_TEST(GpuSpmmSpx, SpmmCsrTilesCoverRunsOfEmptyRows) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto empty = random_csr<T, int32_t>(50'000, 3'000, 0, 0, seed);
  const auto ends = with_long_row(with_long_row(empty, 0, 70, seed + 1), 49'999, 2'999, seed + 2);
  for (const auto* A : {&empty, &ends}) {
    const auto dA = upload_both(*A, false);
    for (int tile : {32, 2048}) {
      const Spec spec{Kernel::Csr, std::nullopt, SpmmCsrParams{8, 128, 8, 1 << 14, tile}};
      check<T>("empty-row runs", *A, dA, spec, 8, Layout::RowMajor, Layout::RowMajor, T{1}, T{0}, seed, 0);
      check<T>("empty-row runs", *A, dA, spec, 3, Layout::RowMajor, Layout::RowMajor, T(0.5), T(-2), seed);
    }
  }
}

TYPED_TEST(GpuSpmmSpx, SetSpmvsIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  check_random<TypeParam>(Kernel::SetSpmvs, seed);
}

// Every (T, L_c) of the ELLR kernel and every (G, L_c, V) of the CSR kernel (row-split and balanced
// tiles of 64 items), with L = 100 (3 full
// passes of 32 and a tail of 4, or 1 full pass of 64 and a tail of 36) and L = 19.
TYPED_TEST(GpuSpmmSpx, EveryConfigIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto A = with_long_row(random_csr<T, int32_t>(613, 587, 0, 40, seed, 0.1), 17, 450, seed + 1);
  const auto dA = upload_both(A);
  for (int t : {1, 2, 4, 8, 16, 32})
    for (int lc : {1, 2, 4, 8, 16, 32}) {
      const Spec spec{Kernel::Ellr, SpmmEllrParams{t, t == 32 ? 64 : 128, lc}, std::nullopt};
      for (int64_t L : {19, 100})
        check<T>("613x587", A, dA, spec, L, Layout::RowMajor, Layout::RowMajor, T{1}, T{0}, seed + L, 1);
    }
  for (int g : {1, 2, 4, 8, 16, 32})
    for (int lc : {1, 2, 4, 8, 16, 32, 64}) {
      if (lc / g > 8) continue;
      // V = 0: L_c / G columns per lane; the others split a row's nonzeros over G / (L_c / V) lanes.
      for (int v : {0, 1, 2, 4, 8}) {
        if (v != 0 && (v > lc || lc / v > g || v == std::max(1, lc / g))) continue;
        for (int tile : {0, 64}) {
          const Spec spec{Kernel::Csr, std::nullopt, SpmmCsrParams{g, 128, lc, 100, tile, v}};
          for (int64_t L : {19, 100})
            check<T>("613x587", A, dA, spec, L, Layout::RowMajor, Layout::RowMajor, T{1}, T{0}, seed + L, 1);
        }
      }
    }
}

// A column chunk of a wider B and C (what the host-resident path hands the kernels): only the
// slice's columns of C change; the rest of C keeps its values.
TYPED_TEST(GpuSpmmSpx, ColumnSlicesLeaveTheRestUntouched) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto A = random_csr<T, int32_t>(777, 555, 0, 30, seed, 0.1);
  const auto dA = upload_both(A);
  const int64_t wide = 40;
  for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
    for (Kernel kernel : {Kernel::Ellr, Kernel::Csr, Kernel::SetSpmvs})
      for (auto [first, count] : {std::pair<int64_t, int64_t>{0, 16}, {5, 19}, {8, 32}}) {
        if (kernel == Kernel::SetSpmvs && layout == Layout::RowMajor) continue;
        const auto B = random_dense<T>(A.cols, wide, layout, seed, 3);
        const auto C0 = random_dense<T>(A.rows, wide, layout, seed + 1, 1);
        Dense<T> want = C0;
        // The reference on the slice: copy out, multiply, copy back.
        Dense<T> Bs(A.cols, count, Layout::ColMajor), Cs(A.rows, count, Layout::ColMajor);
        for (int64_t j = 0; j < count; ++j) {
          for (int64_t i = 0; i < A.cols; ++i) Bs(i, j) = B(i, first + j);
          for (int64_t i = 0; i < A.rows; ++i) Cs(i, j) = C0(i, first + j);
        }
        ref::spmm(A, Bs, Cs, T(2), T(0.5));
        for (int64_t j = 0; j < count; ++j)
          for (int64_t i = 0; i < A.rows; ++i) want(i, first + j) = Cs(i, j);
        const auto dB = cuda::upload(ctx, B);
        auto dC = cuda::upload(ctx, C0);
        run<T>(Spec{kernel, std::nullopt, std::nullopt}, dA, cuda::column_slice(cuda::view(dB), first, count),
               cuda::column_slice(cuda::view(dC), first, count), T(2), T(0.5));
        const auto got = cuda::download(ctx, dC);
        const std::string what = std::string(name_of(kernel)) + " " + name_of(layout) + " columns [" +
                                 std::to_string(first) + ", " + std::to_string(first + count) + ")";
        int bad = 0;
        for (int64_t i = 0; i < A.rows && bad < 5; ++i)
          for (int64_t j = 0; j < wide && bad < 5; ++j) {
            const bool inside = j >= first && j < first + count;
            const double g = got(i, j), w = want(i, j);
            const bool ok = inside ? std::abs(g - w) <= 1e-4 * (1 + std::abs(w)) : g == w;
            if (!ok) {
              ++bad;
              ADD_FAILURE() << what << ": C(" << i << ", " << j << ") = " << g << ", want " << w;
            }
          }
        EXPECT_TRUE(padding_untouched(got)) << what;
      }
}

// alpha == 0 reads neither A nor B (B is all NaN here) and scales C; beta == 0 overwrites NaN.
TYPED_TEST(GpuSpmmSpx, AlphaZeroOnlyScalesC) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = random_csr<T, int32_t>(300, 200, 0, 9, 7);
  const auto dA = upload_both(A);
  const auto dB = cuda::upload(ctx, poisoned_dense<T>(A.cols, 8, Layout::ColMajor, 0));
  for (Kernel kernel : {Kernel::Ellr, Kernel::Csr, Kernel::SetSpmvs}) {
    for (T beta : {T{0}, T{2}}) {
      Dense<T> C0(A.rows, 8, Layout::ColMajor, T{3});
      auto dC = cuda::upload(ctx, C0);
      run<T>(Spec{kernel, std::nullopt, std::nullopt}, dA, cuda::view(dB), cuda::view(dC), T{0}, beta);
      const auto got = cuda::download(ctx, dC);
      for (const T v : got.data) ASSERT_EQ(v, beta * T{3}) << name_of(kernel) << " beta=" << beta;
    }
  }
}

// One row of 10^6 nonzeros among 4095 short ones: the CSR kernel splits it over the grid (both modes).
TEST(GpuSpmmSpxLongRow, CsrSplitsAMillionNonzeroRow) {
  SPX_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto A =
      with_long_row(random_csr<double, int32_t>(4096, 1'000'000, 0, 6, seed, 0.2), 100, 1'000'000, seed + 1);
  const auto dA = upload_both(A, false);
  ASSERT_EQ(plan::spmm_format_rule(dA.stats), cuda::SpmmFormat::Csr);
  // The rule's choice (row-split: the long-row list; this matrix is too small for tiles), then
  // balanced tiles of the rule's size (the long row cut into ~8000 pieces summed by the last one).
  SpmmCsrParams rule = plan::spmm_csr_rule(dA.stats, 8, gpu().props(), 8);
  check<double>("1e6-long row", A, dA, Spec{Kernel::Csr, std::nullopt, rule}, 8, Layout::RowMajor,
                Layout::RowMajor, 1.0, 0.0, seed, 0);
  rule.tile_items = plan::spmm_csr_tile_items(dA.stats, gpu().props());
  check<double>("1e6-long row", A, dA, Spec{Kernel::Csr, std::nullopt, rule}, 8, Layout::RowMajor,
                Layout::RowMajor, 1.0, 0.0, seed, 0);
}

TEST(GpuSpmmSpxErrors, BadShapesLayoutsAndConfigsAreErrors) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<double, int32_t>(50, 40, 0, 5, 3);
  const auto dA = upload_both(A);
  const auto B = cuda::make_device_dense<double>(40, 8, Layout::RowMajor);
  const auto B_short = cuda::make_device_dense<double>(39, 8, Layout::RowMajor);
  auto C = cuda::make_device_dense<double>(50, 8, Layout::RowMajor);
  auto C_narrow = cuda::make_device_dense<double>(50, 7, Layout::RowMajor);
  const SpmmEllrParams ellr;
  const SpmmCsrParams csr;
  expect_error([&] { cuda::spmm_ellr_t(ctx, dA.ellr, cuda::view(B_short), cuda::view(C), ellr); },
               "B has 39 rows, A has 40 columns");
  expect_error([&] { cuda::spmm_csr(ctx, dA.csr, cuda::view(B), cuda::view(C_narrow), csr); },
               "C has 7 columns, B has 8");
  expect_error([&] { cuda::spmm_set_spmvs(ctx, dA.ellr, cuda::view(B), cuda::view(C)); },
               "must be column-major");
  expect_error(
      [&] {
        cuda::spmm_ellr_t(ctx, dA.ellr, cuda::view(B), cuda::view(C), SpmmEllrParams{3, 256, 8});
      },
      "threads_per_row 3");
  expect_error(
      [&] {
        cuda::spmm_ellr_t(ctx, dA.ellr, cuda::view(B), cuda::view(C), SpmmEllrParams{4, 512, 8});
      },
      "spmm_ellr_t: block_size 512 is not a multiple of 32 in 32..256");
  expect_error(
      [&] {
        cuda::spmm_ellr_t(ctx, dA.ellr, cuda::view(B), cuda::view(C), SpmmEllrParams{4, 256, 64});
      },
      "spmm_ellr_t: cols_per_pass 64 is not 1, 2, 4, 8, 16 or 32");
  expect_error(
      [&] {
        cuda::spmm_csr(ctx, dA.csr, cuda::view(B), cuda::view(C), SpmmCsrParams{1, 256, 16, 4096});
      },
      "more than 8 columns per thread");
  expect_error(
      [&] {
        cuda::spmm_csr(ctx, dA.csr, cuda::view(B), cuda::view(C), SpmmCsrParams{8, 256, 8, 4096, 16});
      },
      "spmm_csr: tile_items 16 is not 0 (row-split) or at least 32");
  for (int v : {3, 16, 1}) {  // not a power of two; over 8; 8 columns need 8 lanes, G = 4 has 4
    expect_error(
        [&] {
          cuda::spmm_csr(ctx, dA.csr, cuda::view(B), cuda::view(C), SpmmCsrParams{4, 256, 8, 4096, 0, v});
        },
        "is not 0 or a power of two in 1..8");
  }
  auto bad_ld = cuda::view(C);
  bad_ld.ld = 7;
  expect_error([&] { cuda::spmm_csr(ctx, dA.csr, cuda::view(B), bad_ld, csr); }, "leading dimension");
  // B and C in the same buffer.
  auto square = cuda::make_device_dense<double>(40, 8, Layout::RowMajor);
  const auto sq = upload_both(random_csr<double, int32_t>(40, 40, 0, 5, 4));
  expect_error(
      [&] {
        cuda::spmm_csr(ctx, sq.csr,
                       cuda::DenseView<const double>(cuda::view(square).data, 40, 8, 8, Layout::RowMajor),
                       cuda::view(square), csr);
      },
      "overlap");
  expect_error([&] { (void)cuda::column_slice(cuda::view(C), 4, 5); }, "outside a matrix of 8 columns");
  expect_error([&] { (void)plan::spmm_csr_rule(dA.stats, 8, ctx.props(), 2); }, "value_bytes must be 4");
}

TEST(GpuSpmmSpxEmpty, EmptyShapesDoNothing) {
  SPX_REQUIRE_GPU();
  auto& ctx = gpu();
  const auto A = random_csr<float, int32_t>(0, 10, 0, 0, 1);
  const auto dA = upload_both(A);
  const auto B = cuda::make_device_dense<float>(10, 4, Layout::RowMajor);
  auto C = cuda::make_device_dense<float>(0, 4, Layout::RowMajor);
  cuda::spmm_ellr_t(ctx, dA.ellr, cuda::view(B), cuda::view(C), SpmmEllrParams{});
  cuda::spmm_csr(ctx, dA.csr, cuda::view(B), cuda::view(C), SpmmCsrParams{});
  ctx.synchronize();
}

// Every shared matrix at L = 8 (row-major), f64, with the format and configuration the rules pick:
// what `spx spmm` and the `spx_spmm_row` bench entry run; then the CSR kernel in balanced mode.
TEST(GpuSpmmSpxShared, RuleChosenKernelIsEquivalentToRefOnSharedMatrices) {
  SPX_REQUIRE_GPU();
  for_each_shared_matrix<double>([](const std::string& name, const Csr<double, int32_t>& A, uint64_t seed) {
    const MatrixStats s = stats(A);
    const bool csr = plan::spmm_format_rule(s, 8) == cuda::SpmmFormat::Csr;
    const auto dA = upload_both(A, !csr);
    check<double>(name, A, dA, Spec{csr ? Kernel::Csr : Kernel::Ellr, std::nullopt, std::nullopt}, 8,
                  Layout::RowMajor, Layout::RowMajor, 1.0, 0.0, seed, 0);
    // And the balanced CSR mode the rule would pick if long rows asked for it (spmm_csr_tiled_row).
    SpmmCsrParams tiled = plan::spmm_csr_rule(s, 8, gpu().props(), 8);
    tiled.tile_items = plan::spmm_csr_tile_items(s, gpu().props());
    check<double>(name, A, dA, Spec{Kernel::Csr, std::nullopt, tiled}, 8, Layout::RowMajor, Layout::RowMajor,
                  1.0, 0.0, seed + 1, 0);
  });
}

}  // namespace
}  // namespace spx::test
