// The front door (spx/cuda/sparse_matrix.hpp) against spx::ref: every SpMV and SpMM candidate the
// planner knows, forced one at a time (Options::kernels), on the random shapes (odd sizes, empty
// rows, one huge row, no nonzeros) and on shared real matrices; the model and measure modes; the
// tuner converging and staying put; the tuning cache round trip (and another structure never
// taking a cached plan); a planned SpMV captured into a CUDA graph; bad operands refused.
#include "spx/cuda/sparse_matrix.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "bsr_test_support.hpp"
#include "gpu_test_support.hpp"
#include "plan/catalogue.hpp"
#include "spx/convert.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"
#include "spx/plan/rules.hpp"
#include "spx/sell_c16_dict.hpp"
#include "spx/stats.hpp"

namespace spx::test {
namespace {

template <class T>
class FrontDoor : public ::testing::Test {};
TYPED_TEST_SUITE(FrontDoor, Precisions);

// Every candidate of a product, from the kernel catalogue (plan/catalogue.cpp): a row added there
// is tested here without another list to update.
std::vector<std::string> catalogue_names(plan::Operation op, plan::DenseLayout layout) {
  std::vector<std::string> names;
  for (const plan::KernelRow* row : plan::rows_for(op, layout)) names.emplace_back(row->name);
  return names;
}
const std::vector<std::string> kSpmvKernels =
    catalogue_names(plan::Operation::Spmv, plan::DenseLayout::RowMajor);
const std::vector<std::string> kSpmmRow = catalogue_names(plan::Operation::Spmm, plan::DenseLayout::RowMajor);
const std::vector<std::string> kSpmmCol = catalogue_names(plan::Operation::Spmm, plan::DenseLayout::ColMajor);

// Planned SpMV of every (alpha, beta) case against spx::ref. Returns false when the kernel is not
// eligible for this matrix (padding limits): nothing to check then.
template <class T>
bool check_spmv(const std::string& name, const Csr<T, int32_t>& A, const plan::Options& o, uint64_t seed,
                plan::IndexWidth width = plan::IndexWidth::Auto) {
  auto& ctx = gpu();
  cuda::SparseMatrix<T> M(ctx, A, width);
  const std::string what = name + " " + precision_name<T>() + " " +
                           (o.kernels.empty() ? std::string(plan::to_string(o.mode)) : o.kernels.front());
  try {
    M.plan_spmv(o);
  } catch (const Error& e) {
    if (std::string(e.what()).find("no candidate") != std::string::npos) return false;
    ADD_FAILURE() << what << ": " << e.what();
    return false;
  }
  if (!o.kernels.empty()) EXPECT_EQ(M.spmv_report()->winner().kernel, o.kernels.front()) << what;
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  cuda::DeviceBuffer<T> dx(x.size(), "x"), dy(static_cast<std::size_t>(A.rows), "y");
  cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
  for (const SpmvCase<T>& c : spmv_cases(A, x, seed)) {
    cuda::copy_to_device_sync(ctx, dy.data(), c.y0.data(), dy.bytes());
    cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span(), c.alpha, c.beta);
    std::vector<T> got(c.y0.size());
    cuda::copy_to_host_sync(ctx, got.data(), dy.data(), dy.bytes());
    c.expect_close(got, what + c.label());
  }
  return true;
}

// Returns false when the kernel is not eligible for this matrix (nothing to check then).
template <class T>
bool check_spmm(const std::string& name, const Csr<T, int32_t>& A, int64_t L, Layout layout,
                const plan::Options& o, T alpha, T beta, uint64_t seed, int64_t extra_ld,
                plan::IndexWidth width = plan::IndexWidth::Auto) {
  auto& ctx = gpu();
  cuda::SparseMatrix<T> M(ctx, A, width);
  const plan::DenseLayout pl =
      layout == Layout::RowMajor ? plan::DenseLayout::RowMajor : plan::DenseLayout::ColMajor;
  const std::string what = name + " " + precision_name<T>() + " L=" + std::to_string(L) +
                           (layout == Layout::RowMajor ? " row " : " col ") +
                           (o.kernels.empty() ? std::string(plan::to_string(o.mode)) : o.kernels.front());
  try {
    M.plan_spmm(L, pl, o);
  } catch (const Error& e) {
    if (std::string(e.what()).find("no candidate") == std::string::npos)
      ADD_FAILURE() << what << ": " << e.what();
    return false;
  }
  const auto B = random_dense<T>(A.cols, L, layout, seed, extra_ld);
  const SpmmCase<T> c = spmm_case(A, B, layout, alpha, beta, seed, extra_ld);
  const auto dB = cuda::upload(ctx, B);
  auto dC = cuda::upload(ctx, c.C0);
  try {
    cuda::spmm(ctx, M, cuda::view(dB), cuda::view(dC), alpha, beta);
    ctx.synchronize();
  } catch (const Error& e) {
    ADD_FAILURE() << what << ": " << e.what();
    return false;
  }
  c.expect_close(cuda::download(ctx, dC), what);
  return true;
}

// One candidate forced: model mode, so the features are there (cuSPARSE SELL needs them); the
// candidate that rounds values to float (csr_param_mixed) with the option that allows it.
plan::Options only(const std::string& kernel) {
  plan::Options o;
  o.mode = plan::Mode::Model;
  o.kernels = {kernel};
  o.tuning_cache = "-";
  o.mixed_precision = plan::kernel_row(kernel).rounds_values;
  return o;
}

TYPED_TEST(FrontDoor, EverySpmvCandidateIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::map<std::string, int> checked;  // a candidate ineligible everywhere would pass unseen
  auto matrices = random_matrices<T, int32_t>(seed);
  // BSR is a candidate only on block structure: dense 3x3 blocks, sizes not a multiple of 3.
  matrices.push_back({"3x3 blocks 3001x2999, 10% block rows empty",
                      random_block_csr<T, int32_t>({3001, 2999, 3, 1, 9, 0.1, -1}, seed + 7)});
  // rcm_csr only where RCM can find a band: a randomly numbered mesh (the random matrices above are
  // expander-like graphs, which the locality statistic refuses).
  matrices.push_back(
      {"27-point mesh 20^3, randomly numbered",
       gen::generate<T, int32_t>("stencil27:n=20,shuffle=" + std::to_string(seed % 1000 + 1))});
  // Mixed precision rounds double values to float (its error bound: mixed_precision_test.cpp): it
  // runs on double matrices only, here with values float holds exactly, so that the product is
  // checked as tightly as the others'.
  const auto runs_here = [](const std::string& k) {
    return !plan::kernel_row(k).rounds_values || std::is_same_v<T, double>;
  };
  for (const auto& m : matrices) {
    auto float_valued = m.A;
    for (T& v : float_valued.values) v = static_cast<T>(static_cast<float>(v));
    for (const std::string& k : kSpmvKernels) {
      if (!runs_here(k)) continue;
      const bool rounds = plan::kernel_row(k).rounds_values;
      checked[k] += check_spmv<T>(m.name, rounds ? float_valued : m.A, only(k), seed) ? 1 : 0;
      if (::testing::Test::HasFailure()) return;
    }
  }
  for (const std::string& k : kSpmvKernels)
    if (runs_here(k)) EXPECT_GT(checked[k], 0) << k << " ran on no random matrix";
}

// The catalogue's determinism is what deterministic_only plans rely on: every SpMV row declared
// Always gives bitwise equal repeated products -- on a matrix whose huge row takes the long-row
// paths (csr_param's chunks summed by the last to arrive, the segmented sum's synchronizer) and on a
// randomly numbered mesh (the RCM rows). y poisoned before each run.
TYPED_TEST(FrontDoor, CandidatesDeclaredDeterministicRepeatBitwise) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<NamedMatrix<T, int32_t>> matrices = {
      {"one row of 200000 among rows of 0..12",
       with_long_row(random_csr<T, int32_t>(50001, 250007, 0, 12, seed, 0.1), 777, 200000, seed + 1)},
      {"27-point mesh 20^3, randomly numbered",
       gen::generate<T, int32_t>("stencil27:n=20,shuffle=" + std::to_string(seed % 1000 + 1))}};
  int compared = 0;
  for (const auto& m : matrices) {
    const auto x = random_vector<T>(static_cast<std::size_t>(m.A.cols), seed + 2);
    const auto dx = cuda::to_device(ctx, x, "x");
    for (const std::string& k : kSpmvKernels) {
      const plan::KernelRow& row = plan::kernel_row(k);
      if (row.determinism != plan::Determinism::Always || (row.rounds_values && !std::is_same_v<T, double>))
        continue;
      cuda::SparseMatrix<T> M(ctx, m.A);
      try {
        if (M.plan_spmv(only(k)).winner().kernel != k) continue;
      } catch (const Error&) {
        continue;  // not eligible here
      }
      std::vector<T> first;
      for (int run = 0; run < 3; ++run) {
        std::vector<T> y0(static_cast<std::size_t>(m.A.rows));
        poison(std::span<T>(y0));
        auto dy = cuda::to_device(ctx, y0, "y");
        cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span(), T{1}, T{0});
        const std::vector<T> got = cuda::to_host(ctx, dy);
        if (run == 0)
          first = got;
        else
          EXPECT_TRUE(same_bits(first, got)) << m.name << " / " << k << ": run " << run << " differs";
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 6);
}

TYPED_TEST(FrontDoor, EverySpmmCandidateIsEquivalentToRef) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::map<std::string, int> row_checked, col_checked;  // ineligible everywhere would pass unseen
  for (const auto& m : random_matrices<T, int32_t>(seed)) {
    if (m.A.rows > 20000) continue;  // host reference time, not coverage
    for (int64_t L : {1, 3, 8, 32}) {
      for (const std::string& k : kSpmmRow) {
        row_checked[k] += check_spmm<T>(m.name, m.A, L, Layout::RowMajor, only(k), T{1}, T{0}, seed + L, 0);
        check_spmm<T>(m.name, m.A, L, Layout::RowMajor, only(k), T(0.75), T(-2), seed + L, 4);
      }
      for (const std::string& k : kSpmmCol)
        col_checked[k] += check_spmm<T>(m.name, m.A, L, Layout::ColMajor, only(k), T{1}, T{0}, seed, 3);
      if (::testing::Test::HasFailure()) return;
    }
  }
  for (const std::string& k : kSpmmRow) EXPECT_GT(row_checked[k], 0) << k << " ran on no random matrix";
  for (const std::string& k : kSpmmCol) EXPECT_GT(col_checked[k], 0) << k << " ran on no random matrix";
}

