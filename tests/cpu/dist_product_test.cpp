// The simulated-rank SpMV and SpMM equal the undistributed spx::ref product: random matrices of odd
// sizes with empty rows, one huge row, rectangular shapes, generated structures and a shared real
// matrix, k = 1..7, both kernel sets, float and double.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "cpu_kernel_bounds.hpp"
#include "spx/cpu.hpp"
#include "spx/dist.hpp"
#include "spx/generate.hpp"
#include "spx/io.hpp"
#include "test_support.hpp"

namespace {

using spx::dist::Kernels;

// The local product is rounded to T once and the remote one added to it: two roundings in T where
// the reference makes one, hence twice the CPU kernels' bound.
template <class T>
double split_tolerance(double magnitude, int64_t terms) {
  return 2.0 * spx::test::output_tolerance<T>(magnitude, terms);
}

template <class T, class I>
void check_spmv(const spx::Csr<T, I>& A, int k, Kernels kernels, uint64_t seed) {
  const auto D = spx::dist::distribute(A, k);
  const auto x = spx::test::random_vector<T>(static_cast<std::size_t>(A.cols), seed);
  std::vector<T> want(static_cast<std::size_t>(A.rows));
  spx::ref::spmv(A, std::span<const T>(x), std::span<T>(want));
  const std::vector<T> got = spx::dist::simulated_spmv(D, std::span<const T>(x), kernels);
  std::vector<double> magnitude;
  std::vector<int64_t> terms;
  spx::test::spmv_bounds(A, std::span<const T>(x), std::span<const T>(want), 1.0, 0.0, magnitude, terms);
  spx::test::expect_within_bounds<T>(got, want, magnitude, terms, "spmv k=" + std::to_string(k),
                                     &split_tolerance<T>);
}

template <class T, class I>
void check_spmm(const spx::Csr<T, I>& A, int k, int64_t L, spx::Layout layout, uint64_t seed) {
  const auto D = spx::dist::distribute(A, k);
  spx::Dense<T> B(A.cols, L, layout);
  B.data = spx::test::random_vector<T>(B.data.size(), seed);
  spx::Dense<T> want(A.rows, L, layout),
      got(A.rows, L, layout == spx::Layout::RowMajor ? spx::Layout::ColMajor : spx::Layout::RowMajor);
  spx::test::poison<T>(got.data);
  spx::ref::spmm(A, B, want);
  spx::dist::simulated_spmm(D, B, got, Kernels::OpenMP);
  std::vector<double> magnitude;
  std::vector<int64_t> terms;
  spx::test::spmm_bounds(A, B, want, 1.0, 0.0, magnitude, terms);
  const auto g = spx::test::logical_entries(got), w = spx::test::logical_entries(want);
  spx::test::expect_within_bounds<T>(
      g, w, magnitude, terms, "spmm L=" + std::to_string(L) + " k=" + std::to_string(k), &split_tolerance<T>);
}

TEST(DistProduct, RandomOddSizesEmptyRowsRectangular) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  for (auto [rows, cols] : {std::pair{1, 1}, {5, 5}, {97, 97}, {331, 57}, {57, 331}, {2001, 2001}}) {
    const auto Ad = spx::test::random_csr<double, int32_t>(
        rows, cols, 0, 17, seed ^ static_cast<uint64_t>(rows * 31 + cols), 0.25);
    const auto Af =
        spx::test::random_csr<float, int32_t>(rows, cols, 0, 17, seed + static_cast<uint64_t>(rows), 0.25);
    for (int k = 1; k <= std::min(7, rows); ++k) {
      SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", k " + std::to_string(k));
      check_spmv(Ad, k, Kernels::Reference, seed + 1);
      check_spmv(Ad, k, Kernels::OpenMP, seed + 2);
      check_spmv(Af, k, Kernels::OpenMP, seed + 3);
    }
  }
}

TEST(DistProduct, OneHugeRowAndGeneratedStructures) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto huge = spx::gen::long_rows<double, int32_t>(1501, 1777, 1, 1700, 0.3, 5, 11);
  const auto st = spx::gen::generate<double, int32_t>("stencil27:n=13");
  const auto pl = spx::gen::power_law<float, int64_t>(3001, 6.0, 1.3, 5);
  for (int k = 1; k <= 7; ++k) {
    SCOPED_TRACE("k " + std::to_string(k));
    check_spmv(huge, k, Kernels::OpenMP, seed);
    check_spmv(st, k, Kernels::OpenMP, seed + 1);
    check_spmv(pl, k, Kernels::Reference, seed + 2);
  }
}

TEST(DistProduct, SpmmEveryLayoutAndWidth) {
  const uint64_t seed = spx::test::fresh_seed();
  SCOPED_TRACE("SPX_TEST_SEED=" + std::to_string(seed));
  const auto sq = spx::test::random_csr<double, int32_t>(203, 203, 0, 11, seed, 0.2);
  const auto wide = spx::test::random_csr<float, int32_t>(77, 190, 1, 9, seed + 1, 0.1);
  for (int k : {1, 2, 3, 5, 7})
    for (int64_t L : {1, 3, 8})
      for (auto layout : {spx::Layout::RowMajor, spx::Layout::ColMajor}) {
        check_spmm(sq, k, L, layout, seed + static_cast<uint64_t>(k * 10 + L));
        check_spmm(wide, k, L, layout, seed + static_cast<uint64_t>(k * 100 + L));
      }
}

TEST(DistProduct, SharedRealMatrix) {
  const auto dir = spx::test::shared_matrices_dir();
  if (dir.empty()) GTEST_SKIP() << "shared matrices folder not found (set SPX_SHARED_MATRICES)";
  for (const char* name : {"memplus", "Maragal_6"}) {
    const auto path = dir / (std::string(name) + ".mtx.gz");
    if (!std::filesystem::exists(path)) continue;
    SCOPED_TRACE(name);
    const auto A = spx::read_matrix_market<double, int32_t>(path.string());
    for (int k : {2, 4, 7}) check_spmv(A, k, Kernels::OpenMP, 42);
  }
}

TEST(DistProduct, PerRankVectorsAndErrors) {
  const auto A = spx::test::random_csr<double, int32_t>(40, 30, 0, 6, 9);
  const auto D = spx::dist::distribute(A, 3);
  const auto x = spx::test::random_vector<double>(30, 3);
  const auto parts = spx::dist::scatter(D.col_partition, std::span<const double>(x));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(spx::dist::gather(D.col_partition, parts), x);
  const auto y_parts = spx::dist::simulated_spmv(D, parts);
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(static_cast<int64_t>(y_parts[r].size()), D.row_partition.block_size(r));
  spx::test::expect_error([&] { spx::dist::simulated_spmv(D, std::span<const double>(x.data(), 29)); },
                          "the vector has 29 entries, the partition 30");
  auto short_parts = parts;
  short_parts[1].pop_back();
  spx::test::expect_error([&] { spx::dist::simulated_spmv(D, short_parts); }, "rank 1 holds");
  spx::Dense<double> B(30, 2), C(41, 2);
  spx::test::expect_error([&] { spx::dist::simulated_spmm(D, B, C); }, "C 41 x 2");
}

}  // namespace