// 64-bit offsets forced on small matrices: every candidate with a 64-bit path (KernelRow::offsets64)
// equals spx::ref; every other is ineligible and says it runs with 32-bit offsets only.
template <class Plan>
void expect_refused_for_offsets(const std::string& what, Plan&& plan) {
  try {
    plan();
    ADD_FAILURE() << what << ": planned on 64-bit offsets, but has no 64-bit path";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("32-bit row offsets only"), std::string::npos)
        << what << ": " << e.what();
  }
}

TYPED_TEST(FrontDoor, EveryCandidateAt64BitOffsetsRunsOrSaysWhyNot) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto& ctx = gpu();
  constexpr auto k64 = plan::IndexWidth::Bits64;
  std::map<std::string, int> checked;
  auto matrices = random_matrices<T, int32_t>(seed);
  matrices.push_back({"27-point mesh 12^3", gen::generate<T, int32_t>("stencil27:n=12")});
  for (const auto& m : matrices) {
    for (const std::string& k : kSpmvKernels) {
      const plan::KernelRow& row = plan::kernel_row(k);
      if (row.rounds_values) continue;
      if (row.offsets64) {
        checked[k] += check_spmv<T>(m.name + " 64-bit", m.A, only(k), seed, k64) ? 1 : 0;
      } else {
        cuda::SparseMatrix<T> M(ctx, m.A, k64);
        expect_refused_for_offsets(m.name + " " + k, [&] { M.plan_spmv(only(k)); });
      }
      if (::testing::Test::HasFailure()) return;
    }
    if (m.A.rows > 20000) continue;  // host reference time, not coverage
    for (int64_t L : {1, 8, 33}) {
      for (const auto& [names, layout] :
           {std::pair{kSpmmRow, Layout::RowMajor}, {kSpmmCol, Layout::ColMajor}}) {
        for (const std::string& k : names) {
          if (plan::kernel_row(k).offsets64) {
            checked[k] +=
                check_spmm<T>(m.name + " 64-bit", m.A, L, layout, only(k), T(0.75), T(-2), seed + L, 0, k64);
          } else {
            cuda::SparseMatrix<T> M(ctx, m.A, k64);
            const auto pl =
                layout == Layout::RowMajor ? plan::DenseLayout::RowMajor : plan::DenseLayout::ColMajor;
            expect_refused_for_offsets(m.name + " " + k, [&] { M.plan_spmm(L, pl, only(k)); });
          }
        }
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  for (const plan::KernelRow& row : plan::catalogue())
    if (row.offsets64) EXPECT_GT(checked[row.name], 0) << row.name << " ran on no matrix at 64-bit offsets";
}

// The 64-bit host matrix is read where it is: an lvalue is left as it was (no copy was needed to
// take it), an rvalue is freed once read; the products agree at both widths.
TYPED_TEST(FrontDoor, SixtyFourBitHostMatrixIsReadInPlace) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A64 = gen::generate<T, int64_t>("stencil2d:n=40");
  for (const plan::IndexWidth width : {plan::IndexWidth::Auto, plan::IndexWidth::Bits64}) {
    cuda::SparseMatrix<T> lvalue(ctx, A64, width);
    EXPECT_EQ(lvalue.offset_bits(), width == plan::IndexWidth::Auto ? 32 : 64);
    EXPECT_EQ(A64.nnz(), lvalue.nnz());
    EXPECT_EQ(A64.col_idx.size(), static_cast<std::size_t>(lvalue.nnz()));  // untouched
    auto moved = A64;
    cuda::SparseMatrix<T> rvalue(ctx, std::move(moved), width);
    EXPECT_EQ(rvalue.nnz(), A64.nnz());
    EXPECT_TRUE(moved.col_idx.empty() && moved.values.empty());  // freed once read
    const auto x = random_vector<T>(static_cast<std::size_t>(A64.cols), 3);
    cuda::DeviceBuffer<T> dx(x.size(), "x"), y1(static_cast<std::size_t>(A64.rows), "y"),
        y2(static_cast<std::size_t>(A64.rows), "y");
    cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
    cuda::spmv(ctx, lvalue, std::span<const T>(dx.span()), y1.span());
    cuda::spmv(ctx, rvalue, std::span<const T>(dx.span()), y2.span());
    std::vector<T> h1(y1.size()), h2(y2.size());
    cuda::copy_to_host_sync(ctx, h1.data(), y1.data(), y1.bytes());
    cuda::copy_to_host_sync(ctx, h2.data(), y2.data(), y2.bytes());
    for (std::size_t i = 0; i < h1.size(); ++i)  // the two plans may pick different kernels
      ASSERT_NEAR(static_cast<double>(h1[i]), static_cast<double>(h2[i]), 1e-4) << "row " << i;
  }
}

TYPED_TEST(FrontDoor, OffsetWidthIsChosenAndReported) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::generate<T, int32_t>("stencil27:n=16");
  cuda::SparseMatrix<T> narrow(ctx, A);
  EXPECT_EQ(narrow.offset_bits(), 32);
  EXPECT_THROW((void)narrow.wide_csr(), Error);
  // A 64-bit host matrix that fits 32-bit offsets is narrowed under Auto and kept wide when asked.
  const auto A64 = cast<T, int64_t>(A);
  cuda::SparseMatrix<T> from64(ctx, A64);
  EXPECT_EQ(from64.offset_bits(), 32);
  cuda::SparseMatrix<T> wide(ctx, A64, plan::IndexWidth::Bits64);
  EXPECT_EQ(wide.offset_bits(), 64);
  EXPECT_EQ(wide.nnz(), A.nnz());
  EXPECT_THROW((void)wide.host(), Error);
  EXPECT_THROW((void)wide.csr(), Error);
  EXPECT_EQ(wide.device_bytes(), wide.wide_csr().bytes());
  // The default plan on 64-bit offsets times its candidates (no model fit there) and says so.
  const plan::Report& r = wide.plan_spmv();
  EXPECT_EQ(r.problem.offset_bits, 64);
  EXPECT_EQ(r.decided_by, "measured") << r.explain();
  EXPECT_NE(r.explain().find("64-bit offsets"), std::string::npos) << r.explain();
  EXPECT_TRUE(plan::kernel_row(r.winner().kernel).offsets64) << r.explain();
  // The same product either way.
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), 5);
  cuda::DeviceBuffer<T> dx(x.size(), "x"), y32(static_cast<std::size_t>(A.rows), "y"),
      y64(static_cast<std::size_t>(A.rows), "y");
  cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
  cuda::spmv(ctx, narrow, std::span<const T>(dx.span()), y32.span());
  cuda::spmv(ctx, wide, std::span<const T>(dx.span()), y64.span());
  std::vector<T> a(static_cast<std::size_t>(A.rows)), b(a.size()), want(a.size());
  cuda::copy_to_host_sync(ctx, a.data(), y32.data(), y32.bytes());
  cuda::copy_to_host_sync(ctx, b.data(), y64.data(), y64.bytes());
  ref::spmv(A, std::span<const T>(x), std::span<T>(want));
  for (std::size_t i = 0; i < want.size(); ++i) {
    const T tol = T(64) * std::numeric_limits<T>::epsilon() * (std::abs(want[i]) + T(27));
    ASSERT_NEAR(a[i], want[i], tol) << i;
    ASSERT_NEAR(b[i], want[i], tol) << i;
  }
  // Asking for 32-bit offsets on a matrix that needs more is refused before anything is uploaded
  // (simulated: the check is on the sizes alone).
  EXPECT_THROW((void)plan::offset_bits(plan::IndexWidth::Bits32, 10, 10, int64_t{1} << 31), Error);
}

TYPED_TEST(FrontDoor, PlannedModesOnSharedMatrices) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  for_each_shared_matrix<T>([&](const std::string& name, const Csr<T, int32_t>& A, uint64_t seed) {
    for (plan::Mode mode : {plan::Mode::Model, plan::Mode::Measure}) {
      plan::Options o;
      o.mode = mode;
      o.tuning_cache = "-";
      EXPECT_TRUE(check_spmv<T>(name, A, o, seed)) << name;
      check_spmm<T>(name, A, 8, Layout::RowMajor, o, T{1}, T{0}, seed, 0);
    }
  });
}

TYPED_TEST(FrontDoor, PlansOnFirstUseAndExplains) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::generate<T, int32_t>("powerlaw:n=30000,avg=8,exp=1.8");
  cuda::SparseMatrix<T> M(ctx, A);
  EXPECT_EQ(M.spmv_report(), nullptr);
  cuda::DeviceBuffer<T> x(static_cast<std::size_t>(A.cols), "x"), y(static_cast<std::size_t>(A.rows), "y");
  const std::vector<T> ones(x.size(), T{1});
  cuda::copy_to_device_sync(ctx, x.data(), ones.data(), x.bytes());
  cuda::spmv(ctx, M, std::span<const T>(x.span()), y.span());
  ASSERT_NE(M.spmv_report(), nullptr);
  const plan::Report& r = *M.spmv_report();
  EXPECT_EQ(r.mode, plan::Mode::Auto);  // the default: the model, timing only where it pays
  EXPECT_FALSE(r.auto_reason.empty());
  EXPECT_TRUE(r.winner().eligible);
  EXPECT_GT(r.planning_us, 0);
  const std::string text = r.explain();
  EXPECT_NE(text.find("chosen: " + r.winner().kernel), std::string::npos) << text;
  // Operands of the wrong size, and another context, are refused before anything runs.
  EXPECT_THROW(cuda::spmv(ctx, M, std::span<const T>(x.span()).first(1), y.span()), Error);
  cuda::Context other(0);
  EXPECT_THROW(cuda::spmv(other, M, std::span<const T>(x.span()), y.span()), Error);
  EXPECT_THROW(M.plan_spmm(0), Error);
}

// No candidate computes in place (cuSPARSE's neither): an output overlapping its input is refused
// before anything is enqueued, for every kernel the plan may hold.
TYPED_TEST(FrontDoor, OverlappingOperandsAreRefused) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::generate<T, int32_t>("stencil2d:n=8");  // 64 x 64
  cuda::SparseMatrix<T> M(ctx, A);
  const auto n = static_cast<std::size_t>(A.rows);
  cuda::DeviceBuffer<T> buf(2 * n + 8, "buf");
  const std::span<T> all = buf.span();
  auto refused = [](const auto& run) {
    try {
      run();
      ADD_FAILURE() << "an overlapping output was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("overlaps the input"), std::string::npos) << e.what();
    }
  };
  refused([&] { cuda::spmv(ctx, M, std::span<const T>(all.first(n)), all.first(n)); });
  refused([&] { cuda::spmv(ctx, M, std::span<const T>(all.first(n)), all.subspan(n - 1, n)); });
  // Disjoint neighbours in one buffer are fine.
  cuda::spmv(ctx, M, std::span<const T>(all.first(n)), all.subspan(n, n));
  const auto L = static_cast<int64_t>(2);
  cuda::DenseView<const T> B{all.data(), A.cols, L, L, Layout::RowMajor};
  cuda::DenseView<T> C{all.data() + 4, A.rows, L, L, Layout::RowMajor};
  refused([&] { cuda::spmm(ctx, M, B, C); });
  ctx.synchronize();
}

TYPED_TEST(FrontDoor, TunerConvergesAndStaysPut) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::generate<T, int32_t>("stencil27:n=40");
  cuda::SparseMatrix<T> M(ctx, A);
  plan::Options o;
  o.mode = plan::Mode::Tune;
  o.kernels = {"csr_param"};  // a kernel with knobs, so the tuner has work
  o.tuning_cache = "-";
  M.plan_spmv(o);
  EXPECT_FALSE(M.spmv_report()->frozen);
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), 7);
  cuda::DeviceBuffer<T> dx(x.size(), "x"), dy(static_cast<std::size_t>(A.rows), "y");
  cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
  int calls = 0;
  while (!M.spmv_report()->frozen && calls < 100) {
    cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
    ctx.synchronize();  // as a solver's loop does (a dot product): the trial's events are done
    ++calls;
  }
  EXPECT_LE(M.spmv_report()->tuner_calls, o.tune_calls);
  ASSERT_TRUE(M.spmv_report()->frozen) << "not frozen after " << calls << " calls";
  EXPECT_EQ(M.spmv_report()->decided_by, "tuned");
  const auto tuned = M.spmv_report()->winner().knobs;
  for (int i = 0; i < 10; ++i) cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
  EXPECT_EQ(M.spmv_report()->winner().knobs, tuned);
  // And the tuned product is still right.
  std::vector<T> want(static_cast<std::size_t>(A.rows)), got(want.size());
  ref::spmv(A, std::span<const T>(x), std::span<T>(want));
  cuda::copy_to_host_sync(ctx, got.data(), dy.data(), dy.bytes());
  for (const SpmvCase<T>& c : spmv_cases(A, x, 7))
    if (c.beta == T{0}) c.expect_close(got, "tuned csr_param");
}

// One SpMV through the front door on a poisoned y, against spx::ref (x drawn from `seed`).
template <class T>
void expect_spmv_matches_ref(cuda::Context& ctx, cuda::SparseMatrix<T>& M, const Csr<T, int32_t>& A,
                             uint64_t seed, const std::string& what) {
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  std::vector<T> want(static_cast<std::size_t>(A.rows)), got(want.size());
  ref::spmv(A, std::span<const T>(x), std::span<T>(want));
  poison(std::span<T>(got));
  cuda::DeviceBuffer<T> dx(x.size(), "x"), dy(want.size(), "y");
  cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
  cuda::copy_to_device_sync(ctx, dy.data(), got.data(), dy.bytes());
  cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
  cuda::copy_to_host_sync(ctx, got.data(), dy.data(), dy.bytes());
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], (std::is_same_v<T, float> ? 1e-4 : 1e-12) * (1 + std::abs(want[i])))
        << what << " row " << i;
}

// Mode auto on a small matrix at the default 100 calls: planning cannot pay, so the light kernel
// runs at once (no features, no conversion), right on the first call; with many calls it plans.
TYPED_TEST(FrontDoor, AutoTakesTheLightPlanWherePlanningCannotPay) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::generate<T, int32_t>("stencil27:n=20,seed=3");
  plan::Options o;
  o.tuning_cache = "-";
  {
    cuda::SparseMatrix<T> M(ctx, A);
    const plan::Report& r = M.plan_spmv(o);
    EXPECT_EQ(r.decided_by, "light") << r.explain();
    EXPECT_EQ(r.winner().kernel, plan::default_rule_tables().planner.auto_light_kernel);
    EXPECT_EQ(r.features_us, 0);
    EXPECT_EQ(r.extras_us, 0);  // nor the formats' host-side inputs
    EXPECT_NE(r.explain().find("cost more than it can save"), std::string::npos) << r.explain();
    expect_spmv_matches_ref(ctx, M, A, 17, "light plan");
  }
  o.expected_calls = 10000000;
  cuda::SparseMatrix<T> M(ctx, A);
  const plan::Report& r = M.plan_spmv(o);
  EXPECT_NE(r.decided_by, "light");
  // A ranked plan computes the host-side inputs inside its planning time, and says so.
  EXPECT_GT(r.extras_us, 0) << r.explain();
  EXPECT_LE(r.extras_us + r.features_us, r.planning_us) << r.explain();
  EXPECT_NE(r.explain().find("host inputs"), std::string::npos) << r.explain();
}

// A value the planner's sample of a large matrix's values missed: the dictionary conversions find it
// and refuse, so sell_c16_dict drops out saying why and rcm_sell_c16 converts without a dictionary;
// every product stays right.
TYPED_TEST(FrontDoor, AValueTheSampledTableMissedIsRefusedNotMultiplied) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  auto A = gen::generate<T, int32_t>("stencil27:n=24,shuffle=3");  // 2 values, sampled (below)
  ASSERT_GT(A.nnz(), kDistinctSampleAll);
  A.values[static_cast<std::size_t>(kDistinctSampleHead + kDistinctSampleChunk) + 5] = T(0.5);
  for (const std::vector<std::string> kernels :
       {std::vector<std::string>{"sell_c16_dict", "csr_param"}, std::vector<std::string>{"rcm_sell_c16"}}) {
    plan::Options o = only(kernels[0]);
    o.kernels = kernels;
    o.mode = plan::Mode::Measure;
    cuda::SparseMatrix<T> M(ctx, A);
    const plan::Report& r = M.plan_spmv(o);
    if (kernels[0] == "sell_c16_dict") {
      EXPECT_EQ(r.winner().kernel, "csr_param") << r.explain();
      EXPECT_NE(r.explain().find("not in the table"), std::string::npos) << r.explain();
    }
    expect_spmv_matches_ref(ctx, M, A, 23, kernels[0]);
  }
}

// On irregular rows the light plan races its rival against the light kernel on the first calls:
// every call's product is right while they take turns, the faster is kept and reported ("raced"),
// and a deterministic_only plan runs the light kernel alone.
TYPED_TEST(FrontDoor, LightPlanRacesItsRivalOnIrregularRows) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::power_law<T, int32_t>(3001, 6.0, 1.9, 23);
  const plan::PlannerRuleTable& t = plan::default_rule_tables().planner;
  ASSERT_GT(stats(A).ell_padding_ratio, t.spread_padding);
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), 29);
  std::vector<T> want(static_cast<std::size_t>(A.rows)), got(want.size()), poisoned(want.size());
  ref::spmv(A, std::span<const T>(x), std::span<T>(want));
  poison(std::span<T>(poisoned));
  cuda::DeviceBuffer<T> dx(x.size(), "x"), dy(want.size(), "y");
  cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
  plan::Options o;
  o.tuning_cache = "-";
  cuda::SparseMatrix<T> M(ctx, A);
  const plan::Report& planned = M.plan_spmv(o);
  EXPECT_EQ(planned.decided_by, "racing") << planned.explain();
  EXPECT_NE(planned.explain().find(t.auto_light_rival), std::string::npos) << planned.explain();
  for (int call = 0; call < 4 * (t.auto_light_race_samples + 1); ++call) {
    cuda::copy_to_device_sync(ctx, dy.data(), poisoned.data(), dy.bytes());
    cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
    cuda::copy_to_host_sync(ctx, got.data(), dy.data(), dy.bytes());
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], (std::is_same_v<T, float> ? 1e-4 : 1e-12) * (1 + std::abs(want[i])))
          << "call " << call << " row " << i;
  }
  ASSERT_NE(M.spmv_report(), nullptr);
  const plan::Report& r = *M.spmv_report();
  EXPECT_EQ(r.decided_by, "raced") << r.explain();
  ASSERT_EQ(r.candidates.size(), 2u);
  EXPECT_TRUE(r.winner().kernel == t.auto_light_kernel || r.winner().kernel == t.auto_light_rival);
  EXPECT_FALSE(std::isnan(r.candidates[0].measured_us));
  o.deterministic_only = true;
  cuda::SparseMatrix<T> D(ctx, A);
  const plan::Report& d = D.plan_spmv(o);
  EXPECT_EQ(d.decided_by, "light") << d.explain();
}

// Mode auto racing its top candidates on the first calls: every call of the race is right (the
// output poisoned before each), the plan freezes on one of the contenders after its trials, says
// "raced" with a measured time, stays put, and a graph captured mid-race ends the race.
TYPED_TEST(FrontDoor, AutoRaceIsRightOnEveryCallAndFreezes) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  // Power-law rows: the model's top SpMV candidates are within its errors of each other.
  const auto A = gen::generate<T, int32_t>("powerlaw:n=40000,avg=8,exp=1.8,seed=5");
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), 13);
  std::vector<T> want(static_cast<std::size_t>(A.rows)), got(want.size()), poisoned(want.size());
  ref::spmv(A, std::span<const T>(x), std::span<T>(want));
  poison(std::span<T>(poisoned));
  cuda::DeviceBuffer<T> dx(x.size(), "x"), dy(want.size(), "y");
  cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
  const auto expect_right = [&](const std::string& what) {
    cuda::copy_to_host_sync(ctx, got.data(), dy.data(), dy.bytes());
    for (const SpmvCase<T>& c : spmv_cases(A, x, 13))
      if (c.beta == T{0}) c.expect_close(got, what);
  };
  plan::Options o;
  o.expected_calls = 100000;  // room for a race of every contender
  o.measure_top = 4;
  o.tuning_cache = "-";
  {
    cuda::SparseMatrix<T> M(ctx, A);
    M.plan_spmv(o);
    const plan::Report& r = *M.spmv_report();
    if (r.decided_by != "racing") GTEST_SKIP() << "the model did not race here: " << r.auto_reason;
    EXPECT_FALSE(r.frozen);
    int calls = 0;
    while (!r.frozen && calls < 1000) {
      cuda::copy_to_device_sync(ctx, dy.data(), poisoned.data(), dy.bytes());
      cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
      expect_right("race call " + std::to_string(calls));
      ++calls;
    }
    ASSERT_TRUE(r.frozen) << "still racing after " << calls << " calls";
    EXPECT_EQ(r.decided_by, "raced");
    EXPECT_FALSE(std::isnan(r.winner().measured_us));
    EXPECT_GE(r.tuner_calls, 8);  // two contenders at least, each 1 untimed + 3 timed calls
    const std::string kept = r.winner().kernel;
    for (int i = 0; i < 5; ++i) cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
    EXPECT_EQ(M.spmv_report()->winner().kernel, kept);
    expect_right("raced " + kept);
    EXPECT_NE(r.explain().find("timed on the first calls"), std::string::npos) << r.explain();
  }
  {
    cuda::SparseMatrix<T> M(ctx, A);
    M.plan_spmv(o);
    if (M.spmv_report()->decided_by != "racing") return;
    cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());  // one trial in flight
    ctx.synchronize();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(ctx.stream(), cudaStreamCaptureModeGlobal), cudaSuccess);
    cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
    ASSERT_EQ(cudaStreamEndCapture(ctx.stream(), &graph), cudaSuccess);
    EXPECT_TRUE(M.spmv_report()->frozen);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    cuda::copy_to_device_sync(ctx, dy.data(), poisoned.data(), dy.bytes());
    ASSERT_EQ(cudaGraphLaunch(exec, ctx.stream()), cudaSuccess);
    ctx.synchronize();
    expect_right("graph after a race");
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());  // frees the losers
    ctx.synchronize();
    expect_right("after the graph");
  }
}

TYPED_TEST(FrontDoor, TuningCacheRoundTripsAndKeysByStructure) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto dir = std::filesystem::temp_directory_path() / "spx_front_door_cache";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / (std::string(precision_name<T>()) + ".json")).string();
  std::filesystem::remove(path);
  const auto A = gen::generate<T, int32_t>("stencil27:n=24");
  plan::Options o;
  o.mode = plan::Mode::Measure;
  o.tuning_cache = path;
  std::string kernel;
  {
    cuda::SparseMatrix<T> M(ctx, A);
    kernel = M.plan_spmv(o).winner().kernel;
    EXPECT_EQ(M.spmv_report()->decided_by, "measured");
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  {
    cuda::SparseMatrix<T> M(ctx, A);  // the same structure: the cached plan, no timing
    const plan::Report& r = M.plan_spmv(o);
    EXPECT_EQ(r.decided_by, "cache");
    EXPECT_EQ(r.winner().kernel, kernel);
  }
  {
    const auto B = gen::generate<T, int32_t>("stencil27:n=25");  // another structure: planned afresh
    cuda::SparseMatrix<T> M(ctx, B);
    EXPECT_NE(M.plan_spmv(o).decided_by, "cache");
  }
  std::filesystem::remove_all(dir);
}

// Issue 34 row 9: a cache that cannot be written (or read) is a warning; planning, the tuner's
// freeze (which saves) and the product run.
TYPED_TEST(FrontDoor, AnUnwritableOrMalformedTuningCacheDoesNotFailTheProduct) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto dir = std::filesystem::temp_directory_path() / "spx_front_door_bad_cache";
  std::filesystem::create_directories(dir);
  const std::string malformed = (dir / "malformed.json").string();
  std::ofstream(malformed) << "{ not json";
  const auto A = gen::generate<T, int32_t>("stencil27:n=16");
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), 7);
  cuda::DeviceBuffer<T> dx(x.size(), "x"), dy(static_cast<std::size_t>(A.rows), "y");
  cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
  std::vector<T> got(static_cast<std::size_t>(A.rows));
  for (const std::string& path : {(dir / "no/such/folder/cache.json").string(), malformed}) {
    cuda::SparseMatrix<T> M(ctx, A);
    plan::Options o;
    o.mode = plan::Mode::Tune;
    o.kernels = {"csr_param"};  // a kernel with knobs: the tuner freezes, then saves
    o.tuning_cache = path;
    ASSERT_NO_THROW(M.plan_spmv(o)) << path;
    for (int calls = 0; !M.spmv_report()->frozen && calls < 100; ++calls) {
      ASSERT_NO_THROW(cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span())) << path;
      ctx.synchronize();
    }
    EXPECT_TRUE(M.spmv_report()->frozen) << path;
    cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
    cuda::copy_to_host_sync(ctx, got.data(), dy.data(), dy.bytes());
    for (const SpmvCase<T>& c : spmv_cases(A, x, 7))
      if (c.beta == T{0}) c.expect_close(got, path.c_str());
  }
  std::filesystem::remove_all(dir);
}

TYPED_TEST(FrontDoor, APlanIsReusedOnlyForTheSameStructure) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::generate<T, int32_t>("fem:rows=3000,len=12");
  cuda::SparseMatrix<T> M(ctx, A);
  plan::Options o;
  o.mode = plan::Mode::Measure;
  o.tuning_cache = "-";
  const plan::Report made = M.plan_spmv(o);
  // The same structure, other values (a time step): the plan is taken as it is, and it is right.
  Csr<T, int32_t> A2 = A;
  for (auto& v : A2.values) v = v * T(-0.5) + T(1);
  cuda::SparseMatrix<T> M2(ctx, A2);
  plan::Options reuse;
  reuse.reuse = &made;
  EXPECT_EQ(M2.plan_spmv(reuse).decided_by, "reused");
  EXPECT_EQ(M2.spmv_report()->winner().kernel, made.winner().kernel);
  EXPECT_TRUE(check_spmv<T>("fem reused", A2, reuse, 5));
  // Another structure: refused, saying why.
  cuda::SparseMatrix<T> M3(ctx, gen::generate<T, int32_t>("fem:rows=3001,len=12"));
  try {
    M3.plan_spmv(reuse);
    ADD_FAILURE() << "a plan of another structure was reused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("another structure"), std::string::npos) << e.what();
  }
  EXPECT_THROW(M.plan_spmm(8, plan::DenseLayout::RowMajor, reuse), Error);  // another operation
}

TYPED_TEST(FrontDoor, PlannedSpmvCapturesIntoAGraph) {
  SPX_REQUIRE_GPU();
  using T = TypeParam;
  auto& ctx = gpu();
  const auto A = gen::generate<T, int32_t>("stencil27:n=32");
  const auto x = random_vector<T>(static_cast<std::size_t>(A.cols), 11);
  cuda::DeviceBuffer<T> dx(x.size(), "x"), dy(static_cast<std::size_t>(A.rows), "y");
  cuda::copy_to_device_sync(ctx, dx.data(), x.data(), dx.bytes());
  std::vector<T> want(static_cast<std::size_t>(A.rows));
  ref::spmv(A, std::span<const T>(x), std::span<T>(want));
  for (const std::string& k :
       {std::string("csr_param"), std::string("ell"), std::string("cusparse_csr_alg2"), std::string()}) {
    cuda::SparseMatrix<T> M(ctx, A);
    plan::Options o = k.empty() ? plan::Options{} : only(k);
    o.tuning_cache = "-";
    M.plan_spmv(o);  // planning allocates; the product after it must not
    ctx.synchronize();
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(ctx.stream(), cudaStreamCaptureModeGlobal), cudaSuccess);
    cuda::spmv(ctx, M, std::span<const T>(dx.span()), dy.span());
    ASSERT_EQ(cudaStreamEndCapture(ctx.stream(), &graph), cudaSuccess) << k;
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess) << k;
    std::vector<T> poisoned(want.size());
    poison(std::span<T>(poisoned));
    cuda::copy_to_device_sync(ctx, dy.data(), poisoned.data(), dy.bytes());
    ASSERT_EQ(cudaGraphLaunch(exec, ctx.stream()), cudaSuccess);
    ctx.synchronize();
    std::vector<T> got(want.size());
    cuda::copy_to_host_sync(ctx, got.data(), dy.data(), dy.bytes());
    for (const SpmvCase<T>& c : spmv_cases(A, x, 11))
      if (c.beta == T{0}) c.expect_close(got, "graph " + M.spmv_report()->winner().kernel);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
}

}  // namespace
}  // namespace spx::test
